package dev.linekit

import okhttp3.Call
import okhttp3.Connection
import okhttp3.EventListener
import okhttp3.Handshake
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Proxy

/**
 * Measures the phases of each attempt of ONE call (one instance per call, made by
 * [Factory]; never shared). Timestamps come from [System.nanoTime].
 *
 * The listener only measures; [LineKitInterceptor] drives the attempts and reports each
 * exactly once: it brackets every `chain.proceed` with [beginAttempt] / [endAttempt] and
 * reads [connected] to classify a failed attempt ([FailureClassifier]). The interceptor finds this
 * listener through the call's tag (`call.tag(LineKitEventListener::class)`), set at
 * [callStart]. All events of a call arrive on the thread running the call's interceptor
 * chain, in order, so the fields need no locking.
 *
 * It also tells the engine how each connect to each address went (for the HTTPDNS
 * quarantine): [connectEnd] → succeeded, [connectFailed] → failed with the kind
 * [FailureClassifier.connectFailure] names. Connects through a proxy are never reported
 * (the address was never tried), nor are connects to IP literals.
 *
 * [Factory] chains an app's own listener factory: both listeners see every event.
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
        val kind = FailureClassifier.connectFailure(ioe, call.isCanceled()) ?: return
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

    /** Whether the current attempt acquired a connection (its request was being sent). */
    internal val connected: Boolean get() = connectionAcquired

    /**
     * Whether the current attempt took a connection from the pool (it acquired one without
     * connecting) and no response had begun on it: a failure now means the connection went
     * stale while idle ([FailureClassifier]).
     */
    internal val reusedBeforeResponse: Boolean
        get() = connectionAcquired && connectStart == 0L && ttfbNanos == null

    /**
     * Creates one [LineKitEventListener] per call. With [lineKit] the listeners also report
     * per-address connect results to it. With [chained] (an app's own factory, e.g. an APM
     * SDK's) each call also gets that factory's listener, and both see every event
     * (Linekit's first).
     */
    class Factory @JvmOverloads constructor(
        private val lineKit: LineKit? = null,
        /** The app's factory whose listeners also receive every event, if any. */
        val chained: EventListener.Factory? = null,
    ) : EventListener.Factory {
        override fun create(call: Call): EventListener {
            val ours = LineKitEventListener(lineKit)
            val theirs = chained?.create(call) ?: return ours
            return if (theirs === EventListener.NONE) ours else ours + theirs
        }
    }

    /** Helpers. */
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
    }
}
