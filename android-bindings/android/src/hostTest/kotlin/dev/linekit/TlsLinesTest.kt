package dev.linekit

import okhttp3.CertificatePinner
import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import okhttp3.tls.HeldCertificate
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.net.BindException
import java.net.SocketTimeoutException
import java.security.cert.X509Certificate
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit
import javax.net.ssl.SSLException
import javax.net.ssl.SSLHandshakeException
import javax.net.ssl.SSLPeerUnverifiedException

/**
 * HTTPS end to end: every line speaks TLS with a certificate of its own host (one test CA
 * that the client trusts), and the client reaches the lines by name through a resolver
 * that maps line hosts to loopback. A rewritten request keeps the line's host name, so the
 * line's certificate is checked against it; a line whose certificate fails (expired, for
 * another host, self-signed, not matching a pin) or whose handshake stalls is a line
 * fault like any other, and nothing ever goes out without TLS.
 */
class TlsLinesTest {
    private val opened = mutableListOf<AutoCloseable>()
    private val attempts = ConcurrentLinkedQueue<Attempt>()
    private val trace = ConcurrentLinkedQueue<String>()
    private val dns = LoopbackDns()

    @AfterEach
    fun tearDown() {
        opened.reversed().forEach { it.close() }
    }

    private fun <T : AutoCloseable> T.closing(): T = also { opened.add(it) }

    /** Line [name] on `NAME.linekit.test` (resolving to 127.0.0.1), presenting [cert]. */
    private fun line(name: String, cert: HeldCertificate = TestCa.leaf("$name.linekit.test")): TlsLine {
        val host = "$name.linekit.test"
        dns.map(host, "127.0.0.1")
        return TlsLine(name, host, cert).closing()
    }

    private fun kit(vararg lines: Pair<String, String>, maxRetries: Int = 1): LineKit =
        LineKit.Builder()
            .configJson(tlsSpotConfig(*lines, maxRetries = maxRetries, sampleRate = 1.0))
            .transport(null)
            .onAttempt { attempts.add(it) }
            .traceSink { trace.add(it) }
            .build()
            .closing()

    private fun client(kit: LineKit, configure: OkHttpClient.Builder.() -> Unit = {}): OkHttpClient =
        OkHttpClient.Builder().dns(dns).trustingTestCa().apply(configure).lineKit(kit).build()

    private fun get(client: OkHttpClient): okhttp3.Response =
        client.newCall(Request.Builder().url("https://api.linekit.test/quote").build()).execute()

    /** Trace events of [kind] on line [line]. */
    private fun events(kind: String, line: String): List<String> =
        trace.filter { it.contains("\"kind\":\"$kind\"") && it.contains("\"line\":\"$line\"") }

    private fun assertBreakerOpened(line: String) {
        assertTrue(events("breaker", line).any { it.contains("\"breaker\":\"open\"") }, "breaker of $line: $trace")
    }

    /** The host names a certificate covers. */
    private fun namesOf(cert: java.security.cert.Certificate): List<String> =
        (cert as X509Certificate).subjectAlternativeNames.orEmpty().map { it[1].toString() }

    @Test
    fun `a rewritten request goes to the line host by name and verifies that host's certificate`() {
        val a = line("a")
        val b = line("b")
        val client = client(kit("a" to a.origin, "b" to b.origin))
        get(client).use { response ->
            assertEquals("a", response.body.string())
            // The URL names the line's host: never an IP literal.
            assertEquals("a.linekit.test", response.request.url.host)
            assertEquals("https", response.request.url.scheme)
            assertEquals(listOf("a.linekit.test"), namesOf(response.handshake!!.peerCertificates.first()))
        }
        val seen = a.received.single()
        assertEquals(listOf("a.linekit.test"), seen.handshakeServerNames, "SNI names the line host")
        assertEquals("a.linekit.test", seen.headers["Host"]?.substringBefore(':'))
        assertEquals(listOf("a.linekit.test"), dns.lookups.toList(), "resolved by name, as the line")
        assertTrue(b.received.isEmpty())
        assertEquals(listOf(AttemptOutcome.OK), attempts.map { it.outcome })
    }

