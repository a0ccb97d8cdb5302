package dev.linekit.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A hand harness complementing JMH: the four loopback clients of {@link InterceptorBench}
 * measured INTERLEAVED (request by request, so machine load hits them alike), after a
 * warm-up round, with the pooled connection count (1 = keep-alive reuse works).
 */
public final class InterleavedLoopback {
  public static void main(String[] args) throws Exception {
    InterceptorBench b = new InterceptorBench();
    b.setUp();
    List<InterceptorBench.Target> targets = new ArrayList<>(b.targets.values());
    long[] t = new long[targets.size()];
    for (int round = 0; round < 2; round++) { // round 0 warms up, round 1 is measured
      java.util.Arrays.fill(t, 0);
      for (int i = 0; i < 20000; i++) {
        for (int c = 0; c < t.length; c++) {
          long s = System.nanoTime();
          targets.get(c).get();
          t[c] += System.nanoTime() - s;
        }
      }
    }
    List<String> names = new ArrayList<>(b.targets.keySet());
    for (int c = 0; c < t.length; c++) {
      System.out.printf("%-16s mean=%.1fus pooled=%d%n", names.get(c), t[c] / 20000 / 1000.0,
          targets.get(c).client().connectionPool().connectionCount());
    }
    b.tearDown();
    System.exit(0);
  }
}
