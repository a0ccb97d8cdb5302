package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.LineKitOkHttp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Outage scenarios on three loopback lines (p = primary, b, c). One schedule drives the
 * primary: healthy → refused → 503 → blackhole (connects time out) → recovered; three
 * strategies run at the same time in this process against the same lines, each with its
 * own OkHttpClient (connect timeout 1 s, read timeout 2 s) and two user threads sending a
 * GET every 50 ms:
 *
 * <ul>
 *   <li>{@code fixed}: always the primary;</li>
 *   <li>{@code static_list}: {@link StaticListFailover}, N = 3, cooldown 5 s;</li>
 *   <li>{@code linekit}: OkHttp + Linekit with its default OkHttp probe transport (breaker
 *       threshold 3, open cooldown 5 s, revive probes every 5 s with 1 s jitter, detect
 *       cooldown 5 s, max_retries 1, window 20 s: production defaults are minutes, shortened
 *       so the run stays short; switch interval stays at its 10 s default). The primary is
 *       the preferred line (weight 100 vs 50), as in a real deployment: with equal weights
 *       Linekit keeps traffic on the healthy backup (sticky by design) and never returns.</li>
 * </ul>
 *
 * Reports per strategy and phase: user requests, failed ones, p50/p99 latency, attempts
 * on the primary; time to move traffic away (first request whose first attempt avoids the
 * primary) and the failed primary attempts before that; time to return after recovery
 * (first request whose first attempt succeeds on the primary); probe requests received.
 *
 * Usage: OutageScenarios [out.json] [phaseSeconds] [recoverSeconds]
 */
public final class OutageScenarios {
  record Attempt(String line, boolean ok) {}

  record Call(long startMs, long latencyMs, boolean ok, List<Attempt> attempts) {}

  static final ThreadLocal<List<Attempt>> ATTEMPTS = ThreadLocal.withInitial(ArrayList::new);

  /** Records each attempt (after any rewrite) on the calling thread. */
  static final class Recorder implements Interceptor {
    final Map<Integer, String> lineByPort;

    Recorder(Map<Integer, String> lineByPort) {
      this.lineByPort = lineByPort;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      String line = lineByPort.getOrDefault(chain.request().url().port(), "?");
      try {
        Response r = chain.proceed(chain.request());
        ATTEMPTS.get().add(new Attempt(line, r.code() < 500));
        return r;
      } catch (IOException e) {
        ATTEMPTS.get().add(new Attempt(line, false));
        throw e;
      }
    }
  }

  static final class Strategy {
    final String name;
    final OkHttpClient client;
    final String url;
    final List<Call> calls = new ArrayList<>();

    Strategy(String name, OkHttpClient client, String url) {
      this.name = name;
      this.client = client;
      this.url = url;
    }

    synchronized void add(Call c) {
      calls.add(c);
    }
  }

  record Phase(String name, long startMs, long endMs, FaultyLine.Mode primary) {}

  static OkHttpClient.Builder base() {
    return new OkHttpClient.Builder()
        .connectTimeout(1, TimeUnit.SECONDS)
        .readTimeout(2, TimeUnit.SECONDS)
        .writeTimeout(2, TimeUnit.SECONDS);
  }

  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : null;
    long phaseMs = (args.length > 1 ? Long.parseLong(args[1]) : 8) * 1000L;
    long recoverMs = (args.length > 2 ? Long.parseLong(args[2]) : 25) * 1000L;
    System.setProperty("sun.net.httpserver.nodelay", "true");
    FaultyLine p = new FaultyLine("p");
    FaultyLine b = new FaultyLine("b");
    FaultyLine c = new FaultyLine("c");
    Map<Integer, String> byPort = Map.of(p.port, "p", b.port, "b", c.port, "c");

