package dev.linekit.bench;

import dev.linekit.AttemptTimings;
import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.RouteDecision;
import dev.linekit.internal.Router;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.Dns;
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
 * The per-request calls on the JVM, side by side in one run: the baselines a Linekit
 * {@code Dns.lookup} hit competes with ({@code Dns.SYSTEM} for {@code localhost}, and the
 * {@code ConcurrentHashMap<String, List<InetAddress>>} cache vendor SDKs use), and one
 * attempt's {@code route} + {@code report} through the JNI path (the exact
 * calls {@link dev.linekit.LineKitInterceptor} makes). The Linekit lookup itself is in
 * {@link LineKitDnsBench} (needs {@code dev.linekit.LineKitDns}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HotPathBench {
  static final String URL = "https://api.linekit.test/api/v1/ticker?symbol=BTC-USDT&depth=20";
  static final AttemptTimings TIMINGS = new AttemptTimings(null, null, null, 900_000L, 1_200_000L);

  ConcurrentHashMap<String, List<InetAddress>> map;
  LineKit jni;
  Router jniRouter;

  @Setup(Level.Trial)
  public void setUp() throws UnknownHostException, LineKitException {
    map = new ConcurrentHashMap<>();
    for (int i = 0; i < 64; i++) {
      map.put("host" + i + ".linekit.test", List.of(
          InetAddress.getByAddress("host" + i + ".linekit.test", new byte[] {47, 118, (byte) i, 108}),
          InetAddress.getByAddress("host" + i + ".linekit.test", new byte[] {47, 118, (byte) i, 111})));
    }
    map.put("api.linekit.test", List.of(
        InetAddress.getByAddress("api.linekit.test", new byte[] {47, 118, (byte) 227, 108}),
        InetAddress.getByAddress("api.linekit.test", new byte[] {47, 118, (byte) 227, 111})));
    jni = new LineKit.Builder().configJson(RouteBench.CONFIG).build();
    jniRouter = jni.getRouter$linekit_jvm();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    jni.close();
  }

  /** What a vendor SDK's cache costs on a hit (the copy OkHttp's contract asks for). */
  @Benchmark
  public List<InetAddress> lookupConcurrentHashMap() {
    List<InetAddress> hit = map.get("api.linekit.test");
    return hit == null ? Collections.emptyList() : hit;
  }

  /** The platform resolver for {@code localhost} (getaddrinfo + the JDK's address cache). */
  @Benchmark
  public List<InetAddress> lookupDnsSystemLocalhost() throws UnknownHostException {
    return Dns.SYSTEM.lookup("localhost");
  }

  static RouteDecision routeAndReport(Router router) {
    RouteDecision d = router.route(URL, "GET", null, false, Collections.emptyList(), false, false, null, false);
    router.report(d, false, null, 200, TIMINGS, null);
    return d;
  }

  @Benchmark
  public RouteDecision routeReportJni() {
    return routeAndReport(jniRouter);
  }

}
