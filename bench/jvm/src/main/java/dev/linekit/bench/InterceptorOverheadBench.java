package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.LineKitEventListener;
import dev.linekit.LineKitInterceptor;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
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
 * The CPU cost Linekit adds to one request, without the network: the interceptor (route,
 * URL rewrite, tag, report) plus the listener events of a pooled-connection exchange,
 * over a chain that answers at once. {@code baseline} is the same chain without Linekit,
 * {@code interceptStaticList} the same chain through the hand-written
 * {@link StaticListFailover} peer (same logical URL rewritten onto the same line).
 * Compare the difference with {@link InterceptorBench} ({@code client=plain}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InterceptorOverheadBench {
  LineKit jni;
  LineKitInterceptor viaJni;
  StaticListFailover staticList;
  OkHttpClient client;
  Request logical;

  @Setup(Level.Trial)
  public void setUp() throws LineKitException {
    String config = "{\"version\":1,\"allow_cleartext\":true,\"biz_lines\":{\"spot\":{"
        + "\"match\":[\"api.linekit.test\"],\"http\":[{\"id\":\"lo\",\"url\":\"http://127.0.0.1:9\"}]}}}";
    jni = new LineKit.Builder().configJson(config).build();
    viaJni = new LineKitInterceptor(jni);
    staticList = new StaticListFailover(
        java.util.List.of(okhttp3.HttpUrl.get("http://127.0.0.1:9/")), 3, 30_000);
    client = new OkHttpClient();
    logical = new Request.Builder().url("http://api.linekit.test/api/v1/ticker?symbol=BTC").build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    jni.close();
  }

  /** A chain that fires a pooled exchange's listener events and answers 200 at once. */
  static final class InstantChain implements Interceptor.Chain {
    final Call call;
    final Request request;
    final EventListener listener;

    InstantChain(Call call, Request request, EventListener listener) {
      this.call = call;
      this.request = request;
      this.listener = listener;
    }

    @Override public Request request() { return request; }

    @Override public Response proceed(Request r) {
      listener.requestHeadersStart(call);
      listener.requestHeadersEnd(call, r);
      listener.responseHeadersStart(call);
      Response response = new Response.Builder()
          .request(r).protocol(Protocol.HTTP_1_1).code(200).message("OK")
          .body(ResponseBody.create("ok", null))
          .build();
      listener.responseHeadersEnd(call, response);
      return response;
    }

    @Override public Connection connection() { return null; }
    @Override public Call call() { return call; }
    @Override public int connectTimeoutMillis() { return 10_000; }
    @Override public Interceptor.Chain withConnectTimeout(int t, TimeUnit u) { return this; }
    @Override public int readTimeoutMillis() { return 10_000; }
    @Override public Interceptor.Chain withReadTimeout(int t, TimeUnit u) { return this; }
    @Override public int writeTimeoutMillis() { return 10_000; }
    @Override public Interceptor.Chain withWriteTimeout(int t, TimeUnit u) { return this; }
  }

  Response run(Interceptor interceptor) throws IOException {
    Call call = client.newCall(logical);
    EventListener listener = new LineKitEventListener.Factory().create(call);
    listener.callStart(call);
    InstantChain chain = new InstantChain(call, logical, listener);
    return interceptor == null ? chain.proceed(logical) : interceptor.intercept(chain);
  }

  @Benchmark
  public Response baseline() throws IOException {
    return run(null);
  }

  @Benchmark
  public Response interceptJni() throws IOException {
    return run(viaJni);
  }

  @Benchmark
  public Response interceptStaticList() throws IOException {
    return run(staticList);
  }

}
