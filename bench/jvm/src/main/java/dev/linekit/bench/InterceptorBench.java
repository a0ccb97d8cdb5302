package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.LineKitEventListener;
import dev.linekit.LineKitInterceptor;
import dev.linekit.LineKitOkHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A keep-alive loopback GET with a plain OkHttpClient vs the same request through
 * Linekit's interceptor + event listener (logical host rewritten onto the loopback line).
 * Two diagnostics split Linekit's share: the event listener alone (on the direct URL) and
 * the interceptor alone (without the listener). {@link #targets} names the four; JMH runs
 * one per {@link #client}, the hand harnesses ({@link InterleavedLoopback},
 * {@link ProfileLoopback}) pick them by the same names.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InterceptorBench {
  /** A client and the request it sends. */
  record Target(OkHttpClient client, Request request) {
    String get() throws IOException {
      try (Response response = client.newCall(request).execute()) {
        return response.body().string();
      }
    }
  }

  @Param({"plain", "lineKitJni", "listenerOnly", "interceptorOnly"})
  public String client;

  HttpServer server;
  LineKit jni;
  /** Every client by name, in the order of {@link #client}'s values. */
  final Map<String, Target> targets = new LinkedHashMap<>();
  private Target measured;

  @Setup(Level.Trial)
  public void setUp() throws IOException, LineKitException {
    server = LoopbackServer.start("ok".getBytes(StandardCharsets.UTF_8), 64, null);
    String origin = LoopbackServer.origin(server);
    String config = "{\"version\":1,\"allow_cleartext\":true,\"biz_lines\":{\"spot\":{"
        + "\"match\":[\"api.linekit.test\"],\"http\":[{\"id\":\"lo\",\"url\":\"" + origin + "\"}]}}}";
    jni = new LineKit.Builder().configJson(config).build();
    Request direct = new Request.Builder().url(origin + "/api/v1/ticker?symbol=BTC").build();
    Request logical = new Request.Builder().url("http://api.linekit.test/api/v1/ticker?symbol=BTC").build();
    targets.put("plain", new Target(new OkHttpClient(), direct));
    targets.put("lineKitJni", new Target(LineKitOkHttp.install(new OkHttpClient.Builder(), jni).build(), logical));
    targets.put("listenerOnly", new Target(
        new OkHttpClient.Builder().eventListenerFactory(new LineKitEventListener.Factory()).build(), direct));
    targets.put("interceptorOnly", new Target(
        new OkHttpClient.Builder().addInterceptor(new LineKitInterceptor(jni)).build(), logical));
    measured = client == null ? null : targets.get(client);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    server.stop(0);
    jni.close();
  }

  @Benchmark
  public String loopbackGet() throws IOException {
    return measured.get();
  }
}
