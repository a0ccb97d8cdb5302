package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
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
class TransportTest : TwoLineServers() {

    private fun probes(line: LineServer) = line.probes.size

    /**
     * Live transport threads (found by thread group: OkHttp renames a dispatcher thread
     * while it runs a call) and the native `linekit-runtime` thread (a Rust thread, only
     * visible to Java while it is inside a callback, so read from /proc on Linux).
     */
    private fun linekitThreads(): List<String> {
        val java = Thread.getAllStackTraces().keys
            .filter { it.isAlive && (it.threadGroup?.name == "linekit-transport" || it.name.startsWith("linekit-")) }
            // OkHttp's process-wide TaskRunner and Okio's watchdog may be born in that group
            // (threads inherit their creator's group) but belong to every client in the process.
            .filter { it.name != "OkHttp TaskRunner" && it.name != "Okio Watchdog" }
            .map { it.name }
        val native = File("/proc/self/task").listFiles().orEmpty()
            .mapNotNull { runCatching { File(it, "comm").readText().trim() }.getOrNull() }
            .filter { it.startsWith("linekit-runtime") }
        return java + native
    }

    @Test
    fun `the transport builds its client on its first request, and close before that builds none`() {
        val idle = OkHttpTransport()
        assertFalse(idle.clientBuilt)
        idle.close()
        assertFalse(idle.clientBuilt)
        val config = """
            {"version":1,"allow_cleartext":true,"thresholds":{"detect_jitter_ms":0},
             "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"a","url":"${a.origin}"}]}}}
        """.trimIndent()
        OkHttpTransport().use { transport ->
            LineKit.Builder().configJson(config).transport(transport).build().use { kit ->
                assertFalse(transport.clientBuilt, "built by LineKit.Builder.build()")
                assertTrue(kit.detect("spot"))
                assertTrue(eventually { probes(a) >= 1 }, "probes: a=${probes(a)}")
                assertTrue(transport.clientBuilt)
            }
        }
    }

    @Test
    fun `detect probes every line with the transport's own client`() {
        val intercepted = AtomicInteger()
        val delegate = CountingDns()
        val config = """
            {"version":1,"allow_cleartext":true,"thresholds":{"detect_jitter_ms":0},
             "biz_lines":{"spot":{"match":["api.linekit.test"],
               "http":[{"id":"a","url":"${a.origin}"},{"id":"b","url":"${b.origin}"}]}}}
        """.trimIndent()
        LineKit.Builder().configJson(config).build().use { kit ->
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
            assertTrue(eventually { kit.stateJson().contains("\"successes\":1") }, kit.stateJson())
        }
    }

    @Test
    fun `a hung probe times out at the deadline without delaying business calls`() {
        StalledLine().use { stalled ->
            val config = """
                {"version":1,"allow_cleartext":true,"thresholds":{"timeout_ms":300,"detect_jitter_ms":0},
                 "biz_lines":{"spot":{"match":["api.linekit.test"],
                   "http":[{"id":"hung","url":"${stalled.origin}"}]}}}
            """.trimIndent()
            LineKit.Builder().configJson(config).build().use { kit ->
                val client = OkHttpClient.Builder().lineKit(kit).build()
                assertTrue(kit.detect("spot"))
                assertTrue(eventually { stalled.received.isNotEmpty() })
                val started = System.nanoTime()
                repeat(5) {
                    // Business traffic elsewhere (line `a`, unmanaged) while the probe hangs.
                    client.newCall(Request.Builder().url("${a.origin}/x").build()).execute().use { r ->
                        assertEquals("a", r.body.string())
                    }
                }
                assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 300)
                // The probe of the hung line fails at its deadline (a line fault, not "in flight" forever).
                assertTrue(eventually(2_000) { kit.stateJson().contains("connect_timeout") || kit.stateJson().contains("\"failures\":1") }, kit.stateJson())
            }
        }
    }

    @Test
    fun `close with probes in flight is prompt and leaves no threads`() {
        StalledLine().use { stalled ->
            val config = """
                {"version":1,"allow_cleartext":true,"thresholds":{"timeout_ms":10000,"detect_jitter_ms":0},
                 "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"hung","url":"${stalled.origin}"}]}}}
            """.trimIndent()
            val kit = LineKit.Builder().configJson(config).build()
            assertTrue(kit.detect("spot"))
            assertTrue(eventually { stalled.received.isNotEmpty() })
            assertTrue(linekitThreads().any { it.startsWith("OkHttp") }, linekitThreads().toString())
            assertTrue(linekitThreads().any { it.startsWith("linekit-runtime") }, linekitThreads().toString())
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
                LineKit.Builder().configJson(httpDnsConfig(dns, a)).storageDir(dir).build().use { kit ->
                    kit.onNetworkChanged(1, validated = true)
                    kit.dns(CountingDns()).lookup("api.linekit.test")
                    assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") })
                }
                assertTrue(dir.listFiles()!!.isNotEmpty(), "persisted on close")
                LineKit.Builder().configJson(httpDnsConfig(dns, a)).storageDir(dir).transport(null).build().use { kit ->
                    kit.onNetworkChanged(1, validated = true)
                    // Loaded off the request path; then served with no transport and no delegate.
                    assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") }, kit.stateJson())
                    val noDelegate = okhttp3.Dns { throw java.net.UnknownHostException("delegate must not be asked") }
                    assertEquals(listOf("127.0.0.1"), kit.dns(noDelegate).lookup("api.linekit.test").map { it.hostAddress })
                }
            } finally {
                dir.deleteRecursively()
            }
        }
    }
}
