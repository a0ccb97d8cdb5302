package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import mockwebserver3.SocketEffect
import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.IOException
import java.net.InetAddress
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit

/** How a [FaultyLine] misbehaves after it has read a request. */
enum class Fault {
    /** Answers normally. */
    NONE,

    /** Resets the connection (TCP RST) instead of answering. */
    RESET,

    /** Closes the connection (FIN) before the response headers. */
    CLOSE_BEFORE_HEADERS,

    /** Never answers. */
    STALL,

    /** Sends the headers and part of a fixed-length body, then closes. */
    CUT_BODY,

    /** Sends the headers and part of a chunked body, then closes. */
    CUT_CHUNKED_BODY,

    /** Answers whole, then closes the connection (FIN): the client's pooled copy goes stale. */
    CLOSE_AFTER_ANSWER,

    /** Answers whole, then resets the connection (RST): the client's pooled copy goes stale. */
    RESET_AFTER_ANSWER,
}

/**
 * A local server playing a CDN line that fails the way real networks do, after the
 * request has reached it. Every answer carries a body of [bodyBytes] bytes of [name]'s
 * first letter, so a client can tell which line served it and whether it is whole.
 */
class FaultyLine(val name: String, private val bodyBytes: Int = 64) : AutoCloseable {
    private val server = MockWebServer()

    /** The fault applied to every request from now on. */
    @Volatile
    var fault: Fault = Fault.NONE

    /** Requests received. */
    val received = ConcurrentLinkedQueue<RecordedRequest>()

    /** How long every answer's headers wait (to hold several connections open at once). */
    @Volatile
    var headersDelayMs: Long = 0

    /** The body a healthy answer carries. */
    val body: String = name.first().toString().repeat(bodyBytes)

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                AllRecorded.requests.add(request)
                received.add(request)
                // A HEAD (a detect probe) is answered without a body, as HTTP says.
                val b = MockResponse.Builder().code(200).addHeader("X-Served-By", name)
                    .body(if (request.method == "HEAD") "" else body)
                    .headersDelay(headersDelayMs, TimeUnit.MILLISECONDS)
                return when (fault) {
                    Fault.NONE -> b
                    Fault.RESET -> b.onResponseStart(SocketEffect.CloseSocket())
                    Fault.CLOSE_BEFORE_HEADERS -> b.onResponseStart(SocketEffect.CloseSocket())
                    Fault.STALL -> b.onResponseStart(SocketEffect.Stall)
                    Fault.CUT_BODY -> b.onResponseBody(SocketEffect.CloseSocket())
                    Fault.CUT_CHUNKED_BODY -> b.chunkedBody(body, 1024).onResponseBody(SocketEffect.CloseSocket())
                    Fault.CLOSE_AFTER_ANSWER, Fault.RESET_AFTER_ANSWER -> b.onResponseEnd(SocketEffect.CloseSocket())
                }.build()
            }
        }
        server.serverSocketFactory = NoDelayServerSocketFactory(resetOnClose = { fault == Fault.RESET || fault == Fault.RESET_AFTER_ANSWER })
        server.start(InetAddress.getByName("127.0.0.1"), 0)
    }

    /** `http://127.0.0.1:PORT`. */
    val origin: String get() = "http://127.0.0.1:${server.port}"

    override fun close() {
        server.close()
    }
}

/**
 * Failures after the request was sent — resets, stalls, cut-off responses — are line
 * faults: an idempotent (or keyed) call moves to the next line within the call, and a
 * non-idempotent unkeyed one is never replayed.
 */
class ReadSideFailoverTest {
    private val opened = mutableListOf<AutoCloseable>()
    private val attempts = ConcurrentLinkedQueue<Attempt>()

    @AfterEach
    fun tearDown() {
        opened.reversed().forEach { it.close() }
    }

    private fun lines(bodyBytes: Int = 64): Pair<FaultyLine, FaultyLine> {
        val a = FaultyLine("a", bodyBytes).also { opened.add(it) }
        val b = FaultyLine("b", bodyBytes).also { opened.add(it) }
        return a to b
    }

    private fun client(a: FaultyLine, b: FaultyLine, bufferMax: Long = 256 * 1024): OkHttpClient {
        val config = """
            {"version":1,"allow_cleartext":true,
             "thresholds":{"max_retries":1,"buffer_body_max_bytes":$bufferMax},
             "biz_lines":{"spot":{"match":["api.linekit.test"],
               "http":[{"id":"a","url":"${a.origin}"},{"id":"b","url":"${b.origin}"}]}}}
        """.trimIndent()
        val kit = LineKit.Builder().configJson(config).transport(null).onAttempt { attempts.add(it) }.build()
        opened.add(kit)
        return OkHttpClient.Builder().lineKit(kit)
            .readTimeout(400, TimeUnit.MILLISECONDS)
            .build()
    }

    private fun get(client: OkHttpClient, path: String = "/quote"): String =
        client.newCall(Request.Builder().url("http://api.linekit.test$path").build()).execute().use { it.body.string() }

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
