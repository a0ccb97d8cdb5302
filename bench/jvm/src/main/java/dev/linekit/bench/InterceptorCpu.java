package dev.linekit.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import okhttp3.Interceptor;

/**
 * The caller CPU one request's interceptor work costs, without the network and measured in
 * thread CPU time (so that other processes on a shared machine do not count): the
 * {@link InterceptorOverheadBench} chain (listener events of a pooled exchange, an instant
 * 200) with no interceptor, with {@link StaticListFailover} and with Linekit, in rotating
 * blocks (the order rotates every round). Reports CPU ns per request for each and the
 * differences. Usage: InterceptorCpu [out.json] [rounds] [requestsPerBlock]
 */
public final class InterceptorCpu {
  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : null;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int perBlock = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    InterceptorOverheadBench b = new InterceptorOverheadBench();
    b.setUp();
    String[] names = {"plain", "static_list", "linekit"};
    Interceptor[] clients = {null, b.staticList, b.viaJni};
    long[] cpu = new long[3];
    long[] n = new long[3];
    for (int round = -3; round < rounds; round++) {
      for (int k = 0; k < 3; k++) {
        int c = Math.floorMod(round + k, 3);
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < perBlock; i++) b.run(clients[c]).close();
        long used = threads.getCurrentThreadCpuTime() - start;
        if (round >= 0) {
          cpu[c] += used;
          n[c] += perBlock;
        }
      }
    }
    b.tearDown();
    Map<String, Object> m = Json.obj();
    m.put("benchmark", "interceptor_cpu");
    m.put("rounds", rounds);
    m.put("requests_per_block", perBlock);
    double[] per = new double[3];
    for (int c = 0; c < 3; c++) {
      per[c] = cpu[c] / (double) n[c];
      m.put(names[c] + "_cpu_ns_per_req", Math.round(per[c]));
    }
    m.put("static_list_added_cpu_ns_per_req", Math.round(per[1] - per[0]));
    m.put("linekit_added_cpu_ns_per_req", Math.round(per[2] - per[0]));
    m.put("linekit_minus_static_list_cpu_ns_per_req", Math.round(per[2] - per[1]));
    System.err.println(Json.write(m));
    Json.save(out, m);
    System.exit(0);
  }
}
