package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One CDN line on a fixed loopback port whose behaviour the outage schedule switches:
 * {@code OK} (200), {@code S503} (503 to everything), {@code REFUSED} (nothing listens:
 * connects are refused) and {@code BLACKHOLE} (a listening socket that never accepts, with
 * its accept backlog filled, so the kernel drops further SYNs and connects time out).
 * Counts requests by path ({@code /line/ping} probes vs user requests) and by the
 * {@code X-Strategy} header.
 */
final class FaultyLine implements AutoCloseable {
  enum Mode { OK, S503, REFUSED, BLACKHOLE }

  static final String PROBE_PATH = "/line/ping";

  final String id;
  final int port;
  private Mode mode = Mode.REFUSED;
  private HttpServer http;
  private ServerSocket hole;
  private final List<Socket> fillers = new ArrayList<>();
  final ConcurrentHashMap<String, AtomicLong> probes = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, AtomicLong> served = new ConcurrentHashMap<>();

  FaultyLine(String id) throws IOException {
    this.id = id;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    set(Mode.OK);
  }

  String origin() {
    return "http://127.0.0.1:" + port;
  }

  synchronized Mode mode() {
    return mode;
  }

  synchronized void set(Mode next) throws IOException {
    if (next == mode) return;
    boolean wantHttp = next == Mode.OK || next == Mode.S503;
    mode = next;
    if (!wantHttp && http != null) {
      http.stop(0);
      http = null;
    }
    if (next != Mode.BLACKHOLE && hole != null) {
      for (Socket s : fillers) s.close();
      fillers.clear();
      hole.close();
      hole = null;
    }
    if (wantHttp && http == null) startHttp();
    if (next == Mode.BLACKHOLE) startHole();
  }

  private void startHttp() throws IOException {
    IOException last = null;
    for (int i = 0; i < 50; i++) {
      try {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 64);
        break;
      } catch (IOException e) { // the port may linger briefly after the previous socket
        last = e;
        try {
          Thread.sleep(20);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
      }
    }
    if (http == null) throw last;
    http.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "line-" + id);
      t.setDaemon(true);
      return t;
    }));
    byte[] ok = ("{\"line\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
    http.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      String strategy = exchange.getRequestHeaders().getFirst("X-Strategy");
      String key = strategy == null ? "-" : strategy;
      boolean probe = exchange.getRequestURI().getPath().equals(PROBE_PATH);
      (probe ? probes : served).computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
      Mode m = mode();
      int status = m == Mode.OK ? 200 : 503;
      byte[] body = status == 200 ? ok : "unavailable".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("X-Served-By", id);
      if ("HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
        return;
      }
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream o = exchange.getResponseBody()) {
        o.write(body);
      }
    });
    http.start();
  }

  private void startHole() throws IOException {
    hole = new ServerSocket();
    hole.setReuseAddress(true);
    hole.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 1);
    // Fill the accept queue: once a connect times out, the kernel is dropping SYNs.
    for (int i = 0; i < 16; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 150);
        fillers.add(s);
      } catch (IOException timedOut) {
        s.close();
        return;
      }
    }
    throw new IOException("could not fill the accept backlog of the blackhole line");
  }

  long probeCount() {
    return probes.values().stream().mapToLong(AtomicLong::get).sum();
  }

  @Override
  public synchronized void close() throws IOException {
    set(Mode.REFUSED);
  }
}
