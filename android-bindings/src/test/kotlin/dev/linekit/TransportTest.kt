package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.net.InetAddress
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** A line whose every request hangs until [close]. */
class StalledLine : AutoCloseable {
    private val server = MockWebServer()
    private val released = CountDownLatch(1)

    /** Requests received. */
    val received = ConcurrentLinkedQueue<RecordedRequest>()

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                received.add(request)
                released.await(30, TimeUnit.SECONDS)
                return MockResponse.Builder().code(200).build()
            }
        }
        server.start(InetAddress.getByName("127.0.0.1"), 0)
    }

    /** `http://127.0.0.1:PORT`. */
    val origin: String get() = "http://127.0.0.1:${server.port}"

    override fun close() {
        released.countDown()
        server.close()
    }
}

/** Detect probes through the default [OkHttpTransport], and shutting it all down. */
class TransportTest {
    private val a = LineServer("a")
    private val b = LineServer("b")

    @AfterEach
    fun tearDown() {
        a.close()
        b.close()
    }

    private fun probes(line: LineServer) = line.received.count { it.method == "HEAD" && it.url.encodedPath == "/line/ping" }

    private fun linekitThreads(): List<String> = Thread.getAllStackTraces().keys
        .filter { it.isAlive && (it.name.startsWith("linekit-runtime") || it.name.startsWith("linekit-transport")) }
        .map { it.name }

    @BothPaths
    fun `detect probes every line with the transport's own client`(fastPath: Boolean) {
        val intercepted = AtomicInteger()
        val delegate = CountingDns()
        LineKit.Builder().configJson(spotConfig(a, b)).fastPath(fastPath).build().use { kit ->
            // A business client exists, but probes must not touch it.
            OkHttpClient.Builder()
                .addInterceptor(Interceptor { intercepted.incrementAndGet(); it.proceed(it.request()) })
                .lineKit(kit, delegate)
                .build()
            assertTrue(kit.detect("spot"))
            assertTrue(eventually { probes(a) >= 1 && probes(b) >= 1 }, "probes: a=${probes(a)} b=${probes(b)}")
            assertFalse(kit.detect("unknown"))
            assertEquals(0, intercepted.get())
            assertEquals(0, delegate.calls.get())
            // Probe results feed the same statistics as real traffic.
            assertTrue(eventually { kit.state().contains("\"ok\":1") || kit.state().contains("\"successes\":1") }, kit.state())
        }
    }

    @Test
    fun `a hung probe times out at the deadline without delaying business calls`() {
        StalledLine().use { stalled ->
            val config = """
                {"version":1,"allow_cleartext":true,"thresholds":{"timeout_ms":300},
                 "biz_lines":{"spot":{"match":["api.linekit.test"],
                   "http":[{"id":"a","url":"${a.origin}"},{"id":"hung","url":"${stalled.origin}"}]}}}
            """.trimIndent()
            LineKit.Builder().configJson(config).build().use { kit ->
                val client = OkHttpClient.Builder().lineKit(kit).build()
                assertTrue(kit.detect("spot"))
                assertTrue(eventually { stalled.received.isNotEmpty() })
                val started = System.nanoTime()
                repeat(5) {
                    client.newCall(Request.Builder().url("http://api.linekit.test/x").build()).execute().use { r ->
                        assertEquals("a", r.body.string())
                    }
                }
                assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 300)
                // The probe of the hung line fails at its deadline (a line fault, not "in flight" forever).
                assertTrue(eventually(2_000) { kit.state().contains("connect_timeout") || kit.state().contains("\"failures\":1") }, kit.state())
            }
        }
    }

    @Test
    fun `close with probes in flight is prompt and leaves no threads`() {
        StalledLine().use { stalled ->
            val config = """
                {"version":1,"allow_cleartext":true,"thresholds":{"timeout_ms":10000},
                 "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"hung","url":"${stalled.origin}"}]}}}
            """.trimIndent()
            val kit = LineKit.Builder().configJson(config).build()
            assertTrue(kit.detect("spot"))
            assertTrue(eventually { stalled.received.isNotEmpty() })
            assertTrue(linekitThreads().any { it.startsWith("linekit-transport") }, linekitThreads().toString())
            val started = System.nanoTime()
            kit.close()
            val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            assertTrue(tookMs < 100, "close took $tookMs ms")
            assertTrue(eventually(2_000) { linekitThreads().isEmpty() }, linekitThreads().toString())
        }
    }

    @Test
    fun `the storage dir reaches the core and HTTPDNS records survive a restart`() {
        val dir: File = Files.createTempDirectory("linekit").toFile()
        HttpDnsServer().use { dns ->
            try {
                LineKit.Builder().configJson(httpDnsConfig(dns)).storageDir(dir).build().use { kit ->
                    kit.onNetworkChanged(1, validated = true)
                    kit.dns(CountingDns()).lookup("api.linekit.test")
                    assertTrue(eventually { kit.state().contains("\"host\":\"api.linekit.test\"") })
                }
                assertTrue(dir.listFiles()!!.isNotEmpty(), "persisted on close")
                LineKit.Builder().configJson(httpDnsConfig(dns)).storageDir(dir).transport(null).build().use { kit ->
                    kit.onNetworkChanged(1, validated = true)
                    val delegate = CountingDns()
                    // Loaded off the request path; then served without any query.
                    assertTrue(eventually { kit.dns(delegate).lookup("api.linekit.test").isNotEmpty() && delegate.calls.get() == 0 || kit.state().contains("\"host\":\"api.linekit.test\"") })
                }
            } finally {
                dir.deleteRecursively()
            }
        }
    }
}
