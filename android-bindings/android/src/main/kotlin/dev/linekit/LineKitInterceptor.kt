package dev.linekit

import okhttp3.HttpUrl.Companion.toHttpUrlOrNull
import okhttp3.Interceptor
import okhttp3.Request
import okhttp3.Response
import java.io.IOException

/**
 * Puts each request on a line: the first application interceptor of a client built with
 * `OkHttpClient.Builder.lineKit(lineKit)`.
 *
 * For every attempt it asks the engine for a route, rebuilds the URL from the decision
 * (scheme/host/port, or a path prefix for converged hosts; path, query, method, body and
 * other headers stay byte for byte), removes every `X-Line-*` header and tags the request
 * with a [RouteTag]. After the attempt it reports the outcome once, with the timings the
 * call's [LineKitEventListener] measured.
 *
 * In-call failover: when an attempt fails with a line fault (DNS/TLS/connect failure, or
 * 502/503/504) it closes the failed response and retries on the next line, excluding the
 * lines already tried, up to `thresholds.max_retries` times — only for idempotent methods
 * (GET, HEAD, OPTIONS, PUT, DELETE) or requests carrying `Idempotency-Key` or
 * `X-Transaction-Id`, never with a one-shot body, and never once the call is cancelled or
 * its call timeout fired.
 *
 * WebSocket upgrades (`Upgrade: websocket`, what `OkHttpClient.newWebSocket` sends) are
 * routed on the business line's `ws` pool and sent once: never retried on another line
 * here — reconnecting is the WebSocket listener's decision ([LineKitWebSocket]).
 */
class LineKitInterceptor(private val lineKit: LineKit) : Interceptor {
    override fun intercept(chain: Interceptor.Chain): Response {
        val call = chain.call()
        val original = chain.request()
        val headers = original.headers
        var biz: String? = null
        var keepOriginal = false
        var fixedHost: String? = null
        var hasPrivate = false
        for (i in 0 until headers.size) {
            val name = headers.name(i)
            if (!LineHeaders.isPrivate(name)) continue
            hasPrivate = true
            when {
                name.equals(LineHeaders.BIZ, ignoreCase = true) -> biz = headers.value(i).trim()
                name.equals(LineHeaders.KEEP_ORIGINAL_HOST, ignoreCase = true) ->
                    keepOriginal = headers.value(i).trim().equals("true", ignoreCase = true)
                name.equals(LineHeaders.FIXED_HOST, ignoreCase = true) -> fixedHost = headers.value(i).trim()
            }
        }
        val base = if (hasPrivate) stripPrivate(original) else original
        val ws = original.header("Upgrade")?.equals("websocket", ignoreCase = true) == true
        val url = original.url.toString()
        if (ws) return WsUpgrade.intercept(lineKit, chain, base, url, biz, keepOriginal, fixedHost)
        val router = lineKit.router
        val listener = call.tag(LineKitEventListener::class)

        var excluded: List<String> = emptyList()
        var attempt = 0
        while (true) {
            val decision = router.route(url, original.method, biz, keepOriginal, fixedHost, ws, excluded)
                ?: return chain.proceed(base) // closed engine: pass through
            val tag = RouteTag(decision.reason, decision.biz, decision.line, attempt, excluded, decision.versionMismatch)
            if (tag.versionMismatch) lineKit.versionMismatchListener?.invoke(tag)
            val request = rewrite(base, decision, tag)
            val start = System.nanoTime()
            listener?.beginAttempt(start)
            val response = try {
                chain.proceed(request)
            } catch (e: IOException) {
                val outcome = listener?.classify(call, e) ?: LineKitEventListener.classify(call, e, connected = true)
                report(request, tag, outcome, null, listener, start, e, ws)
                if (outcome.isLineFault(null) && mayRetry(decision, attempt, chain, base)) {
                    excluded = excluded + decision.line!!
                    attempt++
                    continue
                }
                throw e
            }
            val status = response.code
            val outcome = AttemptOutcome.fromStatus(status)
            val version = decision.versionHeader?.let { response.header(it) }
            report(request, tag, outcome, status, listener, start, null, ws, version)
            if (outcome.isLineFault(status) && mayRetry(decision, attempt, chain, base)) {
                response.close()
                excluded = excluded + decision.line!!
                attempt++
                continue
            }
            return response
        }
    }

    private fun mayRetry(decision: RouteDecision, attempt: Int, chain: Interceptor.Chain, request: Request): Boolean {
        if (decision.line == null || chain.call().isCanceled()) return false
        if (!isReplayable(request)) return false
        return attempt < lineKit.router.maxRetries()
    }

    private fun report(
        request: Request,
        tag: RouteTag,
        outcome: AttemptOutcome,
        status: Int?,
        listener: LineKitEventListener?,
        start: Long,
        error: IOException?,
        ws: Boolean,
        version: String? = null,
    ) {
        val end = System.nanoTime()
        val timings = listener?.endAttempt(end) ?: AttemptTimings(null, null, null, null, end - start)
        if (tag.line != null) lineKit.router.report(tag.biz, tag.line, ws, outcome, status, timings, version)
        lineKit.attemptObserver?.invoke(Attempt(request, tag, outcome, status, timings, error))
    }

    /** Interceptor helpers. */
    companion object {
        private val IDEMPOTENT = setOf("GET", "HEAD", "OPTIONS", "PUT", "DELETE")

        /**
         * Whether a request may be sent again on another line: an idempotent method or an
         * idempotency key, and a body that can be written twice.
         */
        @JvmStatic
        fun isReplayable(request: Request): Boolean {
            val body = request.body
            if (body != null && body.isOneShot()) return false
            return request.method in IDEMPOTENT ||
                request.header("Idempotency-Key") != null ||
                request.header("X-Transaction-Id") != null
        }

        /** [request] without any `X-Line-*` header (names compared case-insensitively). */
        @JvmStatic
        fun stripPrivate(request: Request): Request {
            val b = request.newBuilder()
            for (name in request.headers.names()) {
                if (LineHeaders.isPrivate(name)) b.removeHeader(name)
            }
            return b.build()
        }

        internal fun rewrite(base: Request, decision: RouteDecision, tag: RouteTag): Request {
            val b = base.newBuilder().tag(RouteTag::class, tag)
            if (decision.url != base.url.toString()) {
                httpUrlOf(decision.url)?.let { b.url(it) }
            }
            return b.build()
        }

        /**
         * Parses a final URL for OkHttp. WebSocket lines are `ws://`/`wss://`, which OkHttp
         * carries as `http://`/`https://` on the handshake request.
         */
        internal fun httpUrlOf(url: String): okhttp3.HttpUrl? = when {
            url.startsWith("wss://", ignoreCase = true) -> "https://" + url.substring(6)
            url.startsWith("ws://", ignoreCase = true) -> "http://" + url.substring(5)
            else -> url
        }.toHttpUrlOrNull()
    }
}
