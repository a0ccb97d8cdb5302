package dev.linekit.bench;

import dev.linekit.LineKit;
import dev.linekit.RouteDecision;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Where a fresh JVM's {@code build()} → first route goes, step by step, each step forced
 * on its own in this order (run it in a fresh JVM; every figure is a first time):
 * OkHttp's classes (a client, as the default probe transport builds one, and a parsed
 * URL, whose host canonicalisation loads OkHttp's IDNA table: the app's first request
 * pays both before Linekit sees it), the JNI library load
 * ({@code NativeStart}'s class init: {@code System.load}, no JNA), {@code build()} itself
 * (the JNI start: sealed config open, parse, validation, engine and runtime thread,
 * transport), and the first route. Those are the caller's steps. The UniFFI control plane
 * (JNA's first use: {@code Native.register} and the contract checks) binds meanwhile on
 * Linekit's bind thread; the first control-plane call after the route ({@code stateJson})
 * waits for it, which {@code control_plane_wait_ms} records, and
 * {@code control_plane_ready_ms} is the time from {@code build()}'s start until it
 * answered. Usage: StartupBreakdown [out.json]
 */
public final class StartupBreakdown {
  static double ms(long nanos) {
    return Math.round(nanos / 1e4) / 100.0;
  }

  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : null;
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 7);
    byte[] sealed = StartupTime.seal(StartupTime.config100("http://127.0.0.1:9").getBytes(StandardCharsets.UTF_8), key)
        .getBytes(StandardCharsets.UTF_8);
    ClassLoader cl = StartupBreakdown.class.getClassLoader();

    long t0 = System.nanoTime();
    new okhttp3.OkHttpClient.Builder().build();
    okhttp3.HttpUrl.get("http://api7.linekit.test/v1/ticker?s=BTC");
    long t1 = System.nanoTime();
    Class.forName("dev.linekit.internal.NativeStart", true, cl);
    long t2 = System.nanoTime();
    LineKit kit = new LineKit.Builder().sealedConfig(sealed, key).build();
    long t3 = System.nanoTime();
    RouteDecision d = kit.route("http://api7.linekit.test/v1/ticker?s=BTC");
    long t4 = System.nanoTime();
    if (!"b7l0".equals(d.getLine())) throw new IllegalStateException("unexpected route " + d);
    kit.stateJson();
    long t5 = System.nanoTime();
    // The same build + route again: what the steps above cost only once per process.
    LineKit again = new LineKit.Builder().sealedConfig(sealed, key).build();
    again.route("http://api7.linekit.test/v1/ticker?s=BTC");
    long t6 = System.nanoTime();
    kit.close();
    again.close();

    Map<String, Object> m = Json.obj();
    m.put("benchmark", "jvm_startup_breakdown");
    m.put("okhttp_client_class_init_ms", ms(t1 - t0));
    m.put("jni_library_load_ms", ms(t2 - t1));
    m.put("build_ms", ms(t3 - t2));
    m.put("first_route_ms", ms(t4 - t3));
    m.put("build_to_first_route_ms", ms(t4 - t2));
    m.put("all_steps_ms", ms(t4 - t0));
    m.put("linekit_own_ms", ms(t4 - t1));
    m.put("control_plane_wait_ms", ms(t5 - t4));
    m.put("control_plane_ready_ms", ms(t5 - t2));
    m.put("second_build_and_route_ms", ms(t6 - t5));
    System.err.println(Json.write(m));
    Json.save(out, m);
    System.exit(0);
  }
}
