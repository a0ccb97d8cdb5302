package dev.linekit

import dev.linekit.ffi.Outcome
import dev.linekit.ffi.WsEvent
import okhttp3.Interceptor
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import javax.net.ssl.SSLException

/**
 * The WebSocket half of [LineKitInterceptor]: one upgrade request, routed on the `ws`
 * pool, sent exactly once.
 *
 * A business line without `ws` lines gets an `unmanaged` decision, so the request goes
 * out unchanged (minus `X-Line-*`). When the request carries a [WsSession] (it came
 * from [LineKitWebSocket]) the route is recorded there and the listener reports the
 * handshake; a bare `client.newWebSocket` is reported here instead: 101 → open, any
 * other status or a transport error → handshake failure.
 */
internal object WsUpgrade {
    fun intercept(
        lineKit: LineKit,
        chain: Interceptor.Chain,
        base: Request,
        url: String,
        biz: String?,
        keepOriginal: Boolean,
        fixedHost: String?,
    ): Response {
        val decision = lineKit.router.route(url, base.method, biz, keepOriginal, fixedHost, true, emptyList())
            ?: return chain.proceed(base) // closed engine: pass through
        val tag = RouteTag(decision.reason, decision.biz, decision.line, 0, emptyList())
        val request = LineKitInterceptor.rewrite(base, decision, tag)
        val session = base.tag(WsSession::class)
        session?.route = tag
        val start = System.nanoTime()
        val response = try {
            chain.proceed(request)
        } catch (e: IOException) {
            val outcome = failureOutcome(e, chain.call().isCanceled())
            val took = System.nanoTime() - start
            if (session == null) report(lineKit, tag, WsEvent.HandshakeFailed(null, outcome.toFfi(), ms(took)))
            lineKit.attemptObserver?.invoke(Attempt(request, tag, outcome, null, timings(took), e))
            throw e
        }
        val took = System.nanoTime() - start
        val status = response.code
        if (session == null) {
            val event = if (status == 101) WsEvent.Open(ms(took)) else WsEvent.HandshakeFailed(status.toUShort(), null, ms(took))
            report(lineKit, tag, event)
        }
        lineKit.attemptObserver?.invoke(Attempt(request, tag, handshakeOutcome(status), status, timings(took), null))
        return response
    }

    private fun report(lineKit: LineKit, tag: RouteTag, event: WsEvent) {
        val biz = tag.biz ?: return
        val line = tag.line ?: return
        lineKit.reportWs(biz, line, event)
    }

    private fun timings(nanos: Long) = AttemptTimings(null, null, null, null, nanos)

    private fun ms(nanos: Long): ULong = (nanos.coerceAtLeast(0) / 1_000_000L).toULong()

    /** The attempt outcome of a handshake answered with [status] (as the core counts it). */
    fun handshakeOutcome(status: Int): AttemptOutcome = when (status) {
        101 -> AttemptOutcome.OK
        401, 403 -> AttemptOutcome.HTTP_4XX
        else -> AttemptOutcome.HTTP_5XX
    }

    /**
     * The outcome of a handshake that failed with [e] before any response: the socket
     * listener has no EventListener phases (OkHttp runs WebSocket calls without one), so
     * a timeout before the upgrade answer counts as a connect timeout.
     */
    fun failureOutcome(e: Throwable, cancelled: Boolean): AttemptOutcome = when {
        cancelled -> AttemptOutcome.CANCELLED
        e is UnknownHostException -> AttemptOutcome.DNS_FAILURE
        e is SSLException -> AttemptOutcome.TLS_FAILURE
        e is ConnectException || e is NoRouteToHostException -> AttemptOutcome.CONNECT_REFUSED
        e is SocketTimeoutException -> AttemptOutcome.CONNECT_TIMEOUT
        e is InterruptedIOException -> AttemptOutcome.CANCELLED
        e is IOException -> AttemptOutcome.CONNECT_REFUSED
        else -> AttemptOutcome.CANCELLED
    }

    /** The generated enum with the same meaning. */
    fun AttemptOutcome.toFfi(): Outcome = Outcome.entries[code]
}
