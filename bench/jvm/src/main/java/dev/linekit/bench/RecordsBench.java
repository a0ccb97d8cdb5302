package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.RouteDecision;
import dev.linekit.internal.LegacyRouter;
import dev.linekit.internal.NativeHandle;
import dev.linekit.internal.Router;
import java.util.Collections;
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

/**
 * TEMPORARY, for one run: the records path (a {@code long} answer with per-handle codes)
 * against the previous packed-string answer, on the same engine, side by side.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RecordsBench {
  LineKit kit;
  Router codes;
  LegacyRouter packed;

  @Setup(Level.Trial)
  public void setUp() throws ReflectiveOperationException {
    kit = new LineKit.Builder().configJson(RouteBench.CONFIG).build();
    codes = kit.getRouter$linekit_android();
    java.lang.reflect.Field f = LineKit.class.getDeclaredField("handle");
    f.setAccessible(true);
    packed = new LegacyRouter((NativeHandle) f.get(kit));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    kit.close();
  }

  @Benchmark
  public RouteDecision routeOnlyCodes() {
    return codes.route(HotPathBench.URL, "GET", null, false, Collections.emptyList(), false, false);
  }

  @Benchmark
  public RouteDecision routeOnlyPackedString() {
    return packed.route(HotPathBench.URL, "GET", null, false, Collections.emptyList(), false);
  }

  @Benchmark
  public RouteDecision routeReportCodes() {
    RouteDecision d = codes.route(HotPathBench.URL, "GET", null, false, Collections.emptyList(), false, false);
    codes.report(d, false, null, 200, HotPathBench.TIMINGS, null);
    return d;
  }

  @Benchmark
  public RouteDecision routeReportPackedString() {
    RouteDecision d = packed.route(HotPathBench.URL, "GET", null, false, Collections.emptyList(), false);
    packed.report(d.getBiz(), d.getLine(), false, null, 200, HotPathBench.TIMINGS, null);
    return d;
  }
}
