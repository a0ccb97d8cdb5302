package dev.linekit

import dev.linekit.ffi.core.WsEvent
import okhttp3.Interceptor
import okhttp3.Request
import okhttp3.Response
import java.io.IOException

/**
 * The WebSocket half of [LineKitInterceptor]: one upgrade request, routed on the `ws`
 * pool, sent exactly once.
 *
 * A business line without `ws` lines gets an `unmanaged` decision, so the request goes
 * out unchanged (minus `X-Line-*`). When the request carries a [WsSession] (it came
 * from [LineKitWebSocket]) the route is recorded there and the listener reports the
 * handshake; a bare `client.newWebSocket` is reported here instead: 101 → open, any
 * other status or a transport error → handshake failure. What either means for the line
 * (and the outcome the attempt observer sees) is the core's answer.
 */
internal object WsUpgrade {
    fun intercept(
        lineKit: LineKit,
        chain: Interceptor.Chain,
        base: Request,
        url: String,
        routeHeaders: String?,
    ): Response {
        val decision = lineKit.router.route(url, base.method, routeHeaders, true, emptyList())
            ?: return chain.proceed(base) // closed engine: pass through
        val tag = RouteTag(decision.reason, decision.biz, decision.line, 0, emptyList(), mode = decision.mode, wouldReason = decision.wouldReason, wouldLine = decision.wouldLine)
        val request = LineKitInterceptor.rewrite(base, decision, tag)
        val session = base.tag(WsSession::class)
        session?.route = tag
        val start = System.nanoTime()
        val response = try {
            chain.proceed(request)
        } catch (e: IOException) {
            val outcome = FailureClassifier.classify(e, chain.call().isCanceled(), connected = null)
            val took = System.nanoTime() - start
            val event = WsEvent.HandshakeFailed(null, outcome.code.toUByte(), ms(took))
            val recorded = if (session == null) report(lineKit, tag, event) else null
            lineKit.attemptObserver?.onAttempt(Attempt(request, tag, recorded ?: outcome, null, timings(took), e))
            throw e
        }
        val took = System.nanoTime() - start
        val status = response.code
        val event = if (status == 101) WsEvent.Open(ms(took)) else WsEvent.HandshakeFailed(status.toUShort(), null, ms(took))
        // The core says what the handshake result means for the line.
        val recorded = if (session == null) report(lineKit, tag, event) else lineKit.wsEventOutcome(event)
        if (recorded != null) {
            lineKit.attemptObserver?.onAttempt(Attempt(request, tag, recorded, status, timings(took), null))
        }
        return response
    }

    private fun report(lineKit: LineKit, tag: RouteTag, event: WsEvent): AttemptOutcome? {
        val biz = tag.biz ?: return lineKit.wsEventOutcome(event)
        val line = tag.line ?: return lineKit.wsEventOutcome(event)
        return lineKit.reportWs(biz, line, event)
    }

    private fun timings(nanos: Long) = AttemptTimings(null, null, null, null, nanos)

    private fun ms(nanos: Long): ULong = (nanos.coerceAtLeast(0) / 1_000_000L).toULong()
}