    @Test
    fun `a certificate for the logical host does not pass on a line host`() {
        // Line a presents a certificate valid for the host the app asked for, not for a's
        // own host: it must fail, or verification was made against the logical host.
        val a = line("a", TestCa.leaf("api.linekit.test"))
        val b = line("b")
        val client = client(kit("a" to a.origin, "b" to b.origin))
        get(client).use { assertEquals("b", it.body.string()) }
        assertFirstAttemptUnverified(a) { it.contains("Hostname a.linekit.test not verified") }
    }

    /**
     * The first attempt went to [line] and failed certificate verification (an
     * [SSLPeerUnverifiedException] whose message passes [message]), and nothing was sent
     * to [line].
     */
    private fun assertFirstAttemptUnverified(line: TlsLine, message: (String) -> Boolean) {
        val failed = attempts.first()
        assertEquals(line.name, failed.route.line)
        assertEquals(AttemptOutcome.TLS_FAILURE, failed.outcome)
        assertTrue(failed.error is SSLPeerUnverifiedException, failed.error.toString())
        val text = failed.error!!.message!!
        assertTrue(message(text), text)
        assertTrue(line.received.isEmpty(), "nothing was sent to ${line.name}")
    }

    /** Certificates a line may present that no client may accept. */
    enum class BadCertificate(val make: (String) -> HeldCertificate) {
        EXPIRED({ TestCa.expired(it) }),
        WRONG_HOST({ TestCa.leaf("other.linekit.test") }),
        SELF_SIGNED({ TestCa.selfSigned(it) }),
    }

    @ParameterizedTest
    @EnumSource(BadCertificate::class)
    fun `a bad certificate is a tls_failure line fault - the GET moves within the call and the breaker opens`(bad: BadCertificate) {
        val a = line("a", bad.make("a.linekit.test"))
        val b = line("b")
        val client = client(kit("a" to a.origin, "b" to b.origin))
        get(client).use { assertEquals("b", it.body.string(), "answered by b within the call") }
        val list = attempts.toList()
        assertEquals(listOf("a", "b"), list.map { it.route.line })
        assertEquals(listOf(AttemptOutcome.TLS_FAILURE, AttemptOutcome.OK), list.map { it.outcome })
        assertTrue(list[0].error is SSLException, list[0].error.toString())
        assertTrue(a.received.isEmpty(), "no request went to a")
        assertEquals(1, a.accepted.get(), "one handshake on a: no retry there, no downgrade")
        assertTrue(events("report", "a").any { it.contains("\"outcome\":\"tls_failure\"") }, trace.toString())
        assertBreakerOpened("a")
        // The breaker keeps a out: the next call starts on b.
        get(client).use { assertEquals("b", it.body.string()) }
        assertEquals("b", attempts.last().route.line)
        assertEquals(0, attempts.last().route.attempt)
        assertEquals(1, a.accepted.get())
    }

    @Test
    fun `a POST without an idempotency key is not sent to another line after a TLS failure, a keyed one is`() {
        val json = "application/json".toMediaType()
        val a = line("a", TestCa.expired("a.linekit.test"))
        val b = line("b")
        val client = client(kit("a" to a.origin, "b" to b.origin))
        val post = Request.Builder().url("https://api.linekit.test/order").post("""{"n":1}""".toRequestBody(json)).build()
        assertThrows(SSLHandshakeException::class.java) { client.newCall(post).execute().close() }
        assertTrue(b.received.isEmpty(), "an unkeyed POST stays on its line")
        assertEquals(listOf("a"), attempts.map { it.route.line })

        // A fresh engine (a's breaker closed again): with a key the same POST moves to b.
        attempts.clear()
        val keyedClient = client(kit("a" to a.origin, "b" to b.origin))
        val keyed = post.newBuilder().header("Idempotency-Key", "k-1").post("""{"n":2}""".toRequestBody(json)).build()
        keyedClient.newCall(keyed).execute().use { assertEquals("b", it.body.string()) }
        assertEquals(listOf("a", "b"), attempts.map { it.route.line })
        assertEquals(listOf("""{"n":2}"""), b.received.map { it.body!!.utf8() })
    }

