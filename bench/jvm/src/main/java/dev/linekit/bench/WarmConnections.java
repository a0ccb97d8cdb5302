package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.LineKitOkHttp;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Dns;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;

/**
 * The first user requests after a switch, over HTTPS, with and without warm connections.
 *
 * <p>Two local HTTPS lines over HTTP/2 (a test CA, ECDSA P-256 leaves for {@code
 * a.linekit.test} and {@code b.linekit.test}, both on loopback). Each trial builds a fresh
 * LineKit and a fresh business client (a fresh connection pool), sends one GET that line
 * a answers 503 (the serving line faults: its breaker opens and traffic moves to b), waits
 * {@code gap} ms, then sends a burst of 5 concurrent GETs (the first 5 user requests after
 * the switch, all served by b), then, after the same gap, on the now-open connection, a
 * second burst of 5 (steady state). Trials with {@code warm_connections} on and off alternate, so both see
 * the same machine load. Reported per gap: the p50 and p90 of the first 5 and of the
 * steady 5, over every request of every trial, and their ratio.
 *
 * <p>Usage: WarmConnections [out.json] [trials] [gap ms, ...]
 */
public final class WarmConnections {
  static final int BURST = 5;

  private WarmConnections() {}

  static final HeldCertificate CA =
      new HeldCertificate.Builder().certificateAuthority(0).commonName("bench CA").build();

