package dev.linekit

import dev.linekit.internal.Router
import okhttp3.Interceptor
import okhttp3.Request
import okhttp3.Response
import java.io.EOFException
import java.io.IOException

/**
 * Puts each request on a line: the first application interceptor of a client built with
 * `OkHttpClient.Builder.lineKit(lineKit)`.
 *
 * For every attempt it asks the engine for a route (handing it the request's `X-Line-*`
 * and idempotency-key headers, which the core reads), applies the parts the decision
 * changed to the request's parsed URL (scheme/host/port, plus a path prefix for converged
 * hosts; path, query, method, body and other headers stay as they are), removes every
 * `X-Line-*` header and tags the request with a [RouteTag]. After
 * the attempt it reports the outcome once — a failure as [FailureClassifier] names it, a
 * response by its status — with the timings the call's [LineKitEventListener] measured,
 * and the engine answers whether that was a line fault.
 *
 * Stale connections: a connection reused from the pool that breaks before the response
 * begins went stale while idle (a server's keep-alive timeout, a NAT, a network change,
 * which stales every line's pooled connections at once). The core counts it against no
 * line and answers that the attempt may be resent: a request that may be replayed is sent
 * again on the same line, not counted as a try, once per idle connection left in the pool
 * (each may be stale too) and once more for the new connection after them ([StaleResend]). This
 * is OkHttp's own silent retry of stale connections, kept when an app turns
 * `retryOnConnectionFailure` off so that OkHttp never re-sends a POST.
 *
 * In-call failover: after a line fault it retries on the next line, excluding the lines
 * already tried, up to the route answer's retries — `thresholds.max_retries`, or 0 when the
 * core's replay rule says the request may not be sent twice (a method that is not
 * idempotent without an idempotency key, or a one-shot body) — never once the call is
 * cancelled or its call timeout fired.
 * Line faults include failures after the request was sent: a stall past the read timeout,
 * a reset, a response cut off early.
 *
 * Bodies: for a request that may be retried on a line whose response declares a length up to
 * `thresholds.buffer_body_max_bytes`, the whole body is read before the call returns, so a
 * short or broken body is a line fault retried on the next line. Any other body is handed
 * over as it streams, watched: a read failure in the app's hands is reported to the line
 * (with the time since the attempt started), though the call can no longer move.
 *
 * WebSocket upgrades (`Upgrade: websocket`, what `OkHttpClient.newWebSocket` sends) are
 * routed on the business line's `ws` pool and sent once: never retried on another line
 * here — reconnecting is the WebSocket listener's decision ([LineKitWebSocket]).
 *
 * It also notes the call's client ([BusinessPool]): the engine warms a line's connection
 * on that client's pool before traffic moves there.
 */
class LineKitInterceptor(internal val lineKit: LineKit) : Interceptor {
    override fun intercept(chain: Interceptor.Chain): Response {
        val call = chain.call()
        if (lineKit.businessPool.seen(call)) lineKit.router.businessPoolSeen()
        val original = chain.request()
        val routeHeaders = LineHeaders.routeHeadersOf(original.headers)
        val base = if (routeHeaders != null) stripPrivate(original) else original
        val url = original.url.toString()
        if (original.header("Upgrade")?.equals("websocket", ignoreCase = true) == true) {
            return WsUpgrade.intercept(lineKit, chain, base, url, routeHeaders)
        }
        val router = lineKit.router
        val listener = call.tag(LineKitEventListener::class)
        val oneShotBody = original.body?.isOneShot() == true

        var excluded: List<String> = emptyList()
        var attempt = 0
        var resends = 0
        var resendBudget = -1
        // The mode of the first attempt: retries are routed under it (a config that changes
        // the business line's mode applies from the next call).
        var callMode: RolloutMode? = null
        while (true) {
            val decision = router.route(url, original.method, routeHeaders, false, excluded, oneShotBody, callMode = callMode)
                ?: return chain.proceed(base) // closed engine: pass through
            if (callMode == null) callMode = decision.mode
            val tag = RouteTag(decision.reason, decision.biz, decision.line, attempt, excluded, decision.versionMismatch, decision.mode, decision.wouldReason, decision.wouldLine)
            if (tag.versionMismatch) lineKit.versionMismatchListener?.onVersionMismatch(tag)
            val request = rewrite(base, decision, tag)
            val start = System.nanoTime()
            listener?.beginAttempt(start)
            var response = try {
                chain.proceed(request)
            } catch (e: IOException) {
                val outcome = FailureClassifier.classify(e, call.isCanceled(), listener?.connected, listener?.reusedBeforeResponse == true)
                val verdict = report(request, decision, tag, outcome, null, listener, start, e)
                if (verdict?.resend == true) {
                    if (resendBudget < 0) resendBudget = StaleResend.budget(call)
                    if (mayResend(decision, resends, resendBudget, call)) {
                        resends++
                        continue
                    }
                }
                if ((verdict?.lineFault == true || verdict?.resend == true) && mayRetry(decision, attempt, call)) {
                    excluded = excluded + decision.line!!
                    attempt++
                    continue
                }
                throw e
            }
            val timings = timings(listener, start)
            val status = response.code
            val buffered = decision.line != null && decision.maxRetries > 0 && bufferable(request, response, decision.bufferBodyMaxBytes)
            if (buffered) {
                try {
                    readWholeBody(response)
                } catch (e: IOException) {
                    response.close()
                    val outcome = FailureClassifier.classify(e, call.isCanceled(), connected = true)
                    val verdict = report(request, decision, tag, outcome, null, listener, start, e, timings(listener, start))
                    if (verdict?.lineFault == true && mayRetry(decision, attempt, call)) {
                        excluded = excluded + decision.line!!
                        attempt++
                        continue
                    }
                    throw e
                }
            }
            val version = decision.versionHeader?.let { response.header(it) }
            val verdict = report(request, decision, tag, null, status, listener, start, null, timings, version)
            if (verdict?.lineFault == true && mayRetry(decision, attempt, call)) {
                response.close()
                excluded = excluded + decision.line!!
                attempt++
                continue
            }
            if (!buffered && decision.line != null && request.method != "HEAD" && response.body.contentLength() != 0L) {
                response = WatchedBody.wrap(response) { e ->
                    val outcome = FailureClassifier.classify(e, call.isCanceled(), connected = true)
                    if (outcome != AttemptOutcome.CANCELLED) {
                        val body = AttemptTimings(null, null, null, null, System.nanoTime() - start)
                        router.report(decision, false, outcome, null, body)
                    }
                }
            }
            return response
        }
    }

