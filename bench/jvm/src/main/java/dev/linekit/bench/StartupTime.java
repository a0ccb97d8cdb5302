package dev.linekit.bench;

import com.sun.net.httpserver.HttpServer;
import dev.linekit.LineKit;
import dev.linekit.LineKitOkHttp;
import dev.linekit.RouteDecision;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Time from {@code LineKit.Builder().build()} (sealed config of 100 lines: 20 business
 * lines × 5) to the first routed request, on the JVM: the first time in the process (loads
 * {@code liblinekit.so} through JNA and JNI, class init) and the median of later ones; plus
 * build → first loopback GET completed through an OkHttp client with Linekit.
 *
 * Usage: StartupTime [out.json]
 */
public final class StartupTime {
  /** The sealed format of rust-core/src/config/seal.rs: base64(0x01 | nonce | ct | tag), AAD = 0x01. */
  static String seal(byte[] plain, byte[] key) throws Exception {
    byte[] nonce = new byte[12];
    new SecureRandom().nextBytes(nonce);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
    c.updateAAD(new byte[] {1});
    byte[] ct = c.doFinal(plain);
    ByteBuffer b = ByteBuffer.allocate(1 + 12 + ct.length);
    b.put((byte) 1).put(nonce).put(ct);
    return Base64.getEncoder().encodeToString(b.array());
  }

  static String config100(String loopback) {
    StringBuilder sb = new StringBuilder("{\"version\":1,\"allow_cleartext\":true,\"biz_lines\":{");
    for (int b = 0; b < 20; b++) {
      if (b > 0) sb.append(',');
      sb.append("\"biz").append(b).append("\":{\"match\":[\"api").append(b).append(".linekit.test\"],\"http\":[");
      for (int l = 0; l < 5; l++) {
        if (l > 0) sb.append(',');
        String url = (b == 0 && l == 0) ? loopback : "https://b" + b + "-l" + l + ".cdn" + l + ".example.com";
        sb.append("{\"id\":\"b").append(b).append('l').append(l).append("\",\"url\":\"").append(url)
            .append("\",\"priority\":").append(l).append('}');
      }
      sb.append("]}");
    }
    return sb.append("}}").toString();
  }

  public static void main(String[] args) throws Exception {
    String out = args.length > 0 ? args[0] : null;
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 16);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, 2);
      try (OutputStream o = exchange.getResponseBody()) {
        o.write("ok".getBytes(StandardCharsets.UTF_8));
      }
    });
    server.start();
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 7);
    String origin = "http://127.0.0.1:" + server.getAddress().getPort();
    byte[] sealed = seal(config100(origin).getBytes(StandardCharsets.UTF_8), key).getBytes(StandardCharsets.UTF_8);

    long[] route = new long[101];
    for (int i = 0; i < route.length; i++) {
      long s = System.nanoTime();
      LineKit kit = new LineKit.Builder().sealedConfig(sealed, key).build();
      RouteDecision d = kit.route("http://api7.linekit.test/v1/ticker?s=BTC");
      route[i] = System.nanoTime() - s;
      if (!"b7l0".equals(d.getLine())) throw new IllegalStateException("unexpected route " + d);
      kit.close();
    }
    long[] get = new long[21];
    for (int i = 0; i < get.length; i++) {
      long s = System.nanoTime();
      LineKit kit = new LineKit.Builder().sealedConfig(sealed, key).build();
      OkHttpClient client = LineKitOkHttp.install(new OkHttpClient.Builder(), kit).build();
      try (Response r = client.newCall(new Request.Builder().url("http://api0.linekit.test/v1/ping").build()).execute()) {
        if (r.code() != 200) throw new IllegalStateException("status " + r.code());
        r.body().string();
      }
      get[i] = System.nanoTime() - s;
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
      kit.close();
    }
    long[] routeRest = Json.sorted(Arrays.copyOfRange(route, 1, route.length), route.length - 1);
    long[] getRest = Json.sorted(Arrays.copyOfRange(get, 1, get.length), get.length - 1);
    Map<String, Object> m = Json.obj();
    m.put("benchmark", "jvm_startup");
    m.put("lines", 100);
    m.put("sealed_bytes", sealed.length);
    m.put("build_to_route_first_in_process_ms", route[0] / 1e6);
    m.put("build_to_route_median_ms", Json.q(routeRest, 0.5) / 1e6);
    m.put("build_to_route_p99_ms", Json.q(routeRest, 0.99) / 1e6);
    m.put("build_to_first_get_first_in_process_ms", get[0] / 1e6);
    m.put("build_to_first_get_median_ms", Json.q(getRest, 0.5) / 1e6);
    server.stop(0);
    Json.save(out, m);
    System.exit(0);
  }
}
