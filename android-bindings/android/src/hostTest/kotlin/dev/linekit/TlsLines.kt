package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.Dns
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.tls.HandshakeCertificates
import okhttp3.tls.HeldCertificate
import java.net.InetAddress
import java.net.ServerSocket
import java.net.Socket
import java.net.UnknownHostException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The certificates of the TLS lines: one test CA that the clients trust, and leaf
 * certificates it signs for line hosts (valid, expired, for another host), plus
 * self-signed ones it did not sign. Keys are ECDSA P-256: quick to make.
 */
object TestCa {
    /** The CA every test client trusts. */
    val root: HeldCertificate = HeldCertificate.Builder()
        .certificateAuthority(0)
        .commonName("Linekit test CA")
        .build()

    /** A certificate for [hosts], signed by [root], valid now (or over [validity] in epoch ms). */
    fun leaf(vararg hosts: String, validity: LongRange? = null): HeldCertificate {
        val b = HeldCertificate.Builder().signedBy(root).commonName(hosts.first())
        hosts.forEach { b.addSubjectAlternativeName(it) }
        validity?.let { b.validityInterval(it.first, it.last) }
        return b.build()
    }

    /** A certificate for [host] that expired a day ago (valid for the day before). */
    fun expired(host: String): HeldCertificate {
        val now = System.currentTimeMillis()
        return leaf(host, validity = (now - 2 * DAY_MS)..(now - DAY_MS))
    }

    /** A certificate for [host] signed by itself: no client trusts it. */
    fun selfSigned(host: String): HeldCertificate =
        HeldCertificate.Builder().commonName(host).addSubjectAlternativeName(host).build()

    /** What a client trusts: [root] only (no platform CAs, no insecure hosts). */
    val clientTrust: HandshakeCertificates = HandshakeCertificates.Builder()
        .addTrustedCertificate(root.certificate)
        .build()

    /** The server side of a handshake presenting [cert], with [root] after it when [root] signed it. */
    fun serverSide(cert: HeldCertificate): HandshakeCertificates {
        val signedByRoot = cert.certificate.issuerX500Principal == root.certificate.subjectX500Principal
        val chain = if (signedByRoot) arrayOf(root.certificate) else emptyArray()
        return HandshakeCertificates.Builder().heldCertificate(cert, *chain).build()
    }

    private const val DAY_MS = 24 * 60 * 60 * 1000L
}

/** [this] trusting [TestCa.root] only. */
fun OkHttpClient.Builder.trustingTestCa(): OkHttpClient.Builder =
    sslSocketFactory(TestCa.clientTrust.sslSocketFactory(), TestCa.clientTrust.trustManager)

/**
 * A resolver for the line hosts of the TLS tests (`*.linekit.test` names that no real
 * resolver knows): each name maps to the loopback address given, every lookup is
 * recorded, and any other name is unknown.
 */
class LoopbackDns : Dns {
    private val hosts = ConcurrentHashMap<String, List<InetAddress>>()

    /** Names looked up, in order. */
    val lookups = ConcurrentLinkedQueue<String>()

    /** Makes [host] resolve to [addresses] (loopback literals such as `127.0.0.2`). */
    fun map(host: String, vararg addresses: String): LoopbackDns = apply {
        hosts[host.lowercase()] = addresses.map { InetAddress.getByName(it) }
    }

    override fun lookup(hostname: String): List<InetAddress> {
        lookups.add(hostname)
        return hosts[hostname.lowercase()] ?: throw UnknownHostException("no test address for $hostname")
    }
}

/**
 * One local HTTPS server playing a CDN line with host name [host]: it presents [cert] and
 * answers every request with [status] and body [name] (no body for a `HEAD`). [protocols] are offered through
 * ALPN (HTTP/1.1 only by default; add HTTP/2 for the coalescing tests). [bind] is the
 * loopback address it listens on, [port] 0 for any free port.
 */