  static MockWebServer line(String name, int status) throws Exception {
    String host = name + ".linekit.test";
    HeldCertificate leaf =
        new HeldCertificate.Builder().signedBy(CA).commonName(host).addSubjectAlternativeName(host).build();
    HandshakeCertificates server =
        new HandshakeCertificates.Builder().heldCertificate(leaf, CA.certificate()).build();
    MockWebServer s = new MockWebServer();
    s.setServerSocketFactory(new NoDelayServerSockets());
    s.useHttps(server.sslSocketFactory());
    s.setProtocols(List.of(Protocol.HTTP_2, Protocol.HTTP_1_1));
    s.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            MockResponse.Builder b = new MockResponse.Builder().code(status);
            return (request.getMethod().equals("HEAD") ? b : b.body(name)).build();
          }
        });
    s.start(InetAddress.getByName("127.0.0.1"), 0);
    return s;
  }

  /**
   * Server sockets whose accepted connections have TCP_NODELAY on. Without it, the
   * answers wait on loopback for the client's delayed ACK (about 40 ms each) and the
   * steady state would measure that instead of the line.
   */
  static final class NoDelayServerSockets extends javax.net.ServerSocketFactory {
    static final class NoDelay extends java.net.ServerSocket {
      NoDelay() throws java.io.IOException {}

      @Override
      public java.net.Socket accept() throws java.io.IOException {
        java.net.Socket socket = new java.net.Socket();
        implAccept(socket);
        socket.setTcpNoDelay(true);
        return socket;
      }
    }

    @Override
    public java.net.ServerSocket createServerSocket() throws java.io.IOException {
      return new NoDelay();
    }

    @Override
    public java.net.ServerSocket createServerSocket(int port) throws java.io.IOException {
      java.net.ServerSocket s = new NoDelay();
      s.bind(new java.net.InetSocketAddress(port));
      return s;
    }

    @Override
    public java.net.ServerSocket createServerSocket(int port, int backlog) throws java.io.IOException {
      java.net.ServerSocket s = new NoDelay();
      s.bind(new java.net.InetSocketAddress(port), backlog);
      return s;
    }

    @Override
    public java.net.ServerSocket createServerSocket(int port, int backlog, InetAddress at)
        throws java.io.IOException {
      java.net.ServerSocket s = new NoDelay();
      s.bind(new java.net.InetSocketAddress(at, port), backlog);
      return s;
    }
  }

  /** Client sockets with TCP_NODELAY on, for the same reason as {@link NoDelayServerSockets}. */
  static final class NoDelaySockets extends javax.net.SocketFactory {
    @Override
    public java.net.Socket createSocket() throws java.io.IOException {
      java.net.Socket s = new java.net.Socket();
      s.setTcpNoDelay(true);
      return s;
    }

    @Override
    public java.net.Socket createSocket(String host, int port) throws java.io.IOException {
      throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
    }

    @Override
    public java.net.Socket createSocket(String host, int port, InetAddress local, int localPort) {
      throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
    }

    @Override
    public java.net.Socket createSocket(InetAddress host, int port) {
      throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
    }

    @Override
    public java.net.Socket createSocket(InetAddress host, int port, InetAddress local, int localPort) {
      throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
    }
  }

  static final Dns LOOPBACK =
      host -> {
        if (host.endsWith(".linekit.test")) return List.of(InetAddress.getByName("127.0.0.1"));
        throw new UnknownHostException(host);
      };

  static String config(MockWebServer a, MockWebServer b, boolean warm) {
    return "{\"version\":1,"
        + "\"thresholds\":{\"max_retries\":0,\"failure_threshold\":1,"
        + "\"startup_detect_delay_ms\":600000,\"detect_cooldown_ms\":600000},"
        + "\"biz_lines\":{\"spot\":{\"match\":[\"api.linekit.test\"],\"warm_connections\":" + warm + ","
        + "\"http\":[{\"id\":\"a\",\"url\":\"https://a.linekit.test:" + a.getPort() + "\"},"
        + "{\"id\":\"b\",\"url\":\"https://b.linekit.test:" + b.getPort() + "\"}]}}}";
  }

  /** One trial: the latencies (µs) of the first burst after the switch, then of the steady burst. */
  static long[][] trial(MockWebServer a, MockWebServer b, boolean warm, long gapMs, ExecutorService pool)
      throws Exception {
    HandshakeCertificates trust = new HandshakeCertificates.Builder().addTrustedCertificate(CA.certificate()).build();
    try (LineKit kit = new LineKit.Builder().configJson(config(a, b, warm)).build()) {
      OkHttpClient client =
          LineKitOkHttp.install(
                  new OkHttpClient.Builder()
                      .dns(LOOPBACK)
                      .socketFactory(new NoDelaySockets())
                      .sslSocketFactory(trust.sslSocketFactory(), trust.trustManager()),
                  kit)
              .build();
      try {
        int first = get(client);
        if (first != 503) throw new IllegalStateException("line a answered " + first);
        if (gapMs > 0) Thread.sleep(gapMs);
        long[] afterSwitch = burst(client, pool);
        // The steady burst comes after the same idle time, on the connection now open.
        if (gapMs > 0) Thread.sleep(gapMs);
        long[] steady = burst(client, pool);
        return new long[][] {afterSwitch, steady};
      } finally {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
      }
    }
  }

  static int get(OkHttpClient client) throws Exception {
    Request r = new Request.Builder().url("https://api.linekit.test/quote").build();
    try (Response resp = client.newCall(r).execute()) {
      resp.body().string();
      return resp.code();
    }
  }

  /** Sends BURST GETs at once; their latencies in µs. Every one must be served (200). */
  static long[] burst(OkHttpClient client, ExecutorService pool) throws Exception {
    List<Future<Long>> futures = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      Callable<Long> one =
          () -> {
            long t0 = System.nanoTime();
            int code = get(client);
            long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
            if (code != 200) throw new IllegalStateException("after the switch: " + code);
            return us;
          };
      futures.add(pool.submit(one));
    }
    long[] out = new long[BURST];
    for (int i = 0; i < BURST; i++) out[i] = futures.get(i).get(30, TimeUnit.SECONDS);
    return out;
  }

  static Map<String, Object> stats(List<long[]> bursts) {
    long[] all = bursts.stream().flatMapToLong(java.util.Arrays::stream).toArray();
    long[] sorted = Json.sorted(all, all.length);
    Map<String, Object> m = Json.obj();
    m.put("requests", all.length);
    m.put("p50_us", Json.q(sorted, 0.50));
    m.put("p90_us", Json.q(sorted, 0.90));
    return m;
  }

  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : "warm_connections.json";
    int trials = args.length > 1 ? Integer.parseInt(args[1]) : 40;
    List<Long> gaps = new ArrayList<>();
    for (int i = 2; i < args.length; i++) gaps.add(Long.parseLong(args[i]));
    if (gaps.isEmpty()) gaps = List.of(100L, 0L);
    MockWebServer a = line("a", 503);
    MockWebServer b = line("b", 200);
    ExecutorService pool = Executors.newFixedThreadPool(BURST);
    try {
      // JIT and TLS warm-up of this JVM: both settings, results dropped.
      for (int i = 0; i < 10; i++) {
        trial(a, b, i % 2 == 0, 0, pool);
      }
      Map<String, Object> result = Json.obj();
      result.put("burst", BURST);
      result.put("trials", trials);
      result.put("protocol", "h2 over TLS 1.3, ECDSA P-256, loopback");
      List<Object> byGap = new ArrayList<>();
      for (long gap : gaps) {
        List<long[]> onFirst = new ArrayList<>(), onSteady = new ArrayList<>();
        List<long[]> offFirst = new ArrayList<>(), offSteady = new ArrayList<>();
        for (int t = 0; t < trials; t++) {
          long[][] on = trial(a, b, true, gap, pool);
          long[][] off = trial(a, b, false, gap, pool);
          onFirst.add(on[0]);
          onSteady.add(on[1]);
          offFirst.add(off[0]);
          offSteady.add(off[1]);
        }
        Map<String, Object> g = Json.obj();
        g.put("gap_ms", gap);
        Map<String, Object> on = stats(onFirst), off = stats(offFirst);
        List<long[]> steadyAll = new ArrayList<>(onSteady);
        steadyAll.addAll(offSteady);
        Map<String, Object> steady = stats(steadyAll);
        g.put("steady", steady);
        g.put("first5_warm_on", on);
        g.put("first5_warm_off", off);
        double s50 = ((Number) steady.get("p50_us")).doubleValue();
        g.put("ratio_on_p50", ((Number) on.get("p50_us")).doubleValue() / s50);
        g.put("ratio_off_p50", ((Number) off.get("p50_us")).doubleValue() / s50);
        byGap.add(g);
        System.out.println(Json.write(g));
      }
      result.put("by_gap", byGap);
      Json.save(out, result);
    } finally {
      pool.shutdownNow();
      a.close();
      b.close();
    }
  }
}
