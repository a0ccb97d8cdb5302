package dev.linekit

import dev.linekit.internal.ConnectFailureKind
import okhttp3.Call
import okhttp3.Connection
import okhttp3.EventListener
import okhttp3.Handshake
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.NoRouteToHostException
import java.net.Proxy
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import javax.net.ssl.SSLException

/**
 * Measures the phases of each attempt of ONE call (one instance per call, made by
 * [Factory]; never shared). Timestamps come from [System.nanoTime].
 *
 * The listener only measures; [LineKitInterceptor] drives the attempts and reports each
 * exactly once: it brackets every `chain.proceed` with [beginAttempt] / [endAttempt] and
 * asks [classify] for the outcome of a failed attempt. The interceptor finds this
 * listener through the call's tag (`call.tag(LineKitEventListener::class)`), set at
 * [callStart]. All events of a call arrive on the thread running the call's interceptor
 * chain, in order, so the fields need no locking.
 *
 * It also tells the engine how each connect to each address went (for the HTTPDNS
 * quarantine): [connectEnd] → succeeded, [connectFailed] → failed with the kind mapped by
 * [connectFailureOf]. Connects through a proxy are never reported (the address was never
 * tried), nor are connects to IP literals.
 */
class LineKitEventListener internal constructor(private val lineKit: LineKit? = null) : EventListener() {
    private var attemptStart = 0L
    private var dnsStart = 0L
    private var dnsNanos: Long? = null
    private var connectStart = 0L

    /** Start of each address's own connect (fast fallback races them on several threads). */
    private val addressStarts = java.util.concurrent.ConcurrentHashMap<InetSocketAddress, Long>(4)
    private var connectNanos: Long? = null
    private var secureStart = 0L
    private var tlsNanos: Long? = null
    private var requestSent = 0L
    private var ttfbNanos: Long? = null
    private var connectionAcquired = false

    override fun callStart(call: Call) {
        call.tag(LineKitEventListener::class) { this }
    }

    override fun dnsStart(call: Call, domainName: String) {
        dnsStart = System.nanoTime()
    }

    override fun dnsEnd(call: Call, domainName: String, inetAddressList: List<InetAddress>) {
        if (dnsStart != 0L) dnsNanos = System.nanoTime() - dnsStart
    }

    override fun connectStart(call: Call, inetSocketAddress: InetSocketAddress, proxy: Proxy) {
        // Several routes may be tried; the connect phase spans from the first start.
        val now = System.nanoTime()
        if (connectStart == 0L) connectStart = now
        addressStarts[inetSocketAddress] = now
    }

    override fun secureConnectStart(call: Call) {
        secureStart = System.nanoTime()
    }

    override fun secureConnectEnd(call: Call, handshake: Handshake?) {
        if (secureStart != 0L) tlsNanos = System.nanoTime() - secureStart
    }

    override fun connectEnd(call: Call, inetSocketAddress: InetSocketAddress, proxy: Proxy, protocol: Protocol?) {
        if (connectStart != 0L) connectNanos = System.nanoTime() - connectStart
        val kit = lineKit ?: return
        val started = addressStarts.remove(inetSocketAddress)
        val (host, ip) = direct(inetSocketAddress, proxy) ?: return
        if (started == null) {
            kit.resolver.connectSucceeded(host, ip)
        } else {
            kit.resolver.connectSucceeded(host, ip, (System.nanoTime() - started) / 1_000_000)
        }
    }

    override fun connectFailed(
        call: Call,
        inetSocketAddress: InetSocketAddress,
        proxy: Proxy,
        protocol: Protocol?,
        ioe: IOException,
    ) {
        addressStarts.remove(inetSocketAddress)
        val kit = lineKit ?: return
        val (host, ip) = direct(inetSocketAddress, proxy) ?: return
        val kind = connectFailureOf(call.isCanceled(), ioe) ?: return
        kit.resolver.connectFailed(host, ip, kind)
    }

    override fun connectionAcquired(call: Call, connection: Connection) {
        connectionAcquired = true
    }