    @Test
    fun `no insecure fallback - when every line fails TLS the call fails and nothing is sent`() {
        val a = line("a", TestCa.expired("a.linekit.test"))
        val b = line("b", TestCa.selfSigned("b.linekit.test"))
        val client = client(kit("a" to a.origin, "b" to b.origin))
        val e = assertThrows(SSLException::class.java) { get(client).close() }
        assertTrue(e is SSLHandshakeException, e.toString())
        assertEquals(listOf("a", "b"), attempts.map { it.route.line })
        assertTrue(attempts.all { it.outcome == AttemptOutcome.TLS_FAILURE }, attempts.toString())
        assertTrue(attempts.all { it.request.url.scheme == "https" && it.request.url.host.endsWith(".linekit.test") }, attempts.toString())
        assertTrue(a.received.isEmpty() && b.received.isEmpty(), "no request reached a server")
        assertEquals(1, a.accepted.get(), "one handshake per attempt")
        assertEquals(1, b.accepted.get(), "one handshake per attempt")
        // Both breakers are open now: the next call still goes over TLS to a line, and fails.
        assertThrows(SSLException::class.java) { get(client).close() }
        assertTrue(attempts.all { it.request.url.scheme == "https" })
        assertTrue(a.received.isEmpty() && b.received.isEmpty())
    }

    @Test
    fun `a stalled TLS handshake ends at the socket timeout the client set and moves the call`() {
        val silent = SilentTlsLine("a.linekit.test").closing()
        dns.map("a.linekit.test", "127.0.0.1")
        val b = line("b")
        val client = client(kit("a" to silent.origin, "b" to b.origin)) {
            connectTimeout(CONNECT_MS, TimeUnit.MILLISECONDS)
            readTimeout(READ_MS, TimeUnit.MILLISECONDS)
        }
        val (tookMs, result) = timed { get(client).use { it.body.string() } }
        assertEquals("b", result.getOrThrow(), "answered by b within the call")
        val stalled = attempts.first()
        assertEquals("a", stalled.route.line)
        assertEquals(1, silent.accepted.get(), "TCP connected: the ClientHello went unanswered")
        assertTrue(stalled.error is SocketTimeoutException, stalled.error.toString())
        // Connect-phase failure (no connection was acquired): a line fault.
        assertEquals(AttemptOutcome.CONNECT_TIMEOUT, stalled.outcome)
        assertTrue(stalled.timings.connectNanos == null, "the connect never completed")
        // OkHttp sets the socket's read timeout before connecting, so the handshake's
        // reads wait the read timeout, not the connect timeout (which only bounds the
        // TCP handshake): the stall lasts READ_MS, never less, and not much more.
        val stalledMs = TimeUnit.NANOSECONDS.toMillis(stalled.timings.totalNanos)
        assertTrue(stalledMs >= READ_MS, "stalled $stalledMs ms")
        assertTrue(stalledMs < READ_MS + SLACK_MS, "stalled $stalledMs ms")
        assertTrue(tookMs < READ_MS + SLACK_MS, "the call took $tookMs ms")
        assertBreakerOpened("a")
    }

