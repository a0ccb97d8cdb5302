package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.LineKitOkHttp;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
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
 * What installing Linekit on an app's {@link OkHttpClient.Builder} costs
 * ({@code install}: {@link LineKitOkHttp#install}, which reads the builder's {@code Dns} and
 * event listener factory through the builder's getters), side by side with the way it read
 * them before ({@code installWithThrowawayBuild}: build a client from the builder, read its
 * two values, then the same steps). The {@code ...AndBuild} pair adds the app's own
 * {@code build()}, i.e. the whole cost of making a Linekit client either way.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InstallBench {
  LineKit kit;

  @Setup(Level.Trial)
  public void setUp() throws LineKitException {
    String config = "{\"version\":1,\"allow_cleartext\":true,\"biz_lines\":{\"spot\":{"
        + "\"match\":[\"api.linekit.test\"],\"http\":[{\"id\":\"lo\",\"url\":\"http://127.0.0.1:9\"}]}}}";
    kit = new LineKit.Builder().configJson(config).transport(null).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    kit.close();
  }

  /** A builder as an app sets one up (timeouts; TLS and pool left to OkHttp's defaults). */
  static OkHttpClient.Builder appBuilder() {
    return new OkHttpClient.Builder()
        .connectTimeout(10, TimeUnit.SECONDS)
        .readTimeout(10, TimeUnit.SECONDS);
  }

  /** Installing as shipped: no client is built. */
  @Benchmark
  public OkHttpClient.Builder install() {
    return LineKitOkHttp.install(appBuilder(), kit);
  }

  /** Installing as before: a throwaway client is built to read the two values. */
  @Benchmark
  public OkHttpClient.Builder installWithThrowawayBuild() {
    OkHttpClient.Builder builder = appBuilder();
    OkHttpClient throwaway = builder.build();
    if (throwaway.dns() == null || throwaway.eventListenerFactory() == null) {
      throw new AssertionError("a client always has a Dns and a listener factory");
    }
    return LineKitOkHttp.install(builder, kit);
  }

  /** Install, then the app's own build. */
  @Benchmark
  public OkHttpClient installAndBuild() {
    return install().build();
  }

  /** Install as before, then the app's own build. */
  @Benchmark
  public OkHttpClient installWithThrowawayBuildAndBuild() {
    return installWithThrowawayBuild().build();
  }
}
