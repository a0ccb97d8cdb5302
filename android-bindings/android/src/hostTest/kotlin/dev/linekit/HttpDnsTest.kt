package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.Dns
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import dev.linekit.internal.ConnectFailureKind
import dev.linekit.internal.JniResolver
import java.io.IOException
import java.net.ConnectException
import java.net.InetAddress
import java.net.NoRouteToHostException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import javax.net.ssl.SSLHandshakeException

/** A resolver for `*.linekit.test` (→ 127.0.0.1) that counts its calls. */
class CountingDns : Dns {
    val calls = AtomicInteger()
    override fun lookup(hostname: String): List<InetAddress> {
        calls.incrementAndGet()
        if (!hostname.endsWith(".linekit.test")) throw UnknownHostException(hostname)
        return listOf(InetAddress.getByAddress(hostname, byteArrayOf(127, 0, 0, 1)))
    }
}

/**
 * An Alibaba `/d` HTTPDNS endpoint: answers `{"host":H,"ips":[..],"ttl":60}` with [ips];
 * while [stall] is set, every query hangs until [release].
 */
class HttpDnsServer : AutoCloseable {
    private val server = MockWebServer()
    private val released = CountDownLatch(1)

    /** Addresses answered. */
    @Volatile
    var ips: List<String> = listOf("127.0.0.1")

    /** Whether queries hang. */
    @Volatile
    var stall = false

    /** Queries received. */
    val queries = ConcurrentLinkedQueue<RecordedRequest>()

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                queries.add(request)
                if (stall) released.await(30, TimeUnit.SECONDS)
                val host = request.url.queryParameter("host") ?: ""
                val list = ips.joinToString(",") { "\"$it\"" }
                return MockResponse.Builder()
                    .body("""{"host":"$host","ips":[$list],"ttl":60,"origin_ttl":60}""")
                    .build()
            }
        }
        server.serverSocketFactory = NoDelayServerSocketFactory()
        server.start(InetAddress.getByName("127.0.0.1"), 0)
    }

    /** The port. */
    val port: Int get() = server.port

    /** Unblocks stalled queries. */
    fun release() = released.countDown()

    override fun close() {
        release()
        server.close()
    }
}

/** HTTPDNS config for `*.linekit.test` (loopback answers allowed) served by [dns] at [dnsHost]. */
fun httpDnsConfig(
    dns: HttpDnsServer,
    vararg lines: LineServer,
    dnsHost: String = "127.0.0.1",
    timeoutMs: Int = 3000,
): String {
    // A config needs a business line; without test lines, one on a closed port.
    val http = if (lines.isEmpty()) {
        """{"id":"idle","url":"http://127.0.0.1:9"}"""
    } else {
        lines.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }
    }
    val biz = ""","biz_lines":{"spot":{"match":["spot.example.test"],"http":[$http]}}"""
    return """
        {"version":1,"allow_cleartext":true,
         "thresholds":{"timeout_ms":$timeoutMs,"detect_jitter_ms":0},
         "httpdns":{"hosts":["*.linekit.test"],"allow_private":["*.linekit.test"],
           "providers":[{"id":"ali","format":"aliyun","url":"http://$dnsHost:${dns.port}/100000/d"}]}$biz}
    """.trimIndent()
}

/** `LineKitDns`, the connect results and the transport's HTTPDNS queries, through the real `.so`. */
class HttpDnsTest {
    private val dns = HttpDnsServer()
    private val origin = LineServer("origin")

    @AfterEach
    fun tearDown() {
        dns.close()
        origin.close()
    }

    private fun build(config: String = httpDnsConfig(dns)): LineKit =
        LineKit.Builder().configJson(config).build().also {
            // HTTPDNS is used only on a validated network without VPN/proxy/strict Private DNS.
            it.onNetworkChanged(1, validated = true)
        }

    private fun get(client: OkHttpClient, host: String) {
        client.newCall(Request.Builder().url("http://$host:${origin.port}/x").build()).execute().use {
            assertEquals(200, it.code)
            assertEquals("origin", it.body.string())
        }
        // The next call must plan a new connection (and so ask the Dns again).
        client.connectionPool.evictAll()
    }

    @Test
    fun `first lookup falls back to the delegate, later ones use the core's answer`() {
        build().use { kit ->
            val delegate = CountingDns()
            val client = OkHttpClient.Builder().lineKit(kit, delegate).build()
            get(client, "api.linekit.test")
            assertEquals(1, delegate.calls.get())
            assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") }, kit.stateJson())
            repeat(3) { get(client, "api.linekit.test") }
            assertEquals(1, delegate.calls.get(), "served by HTTPDNS after the first call")
            assertEquals(1, dns.queries.size, "one query, refreshes coalesced")
            val answer = kit.dns(delegate).lookup("api.linekit.test")
            assertEquals(listOf("127.0.0.1"), answer.map { it.hostAddress })
            assertEquals("api.linekit.test", answer[0].hostName, "no name lookup: the name is kept")
            // A host outside httpdns.hosts always goes to the delegate.
            assertThrows(UnknownHostException::class.java) { kit.dns(delegate).lookup("example.org") }
            assertEquals(2, delegate.calls.get())
        }
    }

    @Test
    fun `blank names are rejected and an empty delegate answer is an error`() {
        build().use { kit ->
            val empty = Dns { emptyList() }
            assertThrows(UnknownHostException::class.java) { kit.dns(empty).lookup("") }
            assertThrows(UnknownHostException::class.java) { kit.dns(empty).lookup("  ") }
            assertThrows(UnknownHostException::class.java) { kit.dns(empty).lookup("x.linekit.test") }
        }
    }