    @Test
    fun `a stalled TLS handshake is waited out once per address of the line host`() {
        // a.linekit.test has two addresses, both silent on the same port.
        val first = SilentTlsLine("a.linekit.test").closing()
        val second = SilentTlsLine("a.linekit.test", bind = "127.0.0.2", port = first.port).closing()
        dns.map("a.linekit.test", "127.0.0.1", "127.0.0.2")
        val b = line("b")
        val client = client(kit("a" to first.origin, "b" to b.origin)) {
            connectTimeout(CONNECT_MS, TimeUnit.MILLISECONDS)
            readTimeout(READ_MS, TimeUnit.MILLISECONDS)
        }
        get(client).use { assertEquals("b", it.body.string()) }
        val stalled = attempts.first()
        assertEquals(AttemptOutcome.CONNECT_TIMEOUT, stalled.outcome)
        assertEquals(1, first.accepted.get())
        assertEquals(1, second.accepted.get(), "OkHttp tried the next address after the first stalled")
        val stalledMs = TimeUnit.NANOSECONDS.toMillis(stalled.timings.totalNanos)
        assertTrue(stalledMs >= 2 * READ_MS, "stalled $stalledMs ms")
        assertTrue(stalledMs < 2 * READ_MS + SLACK_MS, "stalled $stalledMs ms")
    }

    @Test
    fun `a call timeout bounds a stalled TLS handshake on every line`() {
        val silentA = SilentTlsLine("a.linekit.test").closing()
        val silentB = SilentTlsLine("b.linekit.test").closing()
        dns.map("a.linekit.test", "127.0.0.1").map("b.linekit.test", "127.0.0.1")
        val client = client(kit("a" to silentA.origin, "b" to silentB.origin)) {
            readTimeout(10_000, TimeUnit.MILLISECONDS)
            callTimeout(CALL_MS, TimeUnit.MILLISECONDS)
        }
        val (tookMs, result) = timed { get(client).close() }
        assertTrue(result.exceptionOrNull() is java.io.InterruptedIOException, result.toString())
        assertTrue(tookMs >= CALL_MS && tookMs < CALL_MS + SLACK_MS, "took $tookMs ms")
        // The call timeout cancels the call: not held against the line, not retried.
        assertEquals(listOf("a"), attempts.map { it.route.line })
        assertEquals(AttemptOutcome.CANCELLED, attempts.single().outcome)
        assertEquals(0, silentB.accepted.get())
    }

    @Test
    fun `a CertificatePinner mismatch on one line moves traffic to the next and is reported`() {
        val a = line("a")
        val bCert = TestCa.leaf("b.linekit.test")
        val b = line("b", bCert)
        // The app pins its line hosts to b's key: a presents a valid certificate with another key.
        val pins = CertificatePinner.Builder().add("*.linekit.test", CertificatePinner.pin(bCert.certificate)).build()
        val client = client(kit("a" to a.origin, "b" to b.origin)) { certificatePinner(pins) }
        get(client).use { assertEquals("b", it.body.string()) }
        assertFirstAttemptUnverified(a) { it.startsWith("Certificate pinning failure!") }
        assertTrue(events("report", "a").any { it.contains("\"outcome\":\"tls_failure\"") }, trace.toString())
        assertBreakerOpened("a")
        get(client).use { assertEquals("b", it.body.string()) }
        assertEquals(listOf("a", "b", "b"), attempts.map { it.route.line })
    }

    @Test
    fun `pins apply to the line host a request went to, not to the logical host`() {
        val a = line("a")
        // A pin on the logical host with a key no line has: no connection is to that host.
        val wrong = CertificatePinner.pin(TestCa.leaf("api.linekit.test").certificate)
        val pins = CertificatePinner.Builder().add("api.linekit.test", wrong).build()
        val client = client(kit("a" to a.origin)) { certificatePinner(pins) }
        get(client).use { assertEquals("a", it.body.string()) }
        assertEquals(listOf(AttemptOutcome.OK), attempts.map { it.outcome })
    }

    /**
     * An HTTP/2 server answering for both line hosts with one wildcard certificate: 503 for
     * `a.linekit.test` (a line fault), 200 for any other host.
     */
    private fun sharedLine(name: String, bind: String = "127.0.0.1", port: Int = 0): TlsLine = TlsLine(
        name, "*.linekit.test", TestCa.leaf("*.linekit.test"),
        protocols = listOf(Protocol.HTTP_2, Protocol.HTTP_1_1), bind = bind, port = port,
        statusOf = { if (it.url.host == "a.linekit.test") 503 else 200 },
    ).closing()

