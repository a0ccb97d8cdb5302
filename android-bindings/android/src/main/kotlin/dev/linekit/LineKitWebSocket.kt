package dev.linekit

import dev.linekit.ffi.core.WsEvent
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import okio.ByteString
import java.util.Random

/**
 * Opens WebSockets through Linekit: `OkHttpClient.newWebSocket` with a listener that
 * reports each connection's quality to the engine's `ws` pool and to [onReport].
 *
 * The upgrade request is routed by [LineKitInterceptor] on the business line's `ws` pool
 * (the client gets the interceptor if it lacks one). For every connection the listener
 * measures the handshake (call start → `onOpen`), the time to the first message, the
 * connection's duration, its close code and class, and how it failed (the handshake
 * status from `onFailure`'s response, DNS, TLS, connect, handshake timeout, ping timeout,
 * lost connection). It tells the engine: an open (latency = handshake time), a handshake
 * failure (a line fault unless the server answered 401/403), and the close — which counts
 * against the line only if it was abnormal, early (before `thresholds.ws_stable_ms`) and
 * not explained by a network change, the background ([LineKit.markBackground]) or the
 * app's own close. The app's listener sees every callback unchanged, with a [WebSocket]
 * whose `close`/`cancel` mark the drop as the app's own.
 *
 * [connect] adds reconnection with back-off ([ReconnectingWebSocket]). Thread-safe.
 *
 * @param lineKit the engine.
 * @param client the client to use (its `pingIntervalMillis` enables ping timeouts).
 * @param onReport receives one [WsConnectionReport] per connection when it ends; must be cheap.
 * @param clock monotonic time source (tests inject one).
 */
class LineKitWebSocket @JvmOverloads constructor(
    private val lineKit: LineKit,
    client: OkHttpClient,
    private val onReport: WsReportListener? = null,
    private val clock: WsClock = WsClock.SYSTEM,
) : WebSocket.Factory {
    private val client: OkHttpClient =
        if (client.interceptors.any { it is LineKitInterceptor }) {
            client
        } else {
            client.newBuilder().apply { interceptors().add(0, LineKitInterceptor(lineKit)) }.build()
        }

    /** Opens one WebSocket (no reconnection). */
    override fun newWebSocket(request: Request, listener: WebSocketListener): WebSocket = open(request, listener, null)

    /**
     * Opens a WebSocket that reconnects after it fails or is closed by the server, with
     * exponential back-off and jitter per [policy]. Each reconnect asks the engine again,
     * so after a line fault it lands on the next ranked `ws` line. [listener] sees the
     * callbacks of every connection in turn.
     *
     * @param scheduler runs the delayed reconnects (tests inject a virtual one).
     * @param random jitter source.
     */
    @JvmOverloads
    fun connect(
        request: Request,
        listener: WebSocketListener,
        policy: ReconnectPolicy = ReconnectPolicy(),
        scheduler: WsScheduler = WsScheduler.DEFAULT,
        random: Random = Random(),
    ): ReconnectingWebSocket {
        val stableMs = policy.stableMs ?: lineKit.wsStableMs()
        return ReconnectingWebSocket(this, request, listener, policy, scheduler, random, stableMs).also { it.start() }
    }

    /** Opens one connection; [onEnd] hears its report after the app's listener. */
    internal fun open(request: Request, listener: WebSocketListener, onEnd: ((WsConnectionReport) -> Unit)?): WebSocket {
        val session = WsSession()
        val tagged = request.newBuilder().tag(WsSession::class, session).build()
        val socket = TrackedWebSocket()
        val reporting = ReportingListener(lineKit, session, socket, listener, clock, onReport, onEnd)
        socket.attach(client.newWebSocket(tagged, reporting))
        return socket
    }
}

/** A monotonic time source for [LineKitWebSocket] and [ReconnectingWebSocket]. */
fun interface WsClock {
    /** Monotonic nanoseconds. */
    fun nanoTime(): Long

    /** The system clock. */
    companion object {
        /** [System.nanoTime]. */
        @JvmField
        val SYSTEM: WsClock = WsClock { System.nanoTime() }
    }
}

/** The socket handed to the app: remembers whether the app closed or cancelled it. */
internal class TrackedWebSocket : WebSocket {
    @Volatile
    private var real: WebSocket? = null

    @Volatile
    var closedByApp = false
        private set

    fun attach(socket: WebSocket) {
        if (real == null) real = socket
    }

    private fun socket(): WebSocket = checkNotNull(real) { "linekit: WebSocket not attached yet" }

    override fun request(): Request = socket().request()

    override fun queueSize(): Long = socket().queueSize()

    override fun send(text: String): Boolean = socket().send(text)

    override fun send(bytes: ByteString): Boolean = socket().send(bytes)

    override fun close(code: Int, reason: String?): Boolean {
        closedByApp = true
        return socket().close(code, reason)
    }

    override fun cancel() {
        closedByApp = true
        socket().cancel()
    }
}

/**
 * Measures and reports one connection, then forwards each callback to the app's
 * listener. OkHttp delivers the callbacks of one socket one at a time, but `onFailure`
 * may come from the writer thread, so the state is guarded by `this`.
 */