class TlsLine(
    val name: String,
    val host: String,
    cert: HeldCertificate,
    protocols: List<Protocol> = listOf(Protocol.HTTP_1_1),
    bind: String = "127.0.0.1",
    port: Int = 0,
    /** The answer's status for a request (200 by default). */
    private val statusOf: (RecordedRequest) -> Int = { 200 },
) : AutoCloseable {
    private val server = MockWebServer()

    /** Requests this server received over a completed handshake. */
    val received = ConcurrentLinkedQueue<RecordedRequest>()

    /** TCP connections accepted: one per handshake tried, completed or not. */
    val accepted = AtomicInteger()

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                AllRecorded.requests.add(request)
                received.add(request)
                val answer = MockResponse.Builder().code(statusOf(request)).addHeader("X-Served-By", name)
                // A HEAD response has no body.
                return (if (request.method == "HEAD") answer else answer.body(name)).build()
            }
        }
        server.serverSocketFactory = CountingServerSocketFactory(accepted)
        server.useHttps(TestCa.serverSide(cert).sslSocketFactory())
        server.protocols = protocols
        server.start(InetAddress.getByName(bind), port)
    }

    /** The port. */
    val port: Int get() = server.port

    /** `https://HOST:PORT`: the line's URL in a config. */
    val origin: String get() = "https://$host:$port"

    override fun close() {
        server.close()
    }
}

/** Server sockets that count the connections they accept (TCP_NODELAY on, as [NoDelayServerSocketFactory]). */
private class CountingServerSocketFactory(private val accepted: AtomicInteger) : javax.net.ServerSocketFactory() {
    private inner class Counting : ServerSocket() {
        override fun accept(): Socket {
            val socket = Socket()
            implAccept(socket)
            socket.tcpNoDelay = true
            accepted.incrementAndGet()
            return socket
        }
    }

    override fun createServerSocket(): ServerSocket = Counting()

    override fun createServerSocket(port: Int): ServerSocket =
        Counting().apply { bind(java.net.InetSocketAddress(port)) }

    override fun createServerSocket(port: Int, backlog: Int): ServerSocket =
        Counting().apply { bind(java.net.InetSocketAddress(port), backlog) }

    override fun createServerSocket(port: Int, backlog: Int, ifAddress: InetAddress?): ServerSocket =
        Counting().apply { bind(java.net.InetSocketAddress(ifAddress, port), backlog) }
}

/**
 * A line whose server accepts TCP connections and never answers a byte: a client's TLS
 * ClientHello goes unanswered, so its handshake stalls until a timeout the client set.
 * Holds every accepted socket open until [close]. Listens on [bind] ([port] 0: any free port).
 */
class SilentTlsLine(val host: String, bind: String = "127.0.0.1", port: Int = 0) : AutoCloseable {
    private val socket = ServerSocket(port, 50, InetAddress.getByName(bind))
    private val held = ConcurrentLinkedQueue<Socket>()

    /** Connections accepted. */
    val accepted = AtomicInteger()

    init {
        Thread({
            while (!socket.isClosed) {
                try {
                    held.add(socket.accept())
                    accepted.incrementAndGet()
                } catch (_: java.io.IOException) {
                }
            }
        }, "silent-tls-line").apply { isDaemon = true }.start()
    }

    /** The port. */
    val port: Int get() = socket.localPort

    /** `https://HOST:PORT`. */
    val origin: String get() = "https://$host:$port"

    override fun close() {
        socket.close()
        held.forEach { it.close() }
    }
}

/**
 * Config JSON with one business line `spot` owning `api.linekit.test` over [origins] (`id`
 * to URL); one line fault opens a line's breaker, and no detect runs on its own.
 */
fun tlsSpotConfig(vararg origins: Pair<String, String>, maxRetries: Int = 1, sampleRate: Double = 0.0): String {
    val http = origins.joinToString(",") { (id, url) -> """{"id":"$id","url":"$url"}""" }
    return """
        {"version":1,
         "thresholds":{"max_retries":$maxRetries,"failure_threshold":1,"startup_detect_delay_ms":600000},
         "trace":{"sample_rate":$sampleRate},
         "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[$http]}}}
    """.trimIndent()
}

/** How long a call took, in ms, with its result or failure. */
fun <T> timed(block: () -> T): Pair<Long, Result<T>> {
    val t0 = System.nanoTime()
    val r = runCatching(block)
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) to r
}
