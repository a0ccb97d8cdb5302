package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import mockwebserver3.SocketEffect
import okhttp3.OkHttpClient
import okhttp3.Request
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
 * Pairs of [FaultyLine]s, `a` then `b` of business line `spot` (host `api.linekit.test`),
 * and the engines built over them, every attempt recorded in [attempts]. Closing it closes
 * everything it opened, the last first.
 */
class FaultyLines : AutoCloseable {
    private val opened = mutableListOf<AutoCloseable>()

    /** Every attempt of every engine built here, in order. */
    val attempts = ConcurrentLinkedQueue<Attempt>()

    /** Lines `a` and `b`, answering bodies of [bodyBytes] bytes, both with [fault]. */
    fun pair(bodyBytes: Int = 64, fault: Fault = Fault.NONE): Pair<FaultyLine, FaultyLine> {
        val a = FaultyLine("a", bodyBytes).also { it.fault = fault; opened.add(it) }
        val b = FaultyLine("b", bodyBytes).also { it.fault = fault; opened.add(it) }
        return a to b
    }

    /** An engine over [a] then [b], with [thresholds] (the members of the config's `thresholds`). */
    fun kit(a: FaultyLine, b: FaultyLine, thresholds: String): LineKit {
        val config = """
            {"version":1,"allow_cleartext":true,"thresholds":{$thresholds},
             "biz_lines":{"spot":{"match":["api.linekit.test"],
               "http":[{"id":"a","url":"${a.origin}"},{"id":"b","url":"${b.origin}"}]}}}
        """.trimIndent()
        return LineKit.Builder().configJson(config).transport(null).onAttempt { attempts.add(it) }.build()
            .also { opened.add(it) }
    }

    /** The body of a GET of `http://api.linekit.test` + [path] on [client]. */
    fun get(client: OkHttpClient, path: String = "/quote"): String =
        client.newCall(Request.Builder().url("http://api.linekit.test$path").build()).execute().use { it.body.string() }

    override fun close() {
        opened.reversed().forEach { it.close() }
    }
}
