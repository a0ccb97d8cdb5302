package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;

/**
 * The JDK's HTTP server on 127.0.0.1 (an ephemeral port), answering every request with status
 * 200 and one fixed body: the line, or the HTTPDNS provider, the benchmarks measure against.
 * A HEAD (Linekit's probe) gets the headers only.
 */
final class LoopbackServer {
  private LoopbackServer() {}

  /**
   * Starts a server with [backlog] pending connections, dispatching on [executor] (null: the
   * server's own thread).
   */
  static HttpServer start(byte[] body, int backlog, Executor executor) throws IOException {
    // Without TCP_NODELAY the server's separate header/body writes meet the client's
    // delayed ACK and every request costs ~40 ms of idle waiting.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), backlog);
    server.setExecutor(executor);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      if ("HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return server;
  }

  /** The server's origin, {@code http://127.0.0.1:PORT}. */
  static String origin(HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }
}