    String config = "{\"version\":1,\"allow_cleartext\":true,\"trace\":{\"sample_rate\":0.0},"
        + "\"thresholds\":{\"timeout_ms\":1000,\"failure_threshold\":3,\"open_cooldown_ms\":5000,"
        + "\"detect_cooldown_ms\":5000,\"revive_interval_ms\":5000,\"detect_jitter_ms\":1000,"
        + "\"window_ms\":20000,\"max_retries\":1},"
        + "\"biz_lines\":{\"spot\":{\"match\":[\"api.linekit.test\"],\"detect_path\":\"" + FaultyLine.PROBE_PATH + "\",\"http\":["
        + "{\"id\":\"p\",\"url\":\"" + p.origin() + "\",\"priority\":0,\"weight\":100},"
        + "{\"id\":\"b\",\"url\":\"" + b.origin() + "\",\"priority\":1,\"weight\":50},"
        + "{\"id\":\"c\",\"url\":\"" + c.origin() + "\",\"priority\":2,\"weight\":50}]}}}";
    LineKit kit = new LineKit.Builder().configJson(config).build();

    List<Strategy> strategies = List.of(
        new Strategy("fixed", base().addInterceptor(new Recorder(byPort)).build(), p.origin() + "/api/v1/ticker"),
        new Strategy("static_list", base()
            .addInterceptor(new StaticListFailover(
                List.of(HttpUrl.get(p.origin()), HttpUrl.get(b.origin()), HttpUrl.get(c.origin())), 3, 5000))
            .addInterceptor(new Recorder(byPort)).build(), p.origin() + "/api/v1/ticker"),
        new Strategy("linekit", LineKitOkHttp.install(base(), kit).addInterceptor(new Recorder(byPort)).build(),
            "http://api.linekit.test/api/v1/ticker"));

    // Warm-up (JIT, connections, the engine's first verification of each line) before t0.
    for (int i = 0; i < 200; i++) {
      for (Strategy s : strategies) {
        try (Response r = s.client.newCall(new Request.Builder().url(s.url).build()).execute()) {
          r.body().string();
        } catch (IOException ignored) {
          // not expected while healthy
        }
      }
    }
    p.probes.clear();
    b.probes.clear();
    c.probes.clear();

    List<Phase> phases = new ArrayList<>();
    long t = 0;
    String[] names = {"healthy", "refused", "http_503", "blackhole", "recovered"};
    FaultyLine.Mode[] modes = {FaultyLine.Mode.OK, FaultyLine.Mode.REFUSED, FaultyLine.Mode.S503,
        FaultyLine.Mode.BLACKHOLE, FaultyLine.Mode.OK};
    for (int i = 0; i < names.length; i++) {
      long len = i == 0 ? 4000 : i == names.length - 1 ? recoverMs : phaseMs;
      phases.add(new Phase(names[i], t, t + len, modes[i]));
      t += len;
    }
    final long totalMs = t;
    final long t0 = System.nanoTime();
    List<Thread> users = new ArrayList<>();
    for (Strategy s : strategies) {
      for (int u = 0; u < 2; u++) {
        final long offset = u * 25L;
        Thread th = new Thread(() -> {
          long next = offset;
          while (true) {
            long now = (System.nanoTime() - t0) / 1_000_000L;
            if (now >= totalMs) return;
            if (now < next) {
              try {
                Thread.sleep(next - now);
              } catch (InterruptedException e) {
                return;
              }
              continue;
            }
            next += 50;
            ATTEMPTS.get().clear();
            long st = System.nanoTime();
            boolean ok;
            try (Response r = s.client.newCall(new Request.Builder().url(s.url)
                .header("X-Strategy", s.name).build()).execute()) {
              r.body().string();
              ok = r.isSuccessful();
            } catch (IOException e) {
              ok = false;
            }
            long lat = (System.nanoTime() - st) / 1_000_000L;
            s.add(new Call((st - t0) / 1_000_000L, lat, ok, new ArrayList<>(ATTEMPTS.get())));
          }
        }, "user-" + s.name + "-" + u);
        th.start();
        users.add(th);
      }
    }
    List<Map<String, Object>> probesByPhase = new ArrayList<>();
    for (Phase ph : phases) {
      long now = (System.nanoTime() - t0) / 1_000_000L;
      if (ph.startMs > now) Thread.sleep(ph.startMs - now);
      long[] before = {p.probeCount(), b.probeCount(), c.probeCount()};
      p.set(ph.primary);
      long end = (System.nanoTime() - t0) / 1_000_000L;
      if (ph.endMs > end) Thread.sleep(ph.endMs - end);
      Map<String, Object> pr = Json.obj();
      pr.put("phase", ph.name);
      pr.put("p", p.probeCount() - before[0]);
      pr.put("b", b.probeCount() - before[1]);
      pr.put("c", c.probeCount() - before[2]);
      probesByPhase.add(pr);
      System.err.println("end of " + ph.name + ": " + kit.stateJson());
    }
    for (Thread th : users) th.join();

