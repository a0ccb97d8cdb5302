package dev.linekit.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * User traffic of one client: {@code getThreads} threads each sending a GET every
 * {@code intervalMs} (sequentially: the next one after the previous finished and the interval
 * passed), and optionally one thread sending an unkeyed POST every {@code postIntervalMs}.
 * Every call's body is read whole: a cut or broken body is a failed call.
 */
final class Load {
  /**
   * One call: times in ms since the scenario start; {@code firstLine} of its first attempt,
   * and {@code firstError} the exception that attempt failed with (see {@link #errorName};
   * null when it got a response); {@code trail} every attempt as {@code line:outcome}, in
   * order, with the exception's message (for the report of a failed call).
   */
  record Call(boolean post, long startMs, long endMs, boolean ok, String firstLine, int attempts,
      String error, String firstError, List<String> trail) {
    long latencyMs() {
      return endMs - startMs;
    }
  }

  static final ThreadLocal<List<String>> ATTEMPTS = ThreadLocal.withInitial(ArrayList::new);
  static final ThreadLocal<List<String>> ATTEMPT_ERRORS = ThreadLocal.withInitial(ArrayList::new);
  static final ThreadLocal<List<String>> TRAIL = ThreadLocal.withInitial(ArrayList::new);
  private static final AtomicLong POST_IDS = new AtomicLong();

  /**
   * Records the line (by port: 18001-18003 cleartext, 18101-18103 TLS) of every attempt,
   * after any rewrite, and the exception it failed with; add it last.
   */
  static final class Recorder implements Interceptor {
    @Override
    public Response intercept(Chain chain) throws IOException {
      int port = chain.request().url().port();
      int line = port >= 18101 ? port - 18100 : port - 18000;
      String name = line >= 1 && line <= 3 ? "line" + line : "?" + port;
      ATTEMPTS.get().add(name);
      long start = System.nanoTime();
      try {
        Response r = chain.proceed(chain.request());
        ATTEMPT_ERRORS.get().add(null);
        TRAIL.get().add(name + ":" + r.code() + " " + sinceMs(start) + "ms");
        return r;
      } catch (IOException e) {
        ATTEMPT_ERRORS.get().add(errorName(e));
        TRAIL.get().add(name + ":" + errorName(e) + "(" + e.getMessage() + ") "
            + sinceMs(start) + "ms");
        throw e;
      }
    }
  }

  private static long sinceMs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /**
   * An attempt's exception by simple class name, followed by those it suppressed joined with
   * {@code +}: OkHttp tries each address of a host in turn and throws the last route's
   * failure with the earlier ones suppressed, so a handshake refused on the first address
   * can surface as a reset on the second ({@code SocketException+SSLPeerUnverifiedException}).
   */
  static String errorName(Throwable e) {
    StringBuilder name = new StringBuilder(e.getClass().getSimpleName());
    for (Throwable s : e.getSuppressed()) {
      name.append('+').append(s.getClass().getSimpleName());
    }
    return name.toString();
  }

  /** Whether {@code errorName} (from {@link #errorName}) names exception {@code kind}. */
  static boolean names(String errorName, String kind) {
    return Arrays.asList(errorName.split("\\+")).contains(kind);
  }

  /** Names the scenario on every request (logged by the servers; Linekit leaves it alone). */
  static final String SCENARIO_HEADER = "X-Chaos-Scenario";

  private final OkHttpClient client;
  private final String scenario;
  private final String getUrl;
  private final String postUrl;
  private final boolean lineKit;
  private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> threads = new ArrayList<>();
  private volatile long deadline;
  private long t0;

  Load(OkHttpClient client, String scenario, String getUrl, String postUrl, boolean lineKit) {
    this.client = client;
    this.scenario = scenario;
    this.getUrl = getUrl;
    this.postUrl = postUrl;
    this.lineKit = lineKit;
  }

  void start(long t0, long durationMs, int getThreads, long intervalMs, long postIntervalMs) {
    this.t0 = t0;
    this.deadline = t0 + durationMs;
    for (int i = 0; i < getThreads; i++) {
      threads.add(loop(false, intervalMs));
    }
    if (postUrl != null) {
      threads.add(loop(true, postIntervalMs));
    }
    threads.forEach(Thread::start);
  }

  /** Waits for every thread (their calls are bounded by the client's timeouts). */
  void join(long maxWaitMs) throws InterruptedException {
    long until = System.currentTimeMillis() + maxWaitMs;
    for (Thread t : threads) {
      t.join(Math.max(1, until - System.currentTimeMillis()));
    }
  }

  List<Call> calls() {
    synchronized (calls) {
      return new ArrayList<>(calls);
    }
  }

  private Thread loop(boolean post, long intervalMs) {
    Thread t = new Thread(() -> {
      long next = System.currentTimeMillis();
      while (System.currentTimeMillis() < deadline) {
        calls.add(post ? call(postRequest()) : call(getRequest()));
        next += intervalMs;
        long wait = next - System.currentTimeMillis();
        if (wait > 0) {
          sleep(wait);
        } else {
          next = System.currentTimeMillis();
        }
      }
    }, (post ? "post" : "get") + (lineKit ? "-linekit" : "-baseline"));
    t.setDaemon(true);
    return t;
  }

  private Request getRequest() {
    Request.Builder b = new Request.Builder().url(getUrl).header(SCENARIO_HEADER, scenario);
    if (lineKit) {
      // Must never reach a server: Linekit strips every X-Line-* header.
      b.header("X-Line-Chaos", "1").header("X-Line-Biz", "api");
    }
    return b.build();
  }

  private Request postRequest() {
    String id = "p" + POST_IDS.incrementAndGet();
    return new Request.Builder().url(postUrl)
        .header(SCENARIO_HEADER, scenario)
        .header("X-Request-Id", id)
        .header("X-Line-Chaos", "1")
        .post(RequestBody.create("{\"order\":\"" + id + "\"}", MediaType.get("application/json")))
        .build();
  }

  private Call call(Request request) {
    List<String> attempts = ATTEMPTS.get();
    attempts.clear();
    List<String> attemptErrors = ATTEMPT_ERRORS.get();
    attemptErrors.clear();
    List<String> trail = TRAIL.get();
    trail.clear();
    long start = System.currentTimeMillis();
    boolean ok = false;
    String error = null;
    try (Response r = client.newCall(request).execute()) {
      ResponseBody body = r.body();
      long declared = body == null ? -1 : body.contentLength();
      byte[] bytes = body == null ? new byte[0] : body.bytes();
      if (r.code() != 200) {
        error = "http_" + r.code();
      } else if (declared >= 0 && bytes.length != declared) {
        error = "short_body";
      } else {
        ok = true;
      }
    } catch (IOException e) {
      error = e.getClass().getSimpleName() + ": " + e.getMessage();
    }
    long end = System.currentTimeMillis();
    String first = attempts.isEmpty() ? null : attempts.get(0);
    String firstError = attemptErrors.isEmpty() ? null : attemptErrors.get(0);
    return new Call(request.method().equals("POST"), start - t0, end - t0, ok, first,
        attempts.size(), error, firstError, List.copyOf(trail));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
