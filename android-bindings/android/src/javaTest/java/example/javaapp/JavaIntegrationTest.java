package example.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.linekit.Attempt;
import dev.linekit.AttemptOutcome;
import dev.linekit.BreakerState;
import dev.linekit.ConfigSource;
import dev.linekit.DiagnosisReport;
import dev.linekit.LineKit;
import dev.linekit.LineKitConfigException;
import dev.linekit.LineKitException;
import dev.linekit.LineKitOkHttp;
import dev.linekit.LineKitState;
import dev.linekit.LineState;
import dev.linekit.PrivateDnsMode;
import dev.linekit.RouteTag;
import dev.linekit.TraceFileSink;
import dev.linekit.ffi.HttpTransport;
import dev.linekit.ffi.TransportCompletion;
import dev.linekit.ffi.TransportOutcome;
import dev.linekit.ffi.TransportRequest;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Java app's Linekit integration, written the way a Java app writes it: the builder with
 * its callbacks as Java lambdas, {@code LineKitOkHttp.install}, {@code catch
 * (LineKitException e)} around the engine's calls, the overloads for default arguments and
 * the callback form of {@code diagnose}. It runs against two local lines
 * (MockWebServer): one answering 503, one healthy.
 *
 * <p>Compiling this file is half of the test: a Kotlin function type as a callback (a
 * lambda would have to return {@code Unit.INSTANCE}), a {@code *Kt} facade, a mangled name
 * (an unsigned parameter), a default argument without overloads or a missing
 * {@code @Throws} (javac refuses to catch a checked exception nothing declares) fails the
 * build.
 */
class JavaIntegrationTest {
  private final MockWebServer failing = new MockWebServer();
  private final MockWebServer healthy = new MockWebServer();

