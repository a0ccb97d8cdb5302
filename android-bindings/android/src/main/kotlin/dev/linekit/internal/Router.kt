package dev.linekit.internal

import dev.linekit.AttemptOutcome
import dev.linekit.AttemptTimings
import dev.linekit.RolloutMode
import dev.linekit.RouteDecision
import dev.linekit.RouteReason

/**
 * The per-request calls into the engine, over the JNI path (the only one for them). Both
 * answer `null` once the engine is closed, so a closed engine degrades to pass-through.
 * Arguments and answers are the generated records of `docs/jni-records.md`; the strings
 * of an answer come from [codes].
 */
internal class Router(private val handle: NativeHandle) {
    /** The strings behind this engine's answer codes. */
    private val codes = RouteCodes(handle)

    /**
     * Routes one request, or returns null when the engine is closed. [routeHeaders] is
     * the request's `X-Line-*` and idempotency-key headers as a [RouteHeaders] list (null
     * for none): the core reads them with its one header rule. [oneShotBody] says the
     * request body cannot be written twice; with the method and the key headers it lets
     * the core decide whether the call may be replayed (the answer's retries are 0 when
     * not). [finalUrl]: also ask the core for the final URL ([RouteDecision.url]), which
     * only [dev.linekit.LineKit.route] needs. [callMode]: for a retry, the rollout mode
     * the call's first attempt was routed under, so the call finishes under the mode it
     * started with even if the config changed it since; null for a first attempt.
     * [askOnly]: the caller only asks where a request would go and reports nothing (the
     * core then does not count the request in flight on its line).
     */
    fun route(
        url: String,
        method: String,
        routeHeaders: String?,
        ws: Boolean,
        exclude: List<String>,
        oneShotBody: Boolean = false,
        finalUrl: Boolean = false,
        callMode: RolloutMode? = null,
        askOnly: Boolean = false,
    ): RouteDecision? {
        val code = HttpMethods.codeOf(method)
        val query = RouteQuery.pack(code, ws, oneShotBody, callMode?.let { it.code + 1 } ?: 0, askOnly)
        val text = if (code == HttpMethods.OTHER) method else null
        val joined = if (exclude.isEmpty()) null else joined(exclude)
        val written = if (finalUrl) arrayOfNulls<String>(1) else null
        var answer = 0L
        // Codes whose generation the engine dropped in between (it only keeps the last
        // two) are not resolved: route once more, then keep the URL.
        repeat(ATTEMPTS) {
            // The core writes the final URL only for a decision with a target: never let an
            // earlier attempt's URL stand for this one.
            written?.set(0, null)
            answer = handle.use { NativeFast.route(it, url, query, text, routeHeaders, joined, written) } ?: return null
            decode(answer, url, written?.get(0))?.let { return it }
        }
        return fallback(answer, url)
    }

    /** The decision [answer] stands for, or null when its codes are no longer held. */
    private fun decode(answer: Long, url: String, finalUrl: String?): RouteDecision? {
        val reason = reasonOf(answer)
        val generation = RouteAnswer.generation(answer)
        val lineCode = RouteAnswer.line(answer)
        val targetCode = RouteAnswer.target(answer)
        val table = if (lineCode == 0 && targetCode == 0) null else codes.table(generation, lineCode, targetCode) ?: return null
        val line = if (lineCode == 0) null else table!!.lines[lineCode - 1]
        val target = if (targetCode == 0) null else table!!.targets[targetCode - 1]
        val sameUrl = RouteAnswer.sameUrl(answer)
        return RouteDecision(
            reason, line?.line, line?.biz, url, target,
            maxRetries = RouteAnswer.maxRetries(answer),
            bufferBodyMaxBytes = line?.bufferBodyMaxBytes ?: 0L,
            versionMismatch = RouteAnswer.versionMismatch(answer),
            versionHeader = line?.versionHeader,
            finalUrl = finalUrl,
            rewritten = targetCode != 0 && !sameUrl,
            sameUrl = sameUrl,
            generation = generation,
            lineCode = lineCode,
            mode = modeOf(answer),
            wouldReason = RouteReason.fromCode(RouteAnswer.wouldReason(answer) - 1),
            wouldLine = line?.wouldLine,
        )
    }

    /** [answer] without its codes: the reason, on the request's own URL. */
    private fun fallback(answer: Long, url: String): RouteDecision =
        RouteDecision(reasonOf(answer), null, null, url, null, maxRetries = 0, bufferBodyMaxBytes = 0L, mode = modeOf(answer))

    private fun modeOf(answer: Long): RolloutMode =
        RolloutMode.fromCode(RouteAnswer.mode(answer)) ?: error("linekit: unknown rollout mode code in a route answer")

    private fun reasonOf(answer: Long): RouteReason =
        RouteReason.fromCode(RouteAnswer.reason(answer)) ?: error("linekit: unknown reason code in a route answer")

    /** Tells the engine the business client is known, so it may warm lines on its pool ([dev.linekit.BusinessPool]). */
    fun businessPoolSeen() {
        handle.use { NativeFast.businessPool(it) }
    }

    /**
     * Reports one attempt of [decision]: [outcome] for a failure, or null when a response
     * with [status] arrived (the core maps the status); [version] is the response's
     * `version_header` value. Returns the core's verdict, or null when closed.
     */
    fun report(
        decision: RouteDecision,
        ws: Boolean,
        outcome: AttemptOutcome?,
        status: Int?,
        timings: AttemptTimings,
        version: String? = null,
    ): Verdict? {
        val head = ReportHead.pack(
            decision.generation, decision.lineCode, ws, outcome?.let { it.code + 1 } ?: 0,
            status != null, status ?: 0,
        )
        val answer = handle.use {
            NativeFast.report(
                it, head,
                AttemptTimings.msOrNone(timings.totalNanos),
                AttemptTimings.msOrNone(timings.dnsNanos),
                AttemptTimings.msOrNone(timings.connectNanos),
                AttemptTimings.msOrNone(timings.tlsNanos),
                AttemptTimings.msOrNone(timings.ttfbNanos),
                version,
            )
        } ?: return null
        val recorded = AttemptOutcome.fromCode(ReportAnswer.outcome(answer)) ?: return null
        return Verdict(recorded, ReportAnswer.lineFault(answer), ReportAnswer.resend(answer))
    }

    /**
     * The core's reading of one attempt: what it recorded, whether that is a line fault, and
     * whether the attempt may be sent again on the same line ([resend]: a stale pooled
     * connection, not counted as a try).
     */
    class Verdict(val outcome: AttemptOutcome, val lineFault: Boolean, val resend: Boolean)

    private companion object {
        /** Route calls per decision when codes go stale in between (see [route]). */
        const val ATTEMPTS = 2

        fun joined(lines: List<String>): String {
            val b = StringBuilder()
            for (line in lines) ExcludedLines.append(b, line)
            return b.toString()
        }
    }
}