    @Test
    fun `HTTPDNS is bypassed behind a VPN`() {
        build().use { kit ->
            val delegate = CountingDns()
            kit.dns(delegate).lookup("api.linekit.test")
            assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") })
            kit.onNetworkChanged(1, validated = true, vpn = true)
            kit.dns(delegate).lookup("api.linekit.test")
            assertEquals(2, delegate.calls.get())
        }
    }

    @Test
    fun `a hanging HTTPDNS endpoint never delays a business request`() {
        dns.stall = true
        build(httpDnsConfig(dns, timeoutMs = 400)).use { kit ->
            val delegate = CountingDns()
            val client = OkHttpClient.Builder().lineKit(kit, delegate).build()
            val started = System.nanoTime()
            repeat(5) { get(client, "api.linekit.test") }
            val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            assertTrue(tookMs < 1_000, "5 business calls took $tookMs ms while HTTPDNS hangs")
            assertEquals(5, delegate.calls.get())
            assertTrue(eventually { dns.queries.isNotEmpty() })
            // The query times out at its deadline: the provider backs off, nothing is cached.
            val queried = System.nanoTime()
            assertTrue(eventually { kit.stateJson().contains("\"backoff_ms\":") && !kit.stateJson().contains("\"backoff_ms\":0") }, kit.stateJson())
            val backedOffMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queried)
            assertTrue(backedOffMs < 2_000, "timed out after $backedOffMs ms (deadline 400 ms)")
            assertFalse(kit.stateJson().contains("\"host\":\"api.linekit.test\""))
        }
    }

    @Test
    fun `a refused address is quarantined and ordered out of the next lookup`() {
        // 127.0.0.2 is loopback too, but nothing listens there: connects are refused.
        dns.ips = listOf("127.0.0.2", "127.0.0.1")
        build().use { kit ->
            val delegate = CountingDns()
            val client = OkHttpClient.Builder().lineKit(kit, delegate).build()
            kit.dns(delegate).lookup("api.linekit.test")
            assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") })
            assertEquals(listOf("127.0.0.2", "127.0.0.1"), kit.dns(delegate).lookup("api.linekit.test").map { it.hostAddress })
            get(client, "api.linekit.test") // 127.0.0.2 refused, 127.0.0.1 answers
            assertEquals(listOf("127.0.0.1"), kit.dns(delegate).lookup("api.linekit.test").map { it.hostAddress })
            assertEquals(1, delegate.calls.get())
        }
    }

    @Test
    fun `connect failures map to quarantine kinds`() {
        val e = FailureClassifier
        assertEquals(ConnectFailureKind.REFUSED, e.connectFailure(ConnectException("x"), false))
        assertEquals(ConnectFailureKind.NO_ROUTE, e.connectFailure(NoRouteToHostException("x"), false))
        assertEquals(ConnectFailureKind.TIMEOUT, e.connectFailure(SocketTimeoutException("x"), false))
        assertEquals(ConnectFailureKind.TLS, e.connectFailure(SSLHandshakeException("x"), false))
        assertEquals(ConnectFailureKind.CANCELLED_RACE, e.connectFailure(ConnectException("x"), true))
        assertNull(e.connectFailure(java.net.UnknownHostException("x"), false))
    }

    @Test
    fun `packed JNI answers decode and malformed ones are rejected`() {
        val keep = byteArrayOf(0, 1, 0, 2)
        val packed = keep + byteArrayOf(4, 10, 0, 0, 1) + byteArrayOf(16) + ByteArray(15) + byteArrayOf(1)
        val list = JniResolver.unpack("h.test", packed)!!
        assertEquals(listOf("10.0.0.1", "0:0:0:0:0:0:0:1"), list.map { it.hostAddress })
        assertTrue(list.all { it.hostName == "h.test" })
        assertEquals(65_538L, dev.linekit.internal.LookupAnswer.keepMs(packed))
        assertNull(JniResolver.unpack("h.test", keep))
        assertThrows(IllegalStateException::class.java) { JniResolver.unpack("h.test", keep + byteArrayOf(4, 1, 2)) }
        assertThrows(IllegalStateException::class.java) { JniResolver.unpack("h.test", keep + byteArrayOf(3, 1, 2, 3)) }
        assertThrows(IllegalStateException::class.java) { JniResolver.unpack("h.test", byteArrayOf(0, 0)) }
    }

    @Test
    fun `business client interceptors and Dns never see HTTPDNS traffic`() {
        // The provider is addressed by name: only the transport's bootstrap list knows it.
        val transport = OkHttpTransport(mapOf("dns.linekit.test" to listOf(InetAddress.getByName("127.0.0.1"))))
        try {
            LineKit.Builder()
                .configJson(httpDnsConfig(dns, dnsHost = "dns.linekit.test"))
                .transport(transport)
                .build().use { kit ->
                    kit.onNetworkChanged(1, validated = true)
                    val delegate = CountingDns()
                    val intercepted = AtomicInteger()
                    val client = OkHttpClient.Builder()
                        .addInterceptor(Interceptor { intercepted.incrementAndGet(); it.proceed(it.request()) })
                        .lineKit(kit, delegate)
                        .build()
                    get(client, "api.linekit.test")
                    assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") }, kit.stateJson())
                    assertEquals(1, dns.queries.size)
                    assertEquals("dns.linekit.test:${dns.port}", dns.queries.peek().headers["Host"])
                    // Only the one business call went through the business client.
                    assertEquals(1, intercepted.get())
                    assertEquals(1, delegate.calls.get())
                    assertTrue(client.dispatcher !== transport.client.dispatcher)
                    assertTrue(client.connectionPool !== transport.client.connectionPool)
                    assertTrue(transport.client.interceptors.isEmpty() && transport.client.networkInterceptors.isEmpty())
                    assertFalse(transport.client.followRedirects)
                }
        } finally {
            transport.close()
        }
    }
}
