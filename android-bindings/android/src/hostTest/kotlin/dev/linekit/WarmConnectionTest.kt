package dev.linekit

import okhttp3.Call
import okhttp3.EventListener
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * Warm connections over HTTPS (`docs/architecture.md#warm-connections`): when the serving
 * line faults, the engine warms the line traffic moves to, and the warm goes on the
 * business client's own connection pool, so the next business request on that line finds
 * its TLS connection open. The warm is no app request: the app's interceptors and event
 * listener never see it.
 */
class WarmConnectionTest {
    private val opened = mutableListOf<AutoCloseable>()
    private val trace = LinkedBlockingQueue<String>()
    private val dns = LoopbackDns()
    private val appSaw = ConcurrentLinkedQueue<String>()
    private val appCalls = ConcurrentLinkedQueue<String>()

    @AfterEach
    fun tearDown() {
        opened.reversed().forEach { it.close() }
    }

    private fun <T : AutoCloseable> T.closing(): T = also { opened.add(it) }

    /** Line [name] on `NAME.linekit.test` over HTTP/2, answering 503 when [failing]. */
    private fun line(name: String, failing: Boolean = false): TlsLine {
        val host = "$name.linekit.test"
        dns.map(host, "127.0.0.1")
        return TlsLine(
            name, host, TestCa.leaf(host),
            protocols = listOf(Protocol.HTTP_2, Protocol.HTTP_1_1),
            statusOf = { if (failing) 503 else 200 },
        ).closing()
    }

    /**
     * An engine over lines [a] then [b], no retries, with the default transport. No probe
     * runs: the start-up detect is far off and one fault is below `failure_threshold` (a probe
     * of b would fail: the transport does not trust the test CA).
     */
    private fun kit(a: TlsLine, b: TlsLine, warm: Boolean = true): LineKit = LineKit.Builder()
        .configJson(
            """
            {"version":1,
             "thresholds":{"max_retries":0,"failure_threshold":5,"startup_detect_delay_ms":600000,
                           "detect_cooldown_ms":600000},
             "trace":{"sample_rate":1.0},
             "biz_lines":{"spot":{"match":["api.linekit.test"],"warm_connections":$warm,
               "http":[{"id":"a","url":"${a.origin}"},{"id":"b","url":"${b.origin}"}]}}}
            """.trimIndent(),
        )
        .traceSink { trace.add(it) }
        .build()
        .closing()

    /** A business client with an app interceptor and an app event listener, then Linekit. */
    private fun client(kit: LineKit): OkHttpClient = OkHttpClient.Builder()
        .dns(dns)
        .trustingTestCa()
        .addInterceptor(Interceptor { chain -> appSaw.add(chain.request().method); chain.proceed(chain.request()) })
        .eventListener(object : EventListener() {
            override fun callStart(call: Call) {
                appCalls.add(call.request().method)
            }
        })
        .lineKit(kit)
        .build()

    private fun get(client: OkHttpClient): Pair<Int, String> =
        client.newCall(Request.Builder().url("https://api.linekit.test/quote").build()).execute().use {
            it.code to it.body.string()
        }

    /** The next trace event of [kind], waiting for it at most 10 s; null if none came. */
    private fun nextEvent(kind: String): String? {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
        while (true) {
            val left = deadline - System.nanoTime()
            if (left <= 0) return null
            val event = trace.poll(left, TimeUnit.NANOSECONDS) ?: return null
            if (event.contains("\"kind\":\"$kind\"")) return event
        }
    }

    @Test
    fun `a fault on the serving line warms the next line on the business pool and the next request reuses that connection`() {
        val a = line("a", failing = true)
        val b = line("b")
        val client = client(kit(a, b))
        assertEquals(503 to "a", get(client), "no retries: the 503 comes back")

        val warm = nextEvent("warm")
        assertNotNull(warm, "a warm was traced")
        assertTrue(warm!!.contains("\"line\":\"b\"") && warm.contains("\"outcome\":\"ok\""), warm)
        val head = b.received.single()
        assertEquals("HEAD" to "/line/ping", head.method to head.url.encodedPath)
        assertEquals(1, b.accepted.get(), "the warm opened b's connection")

        assertEquals(200 to "b", get(client))
        assertEquals(1, b.accepted.get(), "the request found it open: no new connection")
        val served = b.received.last()
        assertEquals("GET" to head.connectionIndex, served.method to served.connectionIndex)
        assertEquals(2, client.connectionPool.connectionCount(), "a's and b's, both in the business pool")
        assertEquals(listOf("GET", "GET"), appSaw.toList(), "the app's interceptor never saw the warm")
        assertEquals(listOf("GET", "GET"), appCalls.toList(), "nor did the app's event listener")
    }

    @Test
    fun `with warm_connections off the first request on the next line opens the connection itself`() {
        val a = line("a", failing = true)
        val b = line("b")
        val client = client(kit(a, b, warm = false))
        assertEquals(503 to "a", get(client))
        assertEquals(0, b.accepted.get())
        assertEquals(200 to "b", get(client))
        assertEquals(listOf("GET"), b.received.map { it.method })
        assertEquals(1, b.accepted.get())
        assertNull(trace.firstOrNull { it.contains("\"kind\":\"warm\"") }, "no warm traced")
    }
}