    @Test
    fun `HTTP 2 coalescing reuses a connection only when the chosen line's host resolves to its address`() {
        // Lines a and b share one address and a wildcard certificate.
        val shared = sharedLine("shared")
        dns.map("a.linekit.test", "127.0.0.1").map("b.linekit.test", "127.0.0.1")
        val client = client(kit("a" to "https://a.linekit.test:${shared.port}", "b" to "https://b.linekit.test:${shared.port}"))
        get(client).use {
            assertEquals(200, it.code)
            assertEquals(Protocol.HTTP_2, it.protocol)
            assertEquals("b.linekit.test", it.request.url.host)
        }
        assertEquals(listOf("a", "b"), attempts.map { it.route.line })
        assertEquals(listOf(AttemptOutcome.HTTP_5XX, AttemptOutcome.OK), attempts.map { it.outcome })
        val (first, second) = shared.received.toList()
        assertEquals("a.linekit.test", first.url.host)
        assertEquals("b.linekit.test", second.url.host, "the retry names b's host")
        assertEquals(first.connectionIndex, second.connectionIndex, "coalesced onto a's connection")
        assertEquals(1, shared.accepted.get())
        // OkHttp resolved b first: the connection's address is one of b's own addresses.
        assertEquals(listOf("a.linekit.test", "b.linekit.test"), dns.lookups.toList())
    }

    @Test
    fun `HTTP 2 coalescing never carries a request to another line's server`() {
        // Same port, same wildcard certificate, different addresses: a on 127.0.0.1, b on 127.0.0.2.
        val (serverA, serverB) = sameport()
        dns.map("a.linekit.test", "127.0.0.1").map("b.linekit.test", "127.0.0.2")
        val port = serverA.port
        val client = client(kit("a" to "https://a.linekit.test:$port", "b" to "https://b.linekit.test:$port"))
        get(client).use { assertEquals("B", it.body.string(), "answered by b's own server") }
        assertEquals(listOf("a", "b"), attempts.map { it.route.line })
        assertEquals(listOf("a.linekit.test"), serverA.received.map { it.url.host })
        assertEquals(listOf("b.linekit.test"), serverB.received.map { it.url.host })
        assertEquals(1, serverB.accepted.get(), "b got its own connection")
        get(client).use { assertEquals("B", it.body.string()) }
        assertEquals(1, serverA.received.size)
    }

    /** Two [sharedLine] servers on one port: `A` on 127.0.0.1, `B` on 127.0.0.2. */
    private fun sameport(): Pair<TlsLine, TlsLine> {
        repeat(10) {
            val first = sharedLine("A")
            try {
                return first to sharedLine("B", bind = "127.0.0.2", port = first.port)
            } catch (_: BindException) {
                first.close()
            }
        }
        error("no port free on both 127.0.0.1 and 127.0.0.2")
    }

    @Test
    fun `the test client trusts the test CA only`() {
        // Guards every test above: a default client (platform CAs) refuses the lines, so a
        // pass above is the test CA's certificate checked, not verification switched off.
        val a = line("a")
        val plain = OkHttpClient.Builder().dns(dns).build()
        assertThrows(SSLHandshakeException::class.java) {
            plain.newCall(Request.Builder().url("${a.origin}/quote").build()).execute().close()
        }
        assertTrue(a.received.isEmpty(), "nothing was sent over the refused handshake")
    }

    private companion object {
        const val CONNECT_MS = 150L
        const val READ_MS = 600L
        const val CALL_MS = 700L

        /** Scheduling slack on a loaded 2-core machine: generous, and only ever an upper bound. */
        const val SLACK_MS = 2_000L
    }
}
