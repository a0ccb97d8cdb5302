package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * `LineKit.diagnose` against local lines: one refusing connections, one answering 503, one
 * healthy (and one that never answers, for the deadline). The report names each failure,
 * returns within its timeout, joins a running diagnosis, says when there is no network and
 * refuses to block the main thread.
 */
class DiagnosisTest {
    /** A line answering every request with [status] after [delayMs]. */
    private class Line(private val status: Int, private val delayMs: Long = 0) : AutoCloseable {
        private val server = MockWebServer()
        val hits = AtomicInteger()

        init {
            server.dispatcher = object : Dispatcher() {
                override fun dispatch(request: RecordedRequest): MockResponse {
                    hits.incrementAndGet()
                    return MockResponse.Builder().code(status).headersDelay(delayMs, TimeUnit.MILLISECONDS).build()
                }
            }
            server.start(InetAddress.getByName("127.0.0.1"), 0)
        }

        val port: Int get() = server.port

        override fun close() = server.close()
    }

    /**
     * Accepts connections and answers anything with a plain-text HTTP error at once, or
     * (when [silent]) holds them open without a byte.
     */
    private class PlainTextServer(silent: Boolean = false) : AutoCloseable {
        private val socket = java.net.ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))
        private val held = java.util.concurrent.ConcurrentLinkedQueue<java.net.Socket>()
        val port: Int get() = socket.localPort

        init {
            Thread {
                while (!socket.isClosed) {
                    try {
                        val s = socket.accept()
                        if (silent) {
                            held.add(s)
                        } else {
                            s.use { it.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".toByteArray()) }
                        }
                    } catch (_: java.io.IOException) {
                    }
                }
            }.apply { isDaemon = true }.start()
        }

        override fun close() {
            socket.close()
            held.forEach { it.close() }
        }
    }

    private val refusedPort = Line(200).let { val p = it.port; it.close(); p }
    private val busy = Line(503)
    private val healthy = Line(200)
    private val stalled = Line(200, delayMs = 30_000)
    private val slow = Line(200, delayMs = 400)
    private val opened = mutableListOf<AutoCloseable>()

    @AfterEach
    fun tearDown() {
        DiagnosisMainThread.isMainThread = { false }
        opened.forEach { it.close() }
        listOf(busy, healthy, stalled, slow).forEach { it.close() }
    }

    private fun kit(vararg lines: Pair<String, Int>): LineKit {
        val http = lines.joinToString(",") { (id, port) -> """{"id":"$id","url":"http://127.0.0.1:$port"}""" }
        return diagnosisKit(http, cleartext = true)
            .also { opened.add(it) }
    }

    @Test
    fun `the report names each failure precisely and returns within its timeout`() {
        val kit = kit("refused" to refusedPort, "busy" to busy.port, "healthy" to healthy.port)
        val t0 = System.nanoTime()
        val report = kit.diagnose("spot", timeoutMs = 5_000)
        val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
        assertTrue(tookMs < 5_000, "took $tookMs ms")

        val refused = reportLine(report.json, "spot/refused")
        assertTrue(refused.contains("\"result\":\"tcp_failed\""), refused)
        assertTrue(refused.contains("\"tcp_error\":\"connect_refused\""), refused)
        assertTrue(refused.contains("\"probe\":{\"error\":\"connect_refused\""), refused)

        val failing = reportLine(report.json, "spot/busy")
        assertTrue(failing.contains("\"result\":\"probe_failed\""), failing)
        assertTrue(failing.contains("\"status\":503"), failing)
        assertTrue(Regex("\"tcp_ms\":\\d+").containsMatchIn(failing), failing)

        val ok = reportLine(report.json, "spot/healthy")
        assertTrue(ok.contains("\"result\":\"ok\""), ok)
        assertTrue(ok.contains("\"status\":200"), ok)

        assertTrue(report.json.contains("\"timed_out\":false"), report.json)
        assertTrue(report.text.contains("spot/refused [http] ip:$refusedPort: FAILED: tcp connect_refused"), report.text)
        assertTrue(report.text.contains("spot/busy [http] ip:${busy.port}: FAILED: probe HTTP 503"), report.text)
        assertTrue(report.text.contains("spot/healthy [http] ip:${healthy.port}: ok: probe HTTP 200"), report.text)
        assertFalse(report.json.contains("http://") || report.text.contains("/line/ping"), "redacted: ${report.text}")
        assertEquals(1, busy.hits.get(), "one probe per line, through the transport")
    }

    @Test
    fun `a TLS line whose server does not speak TLS fails the handshake, named as such`() {
        val plain = PlainTextServer().also { opened.add(it) }
        val kit = diagnosisKit("""{"id":"tls","url":"https://127.0.0.1:${plain.port}"}""")
            .also { opened.add(it) }
        val report = kit.diagnose("spot", 5_000)
        val tls = reportLine(report.json, "spot/tls")
        assertTrue(tls.contains("\"result\":\"tls_failed\""), tls)
        assertTrue(Regex("\"tcp_ms\":\\d+").containsMatchIn(tls), tls)
        assertTrue(Regex("\"tls_error\":\"tls_failure \\(SSL[A-Za-z]*Exception\\)\"").containsMatchIn(tls), tls)
        assertTrue(tls.contains("\"probe\":{\"error\":\"tls_failure\""), tls)
    }

    @Test
    fun `a handshake cut by the deadline keeps the connect time`() {
        val silent = PlainTextServer(silent = true).also { opened.add(it) }
        val kit = diagnosisKit("""{"id":"tls","url":"https://127.0.0.1:${silent.port}"}""")
            .also { opened.add(it) }
        val tls = reportLine(kit.diagnose("spot", 800).json, "spot/tls")
        assertTrue(Regex("\"tcp_ms\":\\d+").containsMatchIn(tls), tls)
        assertTrue(tls.contains("\"tls_error\":\"timeout\""), tls)
        assertTrue(tls.contains("\"result\":\"tls_failed\""), tls)
    }

    @Test
    fun `a line that never answers is cut at the deadline`() {
        val kit = kit("healthy" to healthy.port, "stalled" to stalled.port)
        val t0 = System.nanoTime()
        val report = kit.diagnose(timeoutMs = 800)
        val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
        assertTrue(tookMs < 800 + 1_000, "took $tookMs ms")
        assertTrue(report.json.contains("\"timed_out\":true"), report.json)
        val stuck = reportLine(report.json, "spot/stalled")
        assertTrue(stuck.contains("\"probe\":{\"error\":\"timeout\""), stuck)
        assertTrue(reportLine(report.json, "spot/healthy").contains("\"result\":\"ok\""), report.json)
    }

    @Test
    fun `a second caller joins the running diagnosis`() {
        val kit = kit("slow" to slow.port)
        val first = CompletableFuture<DiagnosisReport>()
        kit.diagnose(null, 5_000) { first.complete(it) }
        val second = kit.diagnose(null, 5_000)
        assertSame(first.get(5, TimeUnit.SECONDS), second)
        assertEquals(1, slow.hits.get(), "one diagnosis ran")
    }

    @Test
    fun `no network gives a report that says so and measures nothing`() {
        val kit = kit("healthy" to healthy.port)
        kit.onNetworkChanged(handle = 0, validated = false)
        val report = kit.diagnose()
        assertTrue(report.json.contains("\"available\":false"), report.json)
        assertTrue(reportLine(report.json, "spot/healthy").contains("\"result\":\"no_network\""), report.json)
        assertTrue(report.text.contains("Network: NONE"), report.text)
        assertEquals(0, healthy.hits.get())
    }

    @Test
    fun `the blocking call is refused on the main thread, the callback is not`() {
        val kit = kit("healthy" to healthy.port)
        DiagnosisMainThread.isMainThread = { true }
        val e = assertThrows(IllegalStateException::class.java) { kit.diagnose() }
        assertTrue(e.message!!.contains("main thread"), e.message)
        val report = CompletableFuture<DiagnosisReport>()
        kit.diagnose("spot", 5_000) { report.complete(it) }
        assertTrue(reportLine(report.get(5, TimeUnit.SECONDS).json, "spot/healthy").contains("\"result\":\"ok\""))
    }

    @Test
    fun `an unknown business line is an error`() {
        val kit = kit("healthy" to healthy.port)
        assertThrows(LineKitException.InvalidArgument::class.java) { kit.diagnose("nope") }
        // The failed start leaves nothing running: the next diagnosis runs.
        assertTrue(kit.diagnose("spot").json.contains("spot/healthy"))
    }
}
