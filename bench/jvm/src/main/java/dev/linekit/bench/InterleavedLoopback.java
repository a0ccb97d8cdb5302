package dev.linekit.bench;

/**
 * A hand harness complementing JMH: the four loopback clients of {@link InterceptorBench}
 * measured INTERLEAVED (request by request, so machine load hits them alike), after a
 * warm-up round, with the pooled connection count (1 = keep-alive reuse works).
 */
public final class InterleavedLoopback {
  public static void main(String[] args) throws Exception {
    InterceptorBench b = new InterceptorBench();
    b.setUp();
    long[] t = new long[4];
    okhttp3.OkHttpClient[] clients = {b.plain, b.viaJni, b.listenerOnly, b.interceptorOnly};
    okhttp3.Request[] reqs = {b.direct, b.logical, b.direct, b.logical};
    for (int round = 0; round < 2; round++) { // round 0 warms up, round 1 is measured
      java.util.Arrays.fill(t, 0);
      for (int i = 0; i < 20000; i++) {
        for (int c = 0; c < 4; c++) {
          long s = System.nanoTime();
          InterceptorBench.get(clients[c], reqs[c]);
          t[c] += System.nanoTime() - s;
        }
      }
    }
    String[] names = {"plain", "lineKitJni", "listenerOnly", "interceptorOnly"};
    for (int c = 0; c < 4; c++) {
      System.out.printf("%-16s mean=%.1fus pooled=%d%n", names[c], t[c] / 20000 / 1000.0, clients[c].connectionPool().connectionCount());
    }
    b.tearDown();
    System.exit(0);
  }
}
