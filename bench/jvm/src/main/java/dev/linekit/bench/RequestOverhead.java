package dev.linekit.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.net.httpserver.HttpServer;
import dev.linekit.LineKit;
import dev.linekit.LineKitOkHttp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Per-request overhead: the same keep-alive loopback GET through a plain OkHttpClient,
 * through OkHttp + {@link StaticListFailover} (the hand-written peer an app would
 * otherwise use: same logical URL, host rewritten onto the loopback line) and through
 * OkHttp + Linekit (interceptor + event listener, JNI fast path), with 1 and 8 concurrent
 * callers. The three clients take turns in short blocks (the order rotates every round and
 * is reversed every other round) so load on this shared machine hits all alike. Reports median/p99 latency per
 * request, the added median in %, and CPU per request: the callers' own thread CPU
 * (ThreadMXBean; the interceptor and OkHttp's exchange run there) and the whole process
 * (server included, so the difference is what Linekit adds).
 *
 * Usage: RequestOverhead [out.json] [rounds] [requestsPerCallerPerBlock]
 */
public final class RequestOverhead {
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  static final class Stats {
    long[] lat = new long[1 << 20];
    int n;
    long threadCpu;
    long processCpu;
    long requests;

    synchronized void add(long[] l, int count, long cpu) {
      if (n + count > lat.length) lat = java.util.Arrays.copyOf(lat, Math.max(lat.length * 2, n + count));
      System.arraycopy(l, 0, lat, n, count);
      n += count;
      threadCpu += cpu;
      requests += count;
    }
  }

  static void block(OkHttpClient client, Request req, int callers, int perCaller, Stats stats) throws Exception {
    CyclicBarrier start = new CyclicBarrier(callers + 1);
    Thread[] ts = new Thread[callers];
    AtomicLong errors = new AtomicLong();
    for (int c = 0; c < callers; c++) {
      ts[c] = new Thread(() -> {
        long[] l = new long[perCaller];
        try {
          start.await();
          long cpu0 = THREADS.getCurrentThreadCpuTime();
          for (int i = 0; i < perCaller; i++) {
            long s = System.nanoTime();
            try (Response r = client.newCall(req).execute()) {
              r.body().string();
            }
            l[i] = System.nanoTime() - s;
          }
          stats.add(l, perCaller, THREADS.getCurrentThreadCpuTime() - cpu0);
        } catch (Exception e) {
          errors.incrementAndGet();
        }
      });
      ts[c].start();
    }
    start.await();
    long p0 = OS.getProcessCpuTime();
    for (Thread t : ts) t.join();
    stats.processCpu += OS.getProcessCpuTime() - p0;
    if (errors.get() > 0) throw new IllegalStateException(errors.get() + " callers failed");
  }

  static Map<String, Object> summary(Stats s) {
    long[] v = Json.sorted(s.lat, s.n);
    Map<String, Object> m = Json.obj();
    m.put("requests", s.requests);
    m.put("p50_us", Json.q(v, 0.50) / 1000.0);
    m.put("p99_us", Json.q(v, 0.99) / 1000.0);
    m.put("caller_cpu_us_per_req", s.threadCpu / 1000.0 / s.requests);
    m.put("process_cpu_us_per_req", s.processCpu / 1000.0 / s.requests);
    return m;
  }

  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : null;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int perCaller = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    byte[] body = "{\"symbol\":\"BTC\",\"price\":\"97000.1\"}".getBytes(StandardCharsets.UTF_8);
    HttpServer server = LoopbackServer.start(body, 64, Executors.newFixedThreadPool(8));
    String origin = LoopbackServer.origin(server);
    String config = "{\"version\":1,\"allow_cleartext\":true,\"trace\":{\"sample_rate\":0.01},"
        + "\"biz_lines\":{\"spot\":{\"match\":[\"api.linekit.test\"],\"http\":[{\"id\":\"lo\",\"url\":\"" + origin + "\"}]}}}";
    LineKit kit = new LineKit.Builder().configJson(config).build();
    // Enough idle connections for 8 callers in both clients (OkHttp keeps 5 by default).
    OkHttpClient plain = new OkHttpClient.Builder().connectionPool(new ConnectionPool(16, 5, TimeUnit.MINUTES)).build();
    OkHttpClient linekit = LineKitOkHttp.install(
        new OkHttpClient.Builder().connectionPool(new ConnectionPool(16, 5, TimeUnit.MINUTES)), kit).build();
    OkHttpClient staticList = new OkHttpClient.Builder()
        .connectionPool(new ConnectionPool(16, 5, TimeUnit.MINUTES))
        .addInterceptor(new StaticListFailover(
            List.of(okhttp3.HttpUrl.get(origin), okhttp3.HttpUrl.get("http://127.0.0.1:9")), 3, 5_000))
        .build();
    Request direct = new Request.Builder().url(origin + "/api/v1/ticker?symbol=BTC").build();
    Request logical = new Request.Builder().url("http://api.linekit.test/api/v1/ticker?symbol=BTC").build();

    Map<String, Object> result = Json.obj();
    result.put("benchmark", "request_overhead");
    result.put("rounds", rounds);
    result.put("requests_per_caller_per_block", perCaller);
    for (int callers : new int[] {1, 8}) {
      OkHttpClient[] clients = {plain, staticList, linekit};
      Request[] requests = {direct, logical, logical};
      // Warm-up: JIT, connections.
      for (int w = 0; w < 3; w++) {
        for (int k = 0; k < clients.length; k++) block(clients[k], requests[k], callers, perCaller, new Stats());
      }
      Stats[] stats = {new Stats(), new Stats(), new Stats()};
      for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < clients.length; j++) {
          int step = (r & 1) == 0 ? j : clients.length - 1 - j;
          int k = (step + r) % clients.length;
          block(clients[k], requests[k], callers, perCaller, stats[k]);
        }
      }
      Map<String, Object> sa = summary(stats[0]);
      Map<String, Object> ss = summary(stats[1]);
      Map<String, Object> sb = summary(stats[2]);
      Map<String, Object> c = Json.obj();
      c.put("plain", sa);
      c.put("static_list", ss);
      c.put("linekit", sb);
      double p50a = (Double) sa.get("p50_us");
      double p50b = (Double) sb.get("p50_us");
      double p50s = (Double) ss.get("p50_us");
      c.put("added_p50_us", p50b - p50a);
      c.put("added_p50_pct", (p50b - p50a) / p50a * 100.0);
      c.put("added_p99_us", (Double) sb.get("p99_us") - (Double) sa.get("p99_us"));
      double cpuA = (Double) sa.get("caller_cpu_us_per_req");
      double cpuS = (Double) ss.get("caller_cpu_us_per_req");
      double cpuB = (Double) sb.get("caller_cpu_us_per_req");
      c.put("added_caller_cpu_us_per_req", cpuB - cpuA);
      c.put("added_process_cpu_us_per_req",
          (Double) sb.get("process_cpu_us_per_req") - (Double) sa.get("process_cpu_us_per_req"));
      c.put("static_list_added_p50_us", p50s - p50a);
      c.put("static_list_added_caller_cpu_us_per_req", cpuS - cpuA);
      c.put("static_list_added_process_cpu_us_per_req",
          (Double) ss.get("process_cpu_us_per_req") - (Double) sa.get("process_cpu_us_per_req"));
      // Target: Linekit's added caller CPU at most the static list's + 3 us.
      c.put("linekit_minus_static_list_caller_cpu_us_per_req", cpuB - cpuS);
      c.put("pooled_connections", List.of(plain.connectionPool().connectionCount(),
          staticList.connectionPool().connectionCount(), linekit.connectionPool().connectionCount()));
      result.put("callers_" + callers, c);
      System.err.println("callers=" + callers + " " + Json.write(c));
    }
    kit.close();
    server.stop(0);
    Json.save(out, result);
    System.exit(0);
  }
}
