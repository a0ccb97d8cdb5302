package dev.linekit

import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.AutoClose
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.io.IOException
import java.util.concurrent.TimeUnit

/**
 * A connection the client pooled goes stale while idle (the server's keep-alive timeout,
 * a NAT, a network change): the next request on it breaks before any response. Linekit
 * resends a replayable request on the same line, where OkHttp connects anew, and counts
 * nothing against the line; an unkeyed POST is never resent. The clients turn OkHttp's own
 * silent retry off, as apps do that must never re-send a POST.
 */
class StaleConnectionTest {
    @AutoClose
    private val fixture = FaultyLines()
    private val attempts = fixture.attempts

    private fun lines(fault: Fault) = fixture.pair(fault = fault)

    private fun client(a: FaultyLine, b: FaultyLine): OkHttpClient =
        OkHttpClient.Builder().lineKit(fixture.kit(a, b, "\"max_retries\":1")).retryOnConnectionFailure(false).build()

    private fun get(client: OkHttpClient): String = fixture.get(client)

    @ParameterizedTest
    @EnumSource(Fault::class, names = ["CLOSE_AFTER_ANSWER", "RESET_AFTER_ANSWER"])
    fun `a GET on a stale pooled connection is resent on the same line and counted nowhere`(fault: Fault) {
        val (a, b) = lines(fault)
        val client = client(a, b)
        assertEquals(a.body, get(client))
        assertEquals(1, client.connectionPool.connectionCount(), "the first answer's connection is pooled")

        assertEquals(a.body, get(client), "the stale connection's request is answered by the same line")
        val list = attempts.toList()
        assertEquals(listOf("a", "a", "a"), list.map { it.route.line })
        assertEquals(listOf(AttemptOutcome.OK, AttemptOutcome.STALE_CONNECTION, AttemptOutcome.OK), list.map { it.outcome })
        assertEquals(listOf(0, 0), list.drop(1).map { it.route.attempt }, "a resend is not a try")
        assertEquals(listOf(emptyList<String>(), emptyList()), list.drop(1).map { it.route.excluded })
        assertEquals(2, a.received.size, "the stale request never reached the server; its resend did")
        assertEquals(0, b.received.size, "nothing moved to b")

        // Nothing was counted against a: the next call stays there.
        assertEquals(a.body, get(client))
        assertEquals(RouteReason.STICKY, attempts.last().route.reason)
    }

    @Test
    fun `a GET meets as many stale connections as the pool holds idle ones, more than max_retries, and still stays on its line`() {
        val (a, b) = lines(Fault.CLOSE_AFTER_ANSWER)
        val client = client(a, b)
        // Three calls at once hold three connections; each goes stale once answered.
        a.headersDelayMs = 200
        val pool = java.util.concurrent.Executors.newFixedThreadPool(3)
        try {
            val answers = (1..3).map { pool.submit<String> { get(client) } }.map { it.get(10, TimeUnit.SECONDS) }
            assertEquals(List(3) { a.body }, answers)
        } finally {
            pool.shutdown()
        }
        a.headersDelayMs = 0
        assertEquals(3, client.connectionPool.idleConnectionCount(), "three idle connections to a, all stale")
        attempts.clear()

        assertEquals(a.body, get(client))
        val list = attempts.toList()
        assertEquals(List(3) { AttemptOutcome.STALE_CONNECTION } + AttemptOutcome.OK, list.map { it.outcome })
        assertEquals(List(4) { "a" }, list.map { it.route.line }, "max_retries is 1, yet nothing moved to b")
        assertEquals(0, b.received.size)
    }

    @Test
    fun `an unkeyed POST on a stale pooled connection is never resent`() {
        val (a, b) = lines(Fault.CLOSE_AFTER_ANSWER)
        val client = client(a, b)
        assertEquals(a.body, get(client))
        val post = Request.Builder().url("http://api.linekit.test/orders")
            .post("{}".toRequestBody("application/json".toMediaType())).build()
        assertThrows(IOException::class.java) { client.newCall(post).execute().close() }
        assertEquals(listOf(AttemptOutcome.OK, AttemptOutcome.STALE_CONNECTION), attempts.map { it.outcome })
        assertEquals(listOf("GET"), (a.received + b.received).map { it.method }, "the POST reached no server")
    }

    @ParameterizedTest
    @EnumSource(Fault::class, names = ["CLOSE_AFTER_ANSWER", "RESET_AFTER_ANSWER"])
    fun `a probe on a stale pooled connection of the transport is resent and counts as the line's success`(fault: Fault) {
        val (a, _) = lines(fault)
        val config = """
            {"version":1,"allow_cleartext":true,
             "thresholds":{"detect_jitter_ms":0,"detect_cooldown_ms":1,"startup_detect_delay_ms":600000},
             "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"a","url":"${a.origin}"}]}}}
        """.trimIndent()
        OkHttpTransport().use { transport ->
            LineKit.Builder().configJson(config).transport(transport).build().use { kit ->
                val probes = { a.received.count { it.method == "HEAD" } }
                assertTrue(kit.detect("spot"))
                assertTrue(eventually { kit.stateJson().contains("\"successes\":1") }, kit.stateJson())
                assertEquals(1, transport.client.connectionPool.connectionCount(), "the probe's connection is pooled")
                assertTrue(kit.detect("spot"))
                assertTrue(eventually { kit.stateJson().contains("\"successes\":2") }, kit.stateJson())
                assertEquals(2, probes(), "the stale connection's probe never reached the server; its resend did")
                assertTrue(kit.stateJson().contains("\"failures\":0"), kit.stateJson())
            }
        }
    }

    @Test
    fun `the classifier names a break before the response on a pooled connection stale, and nothing else`() {
        val reset = java.net.SocketException("Connection reset")
        val eof = IOException("unexpected end of stream on http://127.0.0.1/...")
        assertEquals(AttemptOutcome.STALE_CONNECTION, FailureClassifier.classify(reset, false, true, reusedBeforeResponse = true))
        assertEquals(AttemptOutcome.STALE_CONNECTION, FailureClassifier.classify(eof, false, true, reusedBeforeResponse = true))
        assertEquals(AttemptOutcome.CONNECTION_RESET, FailureClassifier.classify(reset, false, true, reusedBeforeResponse = false))
        assertEquals(AttemptOutcome.TRUNCATED, FailureClassifier.classify(eof, false, true))
        val stall = java.net.SocketTimeoutException("timeout")
        assertEquals(AttemptOutcome.READ_TIMEOUT, FailureClassifier.classify(stall, false, true, reusedBeforeResponse = true))
        assertEquals(AttemptOutcome.CANCELLED, FailureClassifier.classify(reset, true, true, reusedBeforeResponse = true))
    }
}
