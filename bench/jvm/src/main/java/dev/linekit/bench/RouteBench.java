package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.RouteDecision;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Per-call cost of {@code LineKit.route} through the JNI path. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RouteBench {
  static final String CONFIG =
      "{\"version\":1,\"biz_lines\":{\"spot\":{\"match\":[\"api.linekit.test\"],\"http\":["
          + "{\"id\":\"ali\",\"url\":\"https://spot-ali.example.com\"},"
          + "{\"id\":\"tx\",\"url\":\"https://spot-tx.example.com:8443\"},"
          + "{\"id\":\"aws\",\"url\":\"https://spot-aws.example.com\"}]}}}";
  static final String URL = "https://api.linekit.test/api/v1/ticker?symbol=BTC-USDT&depth=20";

  LineKit jni;

  @Setup(Level.Trial)
  public void setUp() throws LineKitException {
    jni = new LineKit.Builder().configJson(CONFIG).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    jni.close();
  }

  @Benchmark
  public RouteDecision routeJni() throws LineKitException {
    return jni.route(URL);
  }

}
