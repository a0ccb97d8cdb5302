package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertTrue
import java.net.InetAddress
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** Every request any test server received, for the suite-wide private-header check. */
object AllRecorded {
    val requests = ConcurrentLinkedQueue<RecordedRequest>()
}

/** A test class's two line servers, `a` and `b`, closed after every test. */
abstract class TwoLineServers {
    protected val a = LineServer("a")
    protected val b = LineServer("b")

    @AfterEach
    fun closeLineServers() {
        a.close()
        b.close()
    }
}

/**
 * One local HTTP server playing a CDN line. It answers [status] (200 by default) with
 * body [name], after `?delay=MS` milliseconds when the request asks for it, or a random
 * 503 with probability [failRate].
 */
class LineServer(val name: String) : AutoCloseable {
    private val server = MockWebServer()

    /** Status to answer with. */
    @Volatile
    var status: Int = 200

    /** Probability of answering 503 instead of [status]. */
    @Volatile
    var failRate: Double = 0.0

    /** Requests received, by status answered. */
    val served = java.util.concurrent.ConcurrentHashMap<Int, AtomicInteger>()

    /** Requests this server received (detect probes excluded). */
    val received = ConcurrentLinkedQueue<RecordedRequest>()

    /** Detect probes (`HEAD /line/ping`) this server received; answered 200, counted nowhere else. */
    val probes = ConcurrentLinkedQueue<RecordedRequest>()

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                if (request.method == "HEAD" && request.url.encodedPath == "/line/ping") {
                    probes.add(request)
                    return MockResponse.Builder().code(200).build()
                }
                AllRecorded.requests.add(request)
                received.add(request)
                val code = if (failRate > 0 && java.util.concurrent.ThreadLocalRandom.current().nextDouble() < failRate) 503 else status
                served.computeIfAbsent(code) { AtomicInteger() }.incrementAndGet()
                val delay = request.url.queryParameter("delay")?.toLongOrNull() ?: 0L
                return MockResponse.Builder()
                    .code(code)
                    .addHeader("X-Served-By", name)
                    .headersDelay(delay, TimeUnit.MILLISECONDS)
                    .body(name)
                    .build()
            }
        }
        server.serverSocketFactory = NoDelayServerSocketFactory()
        server.start(InetAddress.getByName("127.0.0.1"), 0)
    }

    /** The port. */
    val port: Int get() = server.port

    /** `http://127.0.0.1:PORT`. */
    val origin: String get() = "http://127.0.0.1:$port"

    /** Count of requests answered with [code]. */
    fun servedCount(code: Int): Int = served[code]?.get() ?: 0

    /** Shuts the server down: its port refuses connections from now on. */
    override fun close() {
        server.close()
    }
}

/** Config JSON with one business line `spot` over [lines], owning `api.linekit.test` and `localhost`. */
fun spotConfig(
    vararg lines: LineServer,
    version: Int = 1,
    maxRetries: Int = 1,
    sampleRate: Double = 0.0,
): String {
    val http = lines.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }
    return """
        {"version":$version,"allow_cleartext":true,
         "thresholds":{"max_retries":$maxRetries},
         "trace":{"sample_rate":$sampleRate},
         "biz_lines":{"spot":{"match":["api.linekit.test","localhost"],"http":[$http]}}}
    """.trimIndent()
}

/**
 * Server sockets whose accepted connections set TCP_NODELAY: MockWebServer writes headers
 * and body separately, and with Nagle + delayed ACK each response would idle ~40 ms.
 * While [resetOnClose] says so, an accepted socket also sets SO_LINGER 0: closing it sends
 * a TCP RST instead of a FIN, the way a middlebox or a crashed peer resets.
 */
class NoDelayServerSocketFactory(
    private val resetOnClose: () -> Boolean = { false },
) : javax.net.ServerSocketFactory() {
    private inner class NoDelayServerSocket : java.net.ServerSocket() {
        override fun accept(): java.net.Socket {
            val socket = java.net.Socket()
            implAccept(socket)
            socket.tcpNoDelay = true
            if (resetOnClose()) socket.setSoLinger(true, 0)
            return socket
        }
    }

    override fun createServerSocket(): java.net.ServerSocket = NoDelayServerSocket()

    override fun createServerSocket(port: Int): java.net.ServerSocket =
        NoDelayServerSocket().apply { bind(java.net.InetSocketAddress(port)) }

    override fun createServerSocket(port: Int, backlog: Int): java.net.ServerSocket =
        NoDelayServerSocket().apply { bind(java.net.InetSocketAddress(port), backlog) }

    override fun createServerSocket(port: Int, backlog: Int, ifAddress: java.net.InetAddress?): java.net.ServerSocket =
        NoDelayServerSocket().apply { bind(java.net.InetSocketAddress(ifAddress, port), backlog) }
}

/** The JSON object of line [key] in a diagnosis report (keys are sorted, so it ends at the next line). */
internal fun reportLine(json: String, key: String): String {
    val start = json.indexOf("\"$key\":{")
    assertTrue(start >= 0, "no $key in $json")
    val next = json.indexOf("\"spot/", start + key.length + 3)
    return json.substring(start, if (next < 0) json.length else next)
}

/**
 * A kit for diagnosis tests: business line `spot` (matching `api.linekit.test`) on the
 * lines [http] (JSON objects, comma-separated), no start-up detect, cleartext lines allowed
 * when [cleartext].
 */
internal fun diagnosisKit(http: String, cleartext: Boolean = false): LineKit =
    LineKit.Builder()
        .configJson(
            """{"version":1,"allow_cleartext":$cleartext,"thresholds":{"startup_detect_delay_ms":600000},
               "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[$http]}}}""",
        )
        .build()
