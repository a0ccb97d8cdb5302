package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import dev.linekit.LineKit;
import dev.linekit.LineKitEventListener;
import dev.linekit.LineKitInterceptor;
import dev.linekit.OkHttpClientsKt;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A keep-alive loopback GET with a plain OkHttpClient vs the same request through
 * Linekit's interceptor + event listener (logical host rewritten onto the loopback line).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InterceptorBench {
  HttpServer server;
  OkHttpClient plain;
  OkHttpClient viaJni;
  OkHttpClient listenerOnly;
  OkHttpClient interceptorOnly;
  LineKit jni;
  Request direct;
  Request logical;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    // Without TCP_NODELAY the server's separate header/body writes meet the client's
    // delayed ACK and every request costs ~40 ms of idle waiting.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 64);
    byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    String origin = "http://127.0.0.1:" + server.getAddress().getPort();
    String config = "{\"version\":1,\"allow_cleartext\":true,\"biz_lines\":{\"spot\":{"
        + "\"match\":[\"api.linekit.test\"],\"http\":[{\"id\":\"lo\",\"url\":\"" + origin + "\"}]}}}";
    jni = new LineKit.Builder().configJson(config).build();
    plain = new OkHttpClient();
    viaJni = OkHttpClientsKt.lineKit(new OkHttpClient.Builder(), jni).build();
    listenerOnly = new OkHttpClient.Builder().eventListenerFactory(new LineKitEventListener.Factory()).build();
    interceptorOnly = new OkHttpClient.Builder().addInterceptor(new LineKitInterceptor(jni)).build();
    direct = new Request.Builder().url(origin + "/api/v1/ticker?symbol=BTC").build();
    logical = new Request.Builder().url("http://api.linekit.test/api/v1/ticker?symbol=BTC").build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    server.stop(0);
    jni.close();
  }

  static String get(OkHttpClient client, Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return response.body().string();
    }
  }

  @Benchmark
  public String plainLoopback() throws IOException {
    return get(plain, direct);
  }

  @Benchmark
  public String lineKitJni() throws IOException {
    return get(viaJni, logical);
  }

  /** Diagnostic: only the event listener, on the direct URL. */
  @Benchmark
  public String listenerOnly() throws IOException {
    return get(listenerOnly, direct);
  }

  /** Diagnostic: only the interceptor (JNI), without the listener. */
  @Benchmark
  public String interceptorOnly() throws IOException {
    return get(interceptorOnly, logical);
  }

}
