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
import java.io.IOException
import java.util.concurrent.TimeUnit

/**
 * Failures after the request was sent — resets, stalls, cut-off responses — are line
 * faults: an idempotent (or keyed) call moves to the next line within the call, and a
 * non-idempotent unkeyed one is never replayed.
 */
class ReadSideFailoverTest {
    @AutoClose
    private val fixture = FaultyLines()
    private val attempts = fixture.attempts

    private fun lines(bodyBytes: Int = 64) = fixture.pair(bodyBytes)

    private fun client(a: FaultyLine, b: FaultyLine, bufferMax: Long = 256 * 1024): OkHttpClient =
        OkHttpClient.Builder().lineKit(fixture.kit(a, b, "\"max_retries\":1,\"buffer_body_max_bytes\":$bufferMax"))
            .readTimeout(400, TimeUnit.MILLISECONDS)
            .build()

    private fun get(client: OkHttpClient, path: String = "/quote"): String = fixture.get(client, path)

    private fun assertMovedWithinTheCall(fault: Fault, outcome: AttemptOutcome, bodyBytes: Int = 64) {
        val (a, b) = lines(bodyBytes)
        val client = client(a, b)
        a.fault = fault
        assertEquals(b.body, get(client), "the call is answered whole by the next line")
        val list = attempts.toList()
        assertEquals(listOf("a", "b"), list.map { it.route.line })
        assertEquals(outcome, list[0].outcome)
        assertEquals(AttemptOutcome.OK, list[1].outcome)
        assertEquals(listOf("a"), list[1].route.excluded)
        // The line fault moved the pool: the next call starts on b.
        assertEquals(b.body, get(client))
        assertEquals("b", attempts.last().route.line)
        assertEquals(0, attempts.last().route.attempt)
    }

    @Test
    fun `a reset after the request was sent moves a GET to the next line within the call`() {
        assertMovedWithinTheCall(Fault.RESET, AttemptOutcome.CONNECTION_RESET)
    }

    @Test
    fun `a connection closed before the response headers is truncated and moves the call`() {
        assertMovedWithinTheCall(Fault.CLOSE_BEFORE_HEADERS, AttemptOutcome.TRUNCATED)
    }

    @Test
    fun `a stalled line hits the read timeout and the call moves on`() {
        assertMovedWithinTheCall(Fault.STALL, AttemptOutcome.READ_TIMEOUT)
    }

    @Test
    fun `a small body cut off mid-way is read whole before returning, so the call moves on`() {
        assertMovedWithinTheCall(Fault.CUT_BODY, AttemptOutcome.TRUNCATED, bodyBytes = 16 * 1024)
    }

    private fun assertReportedWhenTheAppReads(fault: Fault) {
        val (a, b) = lines(bodyBytes = 16 * 1024)
        val client = client(a, b, bufferMax = 1024)
        a.fault = fault
        val e = assertThrows(IOException::class.java) { get(client, "/file") }
        assertTrue(e !is java.io.InterruptedIOException, e.toString())
        assertTrue(b.received.isEmpty(), "the headers had arrived: the call could not move")
        assertEquals(listOf(AttemptOutcome.OK), attempts.map { it.outcome }, "headers arrived on a")
        // The body's failure reached the line: the next call goes to b.
        a.fault = Fault.NONE
        assertEquals(b.body, get(client))
        assertEquals("b", attempts.last().route.line)
    }

    @Test
    fun `a large body cut off fails in the app's hands and is reported to the line`() {
        assertReportedWhenTheAppReads(Fault.CUT_BODY)
    }

    @Test
    fun `a chunked body cut off fails in the app's hands and is reported to the line`() {
        assertReportedWhenTheAppReads(Fault.CUT_CHUNKED_BODY)
    }

    @Test
    fun `a POST without an idempotency key is never replayed after a read-side failure`() {
        val json = "application/json".toMediaType()
        for (fault in listOf(Fault.RESET, Fault.CLOSE_BEFORE_HEADERS, Fault.STALL)) {
            val (a, b) = lines()
            val client = client(a, b)
            attempts.clear()
            a.fault = fault
            val post = Request.Builder().url("http://api.linekit.test/order").post("""{"n":1}""".toRequestBody(json)).build()
            assertThrows(IOException::class.java) { client.newCall(post).execute().close() }
            assertTrue(b.received.isEmpty(), "$fault: an unkeyed POST never reaches another line")
            assertTrue(attempts.all { it.route.line == "a" }, "$fault: ${attempts.map { it.route.line }}")
        }
        // With a key the same failure is retried on b.
        val (a, b) = lines()
        val client = client(a, b)
        a.fault = Fault.RESET
        val keyed = Request.Builder().url("http://api.linekit.test/order")
            .header("Idempotency-Key", "k-9")
            .post("""{"n":2}""".toRequestBody(json))
            .build()
        client.newCall(keyed).execute().use { assertEquals(b.body, it.body.string()) }
        assertEquals(listOf("""{"n":2}"""), b.received.map { it.body!!.utf8() })
    }
}