  /** Answers the detect probe 200 and everything else {@code status}, with body {@code name}. */
  private static Dispatcher line(String name, int status) {
    return new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        if ("HEAD".equals(request.getMethod())) {
          return new MockResponse.Builder().code(200).build();
        }
        return new MockResponse.Builder().code(status).body(name).build();
      }
    };
  }

  @BeforeEach
  void startLines() throws IOException {
    failing.setDispatcher(line("failing", 503));
    healthy.setDispatcher(line("healthy", 200));
    failing.start(InetAddress.getByName("127.0.0.1"), 0);
    healthy.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stopLines() {
    failing.close();
    healthy.close();
  }

  private String config(int version) {
    return "{\"version\":" + version + ",\"allow_cleartext\":true,"
        + "\"trace\":{\"sample_rate\":1.0},\"thresholds\":{\"detect_jitter_ms\":0},"
        + "\"biz_lines\":{\"spot\":{\"match\":[\"api.linekit.test\"],\"http\":["
        + "{\"id\":\"failing\",\"url\":\"http://127.0.0.1:" + failing.getPort() + "\"},"
        + "{\"id\":\"healthy\",\"url\":\"http://127.0.0.1:" + healthy.getPort() + "\"}]}}}";
  }

  @Test
  void aJavaAppFailsOverWithLambdasAndTheInstalledClient() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    List<Attempt> attempts = new CopyOnWriteArrayList<>();
    List<RouteTag> mismatches = new CopyOnWriteArrayList<>();
    try (LineKit kit = new LineKit.Builder()
        .configJson(config(1))
        .traceSink(events::add)
        .onAttempt(attempt -> attempts.add(attempt))
        .onVersionMismatch(mismatches::add)
        .build()) {
      OkHttpClient client = LineKitOkHttp.install(new OkHttpClient.Builder(), kit).build();
      Request request = new Request.Builder().url("http://api.linekit.test/v1/ticker").build();
      try (Response response = client.newCall(request).execute()) {
        assertEquals(200, response.code());
        assertEquals("healthy", response.body().string());
        RouteTag tag = response.request().tag(RouteTag.class);
        assertNotNull(tag);
        assertEquals("healthy", tag.getLine());
        assertEquals(1, tag.getAttempt());
      }
      LineKitState state = kit.state();
      assertEquals(ConfigSource.REMOTE, state.getSource());
      List<LineState> lines = state.lines("spot");
      assertEquals(lines, state.getPools().get("spot/http").getLines());
      LineState failed = lines.stream().filter(l -> l.getId().equals("failing")).findFirst().orElseThrow();
      assertEquals(1L, failed.getFailures());
      assertEquals(AttemptOutcome.HTTP_5XX, failed.getLastError());
      assertEquals(BreakerState.CLOSED, failed.getBreaker());
      assertTrue(kit.stateJson().contains("\"last_error\":\"http_5xx\""), kit.stateJson());
      assertEquals(2, attempts.size(), attempts.toString());
      assertEquals(AttemptOutcome.HTTP_5XX, attempts.get(0).getOutcome());
      assertEquals(Integer.valueOf(503), attempts.get(0).getStatus());
      assertEquals(AttemptOutcome.OK, attempts.get(1).getOutcome());
      assertTrue(events.stream().anyMatch(e -> e.contains("\"kind\":\"route\"")), events.toString());
      assertTrue(mismatches.isEmpty(), mismatches.toString());
    }
  }

  @Test
  void controlPlaneCallsUseOverloadsAndDeclareTheirErrors() throws Exception {
    LineKit kit = new LineKit.Builder().configJson(config(1)).transport(null).build();
    try {
      kit.onNetworkChanged(100L, true);
      kit.onNetworkChanged(100L, true, false, PrivateDnsMode.OFF, false, "wifi");
      kit.setDowngrade(false);
      assertTrue(kit.updateConfig(config(2)).getApplied());
      assertEquals("healthy", kit.route("http://api.linekit.test/", "GET", null, false, null, false,
          List.of("failing")).getLine());
      assertEquals("failing", kit.route("http://api.linekit.test/").getLine());
      try {
        kit.diagnose("no-such-business-line");
        fail("an unknown business line is an error");
      } catch (LineKitException.InvalidArgument expected) {
        assertTrue(expected.getMessage().contains("unknown business line"), expected.getMessage());
      }
    } finally {
      kit.close();
    }
    try {
      kit.updateConfig(config(3));
      fail("a closed engine refuses control-plane calls");
    } catch (LineKitException e) {
      assertInstanceOf(LineKitException.Closed.class, e);
    }
  }

  @Test
  void diagnoseTakesAJavaLambda() throws Exception {
    try (LineKit kit = new LineKit.Builder().configJson(config(1)).build()) {
      CompletableFuture<DiagnosisReport> done = new CompletableFuture<>();
      kit.diagnose("spot", 5_000L, done::complete);
      DiagnosisReport report = done.get(15, TimeUnit.SECONDS);
      assertTrue(report.getJson().contains("\"lines\""), report.getJson());
      assertTrue(report.getText().contains("failing"), report.getText());
    }
  }

  /**
   * A transport written in Java: answers every request 204 at once and counts the requests
   * it started. Its numbers are plain {@code long}s and {@code int}s.
   */
  static final class JavaTransport implements HttpTransport {
    final List<Long> started = new CopyOnWriteArrayList<>();
    final List<Long> cancelled = new CopyOnWriteArrayList<>();
    final CountDownLatch probes = new CountDownLatch(2);

    @Override
    public void start(TransportRequest request, TransportCompletion completion) {
      started.add(request.getId());
      assertTrue(request.getTimeoutMs() > 0L);
      try (TransportCompletion done = completion) {
        done.complete(new TransportOutcome.Response(204, new byte[0], List.of()));
      }
      probes.countDown();
    }

    @Override
    public void cancel(long id) {
      cancelled.add(id);
    }
  }

  @Test
  void aJavaTransportCarriesTheEnginesProbes() throws Exception {
    JavaTransport transport = new JavaTransport();
    try (LineKit kit = new LineKit.Builder().configJson(config(1)).transport(transport).build()) {
      // False while the engine's own first probe round still runs: either round probes both lines.
      kit.detect("spot");
      assertTrue(transport.probes.await(10, TimeUnit.SECONDS), transport.started.toString());
      assertTrue(transport.started.stream().distinct().count() >= 2, transport.started.toString());
    }
  }

  @Test
  void anInvalidAppConfigIsAnUncheckedConfigException() {
    LineKitConfigException e = assertThrows(LineKitConfigException.class,
        () -> new LineKit.Builder()
            .configJson("{\"version\":1,\"biz_lines\":{\"spot\":{\"http\":[{\"id\":\"a\",\"url\":\"not a url\"}]}}}")
            .build());
    assertTrue(!e.getErrors().isEmpty(), e.getMessage());
  }

  @Test
  void theDnsAndTheFileSinkAreUsableFromJava() throws Exception {
    File dir = Files.createTempDirectory("linekit-java").toFile();
    File trace = new File(dir, "trace.jsonl");
    try (TraceFileSink sink = new TraceFileSink(trace);
        LineKit kit = new LineKit.Builder().configJson(config(1)).traceSink(sink).transport(null).build()) {
      try {
        kit.dns().lookup(" ");
        fail("a blank host name is refused");
      } catch (UnknownHostException expected) {
        assertTrue(expected.getMessage().contains("blank"), expected.getMessage());
      }
      assertTrue(kit.route("http://api.linekit.test/").getUrl().startsWith("http://127.0.0.1:"));
    } finally {
      for (File f : dir.listFiles()) {
        assertTrue(f.delete());
      }
      assertTrue(dir.delete());
    }
  }
}