    override fun requestHeadersEnd(call: Call, request: Request) {
        requestSent = System.nanoTime()
    }

    override fun requestBodyEnd(call: Call, byteCount: Long) {
        requestSent = System.nanoTime()
    }

    override fun responseHeadersStart(call: Call) {
        if (requestSent != 0L && ttfbNanos == null) ttfbNanos = System.nanoTime() - requestSent
    }

    override fun responseHeadersEnd(call: Call, response: Response) {
        if (requestSent != 0L && ttfbNanos == null) ttfbNanos = System.nanoTime() - requestSent
    }

    /** Starts measuring a new attempt of this call (called by the interceptor). */
    internal fun beginAttempt(now: Long) {
        attemptStart = now
        dnsStart = 0L
        dnsNanos = null
        connectStart = 0L
        connectNanos = null
        secureStart = 0L
        tlsNanos = null
        requestSent = 0L
        ttfbNanos = null
        connectionAcquired = false
    }

    /** The phases of the attempt begun last, ending at [now]. */
    internal fun endAttempt(now: Long): AttemptTimings =
        AttemptTimings(dnsNanos, connectNanos, tlsNanos, ttfbNanos, now - attemptStart)

    /** The outcome of the current attempt failing with [e] (see [classify]). */
    internal fun classify(call: Call, e: IOException): AttemptOutcome = classify(call, e, connectionAcquired)

    /**
     * Creates one [LineKitEventListener] per call. With [lineKit] the listeners also report
     * per-address connect results to it.
     */
    class Factory @JvmOverloads constructor(private val lineKit: LineKit? = null) : EventListener.Factory {
        override fun create(call: Call): EventListener = LineKitEventListener(lineKit)
    }

    /** Exception → outcome mapping. */
    companion object {
        /** `(host, address)` of a direct connect to a named host, or null (proxy, IP literal). */
        private fun direct(address: InetSocketAddress, proxy: Proxy): Pair<String, InetAddress>? {
            if (proxy.type() != Proxy.Type.DIRECT) return null
            val ip = address.address ?: return null
            // hostString never does a reverse lookup: the name Dns put into the address.
            val host = address.hostString
            if (host.isNullOrEmpty() || host == ip.hostAddress) return null
            return host to ip
        }

        /**
         * How a failed connect counts for the quarantine: refused / timeout / no route
         * (these quarantine the address), TLS, or a cancelled call's fast-fallback race
         * (never quarantines). Null for anything else (not reported).
         */
        internal fun connectFailureOf(cancelled: Boolean, e: IOException): ConnectFailureKind? = when {
            cancelled -> ConnectFailureKind.CANCELLED_RACE
            e is ConnectException -> ConnectFailureKind.REFUSED
            e is NoRouteToHostException -> ConnectFailureKind.NO_ROUTE
            e is SocketTimeoutException -> ConnectFailureKind.TIMEOUT
            e is SSLException -> ConnectFailureKind.TLS
            else -> null
        }

        /**
         * Maps a failed attempt to an outcome. [connected] says whether a connection was
         * acquired (it splits timeouts into connect vs read and resets into refused vs
         * read failures).
         */
        @JvmStatic
        fun classify(call: Call, e: IOException, connected: Boolean): AttemptOutcome = when {
            call.isCanceled() -> AttemptOutcome.CANCELLED
            e is UnknownHostException -> AttemptOutcome.DNS_FAILURE
            e is SSLException -> AttemptOutcome.TLS_FAILURE
            e is ConnectException || e is NoRouteToHostException -> AttemptOutcome.CONNECT_REFUSED
            e is SocketTimeoutException ->
                if (connected) AttemptOutcome.READ_TIMEOUT else AttemptOutcome.CONNECT_TIMEOUT
            e is InterruptedIOException -> AttemptOutcome.CANCELLED
            !connected -> AttemptOutcome.CONNECT_REFUSED
            else -> AttemptOutcome.READ_TIMEOUT
        }
    }
}