    Map<String, Object> result = Json.obj();
    result.put("benchmark", "outage_scenarios");
    Map<String, Object> schedule = Json.obj();
    for (Phase ph : phases) schedule.put(ph.name, List.of(ph.startMs, ph.endMs));
    result.put("schedule_ms", schedule);
    result.put("load", "2 user threads per strategy, one GET every 50 ms each; connect timeout 1 s");
    Map<String, Object> byStrategy = Json.obj();
    for (Strategy s : strategies) byStrategy.put(s.name, analyse(s, phases));
    result.put("strategies", byStrategy);
    result.put("linekit_probes_by_phase", probesByPhase);
    kit.close();
    p.close();
    b.close();
    c.close();
    Json.save(out, result);
    System.exit(0);
  }

  static Map<String, Object> analyse(Strategy s, List<Phase> phases) {
    Map<String, Object> m = Json.obj();
    List<Call> calls;
    synchronized (s) {
      calls = new ArrayList<>(s.calls);
    }
    calls.sort((x, y) -> Long.compare(x.startMs, y.startMs));
    Map<String, Object> perPhase = Json.obj();
    long failedTotal = 0;
    for (Phase ph : phases) {
      List<Call> in = calls.stream().filter(x -> x.startMs >= ph.startMs && x.startMs < ph.endMs).toList();
      long[] lat = in.stream().mapToLong(Call::latencyMs).sorted().toArray();
      long failed = in.stream().filter(x -> !x.ok).count();
      failedTotal += failed;
      long primaryAttempts = in.stream().flatMap(x -> x.attempts.stream()).filter(a -> a.line.equals("p")).count();
      long primaryFailed = in.stream().flatMap(x -> x.attempts.stream()).filter(a -> a.line.equals("p") && !a.ok).count();
      Map<String, Object> pm = Json.obj();
      pm.put("requests", in.size());
      pm.put("failed", failed);
      pm.put("p50_ms", Json.q(lat, 0.5));
      pm.put("p99_ms", Json.q(lat, 0.99));
      pm.put("primary_attempts", primaryAttempts);
      pm.put("primary_failed_attempts", primaryFailed);
      perPhase.put(ph.name, pm);
    }
    m.put("phases", perPhase);
    m.put("failed_total", failedTotal);
    // Moving away: from the start of the refused phase.
    Phase refused = phases.get(1);
    Call moved = null;
    long failedBefore = 0;
    for (Call x : calls) {
      if (x.startMs < refused.startMs) continue;
      if (x.startMs >= phases.get(4).startMs) break;
      if (!x.attempts.isEmpty() && !x.attempts.get(0).line.equals("p")) {
        moved = x;
        break;
      }
      failedBefore += x.attempts.stream().filter(a -> a.line.equals("p") && !a.ok).count();
    }
    m.put("move_away_ms", moved == null ? null : moved.startMs - refused.startMs);
    m.put("failed_primary_attempts_before_move", moved == null ? null : failedBefore);
    // Returning: from the start of the recovered phase.
    Phase recovered = phases.get(4);
    Call back = null;
    for (Call x : calls) {
      if (x.startMs < recovered.startMs) continue;
      if (!x.attempts.isEmpty() && x.attempts.get(0).line.equals("p") && x.attempts.get(0).ok) {
        back = x;
        break;
      }
    }
    m.put("return_ms", back == null ? null : back.startMs - recovered.startMs);
    // Share of requests whose first attempt went to the primary in the last 5 s.
    List<Call> tail = calls.stream().filter(x -> x.startMs >= recovered.endMs - 5000).toList();
    long onPrimary = tail.stream().filter(x -> !x.attempts.isEmpty() && x.attempts.get(0).line.equals("p")).count();
    m.put("primary_share_last_5s", tail.isEmpty() ? null : (double) onPrimary / tail.size());
    return m;
  }
}
