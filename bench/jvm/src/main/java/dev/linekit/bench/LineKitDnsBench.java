package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import dev.linekit.LineKit;
import dev.linekit.PrivateDnsMode;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
 * {@code Dns.lookup} hits through Linekit's {@code LineKitDns}, through the JNI path.
 * Records come from a loopback HTTPDNS provider (Alibaba {@code /d} format) through the
 * engine's own transport, so the hit is the real production path. Compare with
 * {@link HotPathBench#lookupConcurrentHashMap} and {@link HotPathBench#lookupDnsSystemLocalhost}
 * of the same run. {@code LineKitDns} is found reflectively (build.sh runs this class only
 * when the library ships it); the measured call is a plain {@code Dns.lookup}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LineKitDnsBench {
  static final String HOST = "api.linekit.test";

  HttpServer provider;
  LineKit jni;
  Dns jniDns;

  /** Builds {@code LineKitDns} for {@code kit}: a (LineKit) constructor or factory. */
  static Dns dnsFor(LineKit kit) throws ReflectiveOperationException {
    Class<?> c = Class.forName("dev.linekit.LineKitDns");
    for (Constructor<?> k : c.getConstructors()) {
      if (k.getParameterCount() == 1 && k.getParameterTypes()[0] == LineKit.class) {
        return (Dns) k.newInstance(kit);
      }
    }
    for (Method m : c.getMethods()) {
      if (Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 1
          && m.getParameterTypes()[0] == LineKit.class && Dns.class.isAssignableFrom(m.getReturnType())) {
        return (Dns) m.invoke(null, kit);
      }
    }
    for (Method m : LineKit.class.getMethods()) {
      if (m.getParameterCount() == 0 && Dns.class.isAssignableFrom(m.getReturnType())) {
        return (Dns) m.invoke(kit);
      }
    }
    throw new NoSuchMethodException("no LineKitDns(LineKit) constructor or factory");
  }

  static String config(int port) {
    return "{\"version\":1,\"allow_cleartext\":true,"
        + "\"thresholds\":{\"startup_detect_delay_ms\":100000000,\"revive_interval_ms\":100000000},"
        + "\"trace\":{\"sample_rate\":0.0},"
        + "\"biz_lines\":{\"spot\":{\"match\":[\"" + HOST + "\"],\"http\":[{\"id\":\"a\",\"url\":\"http://127.0.0.1:9\"}]}},"
        + "\"httpdns\":{\"providers\":[{\"id\":\"lo\",\"format\":\"aliyun\",\"url\":\"http://127.0.0.1:" + port + "/1/d\"}],"
        + "\"hosts\":[\"*.linekit.test\"],\"min_ttl_s\":3600,\"max_ttl_s\":3600}}";
  }

  /** Looks up until the answer comes from HTTPDNS (has 47.118.x.x; v6 comes first), at most 10 s. */
  static void warm(Dns dns, LineKit kit) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        List<InetAddress> a = dns.lookup(HOST);
        if (a.stream().anyMatch(x -> x.getHostAddress().startsWith("47.118."))) return;
      } catch (IOException ignored) {
        // system DNS for a .test name: expected until the record arrives
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("no HTTPDNS record for " + HOST + " within 10 s: " + kit.stateJson());
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    byte[] body = ("{\"host\":\"" + HOST + "\",\"ips\":[\"47.118.227.108\",\"47.118.227.111\"],"
        + "\"ipsv6\":[\"240e:960:c00:e:3::3ef\"],\"ttl\":3600}").getBytes(StandardCharsets.UTF_8);
    provider = LoopbackServer.start(body, 16, null);
    String cfg = config(provider.getAddress().getPort());
    jni = new LineKit.Builder().configJson(cfg).build();
    jni.onNetworkChanged(100L, true, false, PrivateDnsMode.OFF, false, "wifi");
    jniDns = dnsFor(jni);
    warm(jniDns, jni);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    jni.close();
    provider.stop(0);
  }

  @Benchmark
  public List<InetAddress> lookupJni() throws IOException {
    return jniDns.lookup(HOST);
  }

}