internal class ReportingListener(
    private val lineKit: LineKit,
    private val session: WsSession,
    private val socket: TrackedWebSocket,
    private val delegate: WebSocketListener,
    private val clock: WsClock,
    private val onReport: WsReportListener?,
    private val onEnd: ((WsConnectionReport) -> Unit)?,
) : WebSocketListener() {
    private val start = clock.nanoTime()
    private var openedAt: Long? = null
    private var handshakeMs: Long? = null
    private var firstMessageMs: Long? = null
    private var closingCode: Int? = null
    private var life = lineKit.wsSignals.snapshot()
    private var ended = false

    override fun onOpen(webSocket: WebSocket, response: Response) {
        socket.attach(webSocket)
        val now = clock.nanoTime()
        val handshake = ms(now - start)
        synchronized(this) {
            openedAt = now
            handshakeMs = handshake
            life = lineKit.wsSignals.snapshot()
        }
        report(WsEvent.Open(handshake.toULong()))
        delegate.onOpen(socket, response)
    }

    override fun onMessage(webSocket: WebSocket, text: String) {
        socket.attach(webSocket)
        heard()
        delegate.onMessage(socket, text)
    }

    override fun onMessage(webSocket: WebSocket, bytes: ByteString) {
        socket.attach(webSocket)
        heard()
        delegate.onMessage(socket, bytes)
    }

    /** A message arrived: the socket is alive on the current network. */
    private fun heard() {
        val first = synchronized(this) {
            life = lineKit.wsSignals.snapshot()
            val opened = openedAt
            if (firstMessageMs != null || opened == null) {
                null
            } else {
                ms(clock.nanoTime() - opened).also { firstMessageMs = it }
            }
        }
        if (first != null) report(WsEvent.FirstMessage(first.toULong()))
    }

    override fun onClosing(webSocket: WebSocket, code: Int, reason: String) {
        socket.attach(webSocket)
        synchronized(this) { closingCode = code }
        delegate.onClosing(socket, code, reason)
        // Answer the server's close frame if the app did not (RFC 6455 5.5.1).
        webSocket.close(1000, null)
    }

    override fun onClosed(webSocket: WebSocket, code: Int, reason: String) {
        socket.attach(webSocket)
        delegate.onClosed(socket, code, reason)
        end(code, null, null)
    }

    override fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) {
        socket.attach(webSocket)
        delegate.onFailure(socket, t, response)
        val opened = synchronized(this) { openedAt != null }
        if (!opened) {
            handshakeFailed(t, response)
        } else {
            val kind = when {
                socket.closedByApp -> WsFailureKind.CANCELLED
                FailureClassifier.classify(t, cancelled = false, connected = true) == AttemptOutcome.READ_TIMEOUT ->
                    WsFailureKind.PING_TIMEOUT
                else -> WsFailureKind.CONNECTION_LOST
            }
            end(synchronized(this) { closingCode } ?: ABNORMAL_CLOSE, kind, null)
        }
    }

    private fun handshakeFailed(t: Throwable, response: Response?) {
        val cost = ms(clock.nanoTime() - start)
        val status = response?.code
        val outcome = FailureClassifier.classify(t, socket.closedByApp, connected = null)
        val kind = if (status != null) {
            WsFailureKind.HANDSHAKE_STATUS
        } else {
            when (outcome) {
                AttemptOutcome.DNS_FAILURE -> WsFailureKind.DNS
                AttemptOutcome.TLS_FAILURE -> WsFailureKind.TLS
                AttemptOutcome.CONNECT_TIMEOUT, AttemptOutcome.READ_TIMEOUT -> WsFailureKind.HANDSHAKE_TIMEOUT
                AttemptOutcome.CANCELLED -> WsFailureKind.CANCELLED
                else -> WsFailureKind.CONNECT
            }
        }
        val cause = cause()
        when {
            // The server answered: that says something about the line whatever the app knew.
            status != null -> report(WsEvent.HandshakeFailed(status.toUShort(), null, cost.toULong()))
            cause == WsDropCause.REMOTE -> report(WsEvent.HandshakeFailed(null, outcome.code.toUByte(), cost.toULong()))
        }
        end(null, kind, status)
    }

    private fun cause(): WsDropCause {
        val since = synchronized(this) { life }
        return when {
            socket.closedByApp -> WsDropCause.LOCAL
            lineKit.wsSignals.backgroundSince(since) -> WsDropCause.BACKGROUND
            lineKit.wsSignals.networkChangedSince(since) -> WsDropCause.NETWORK_CHANGED
            else -> WsDropCause.REMOTE
        }
    }

    /** Reports the end of the connection once: [code] is null when it never opened. */
    private fun end(code: Int?, failure: WsFailureKind?, handshakeStatus: Int?) {
        val now = clock.nanoTime()
        val cause = cause()
        val record = synchronized(this) {
            if (ended) return
            ended = true
            val opened = openedAt
            WsConnectionReport(
                biz = session.route?.biz,
                line = session.route?.line,
                handshakeMs = handshakeMs,
                firstMessageMs = firstMessageMs,
                durationMs = opened?.let { ms(now - it) },
                closeCode = if (opened != null) code else null,
                closeClass = if (opened != null && code != null) WsCloseClass.of(code) else null,
                failure = failure,
                handshakeStatus = handshakeStatus,
                cause = cause,
            )
        }
        val duration = record.durationMs
        val closeCode = record.closeCode
        if (duration != null && closeCode != null) {
            report(WsEvent.Closed(closeCode.toUShort(), duration.toULong(), cause.code.toUByte()))
        }
        onEnd?.invoke(record) // the reconnect state first, so the app sees it settled
        onReport?.onReport(record)
    }

    private fun report(event: WsEvent) {
        val route = session.route ?: return
        val biz = route.biz ?: return
        val line = route.line ?: return
        lineKit.reportWs(biz, line, event)
    }

    private fun ms(nanos: Long): Long = nanos.coerceAtLeast(0) / 1_000_000L

    private companion object {
        /** Dropped without a close frame (RFC 6455 7.1.5). */
        const val ABNORMAL_CLOSE = 1006
    }
}