    /**
     * Whether an attempt the core says may be resent (a stale pooled connection) is sent
     * again on the same line: only a request that may be replayed (the answer carries
     * retries), within the call's [StaleResend.budget]. Past that, it moves like a line
     * fault ([mayRetry]).
     */
    private fun mayResend(decision: RouteDecision, resends: Int, budget: Int, call: okhttp3.Call): Boolean =
        decision.line != null && decision.maxRetries > 0 && !call.isCanceled() && resends < budget

    /**
     * Whether a line fault on this attempt may move the call to another line (the answer's
     * retries are 0 when the core's replay rule forbids sending the request again).
     */
    private fun mayRetry(decision: RouteDecision, attempt: Int, call: okhttp3.Call): Boolean =
        decision.line != null && attempt < decision.maxRetries && !call.isCanceled()

    private fun timings(listener: LineKitEventListener?, start: Long): AttemptTimings {
        val end = System.nanoTime()
        return listener?.endAttempt(end) ?: AttemptTimings(null, null, null, null, end - start)
    }

    /** Reports one attempt of [decision] ([outcome] for a failure, or the response [status]) and tells the observer. */
    private fun report(
        request: Request,
        decision: RouteDecision,
        tag: RouteTag,
        outcome: AttemptOutcome?,
        status: Int?,
        listener: LineKitEventListener?,
        start: Long,
        error: IOException?,
        measured: AttemptTimings? = null,
        version: String? = null,
    ): Router.Verdict? {
        val timings = measured ?: timings(listener, start)
        val verdict = lineKit.router.report(decision, false, outcome, status, timings, version)
        val recorded = verdict?.outcome ?: outcome
        if (recorded != null) {
            lineKit.attemptObserver?.onAttempt(Attempt(request, tag, recorded, status, timings, error))
        }
        return verdict
    }

    /** Interceptor helpers. */
    companion object {
        /**
         * [request] without any `X-Line-*` header (names compared case-insensitively); the
         * request itself when it has none.
         */
        @JvmStatic
        fun stripPrivate(request: Request): Request {
            val headers = request.headers
            var b: Request.Builder? = null
            for (i in 0 until headers.size) {
                val name = headers.name(i)
                if (LineHeaders.isPrivate(name)) (b ?: request.newBuilder().also { b = it }).removeHeader(name)
            }
            return b?.build() ?: request
        }

        /** Whether [response] carries a body of a declared length within [limit]. */
        private fun bufferable(request: Request, response: Response, limit: Long): Boolean {
            if (request.method == "HEAD" || response.code == 204 || response.code == 304 || response.code < 200) return false
            val length = response.body.contentLength()
            return length in 1..limit
        }

        /** Reads the whole declared body into the body's own buffer (no copy); short → [EOFException]. */
        private fun readWholeBody(response: Response) {
            val length = response.body.contentLength()
            if (!response.body.source().request(length)) {
                throw EOFException("unexpected end of stream: body shorter than its declared $length bytes")
            }
        }

        /**
         * The request of one attempt: [base] on the decision's target (the original URL
         * when nothing changed, when the target is the request's own URL — no URL is
         * rebuilt then — or when OkHttp rejects a part), tagged with [tag].
         */
        internal fun rewrite(base: Request, decision: RouteDecision, tag: RouteTag): Request {
            val b = base.newBuilder().tag(RouteTag::class, tag)
            if (!decision.sameUrl) decision.target?.applyTo(base.url)?.let { b.url(it) }
            return b.build()
        }
    }
}
