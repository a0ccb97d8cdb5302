package dev.linekit.internal

import dev.linekit.AttemptOutcome
import dev.linekit.AttemptTimings
import dev.linekit.RouteDecision
import dev.linekit.RouteReason

/**
 * The per-request calls into the engine, over the JNI path (the only one for them). Both
 * answer `null` once the engine is closed, so a closed engine degrades to pass-through.
 */
internal class Router(private val handle: NativeHandle) {
    /**
     * Routes one request, or returns null when the engine is closed. [privateHeaders] is
     * the request's `X-Line-*` headers as `name\nvalue` pairs joined by `\n` (null for
     * none): the core reads them with its one header rule.
     */
    fun route(
        url: String,
        method: String,
        privateHeaders: String?,
        ws: Boolean,
        exclude: List<String>,
    ): RouteDecision? {
        val joined = if (exclude.isEmpty()) null else exclude.joinToString("\n")
        val packed = handle.use { NativeFast.route(it, url, method, privateHeaders, ws, joined) }
            ?: return null
        return unpack(packed)
    }

    /**
     * Reports one attempt: [outcome] for a failure, or null when a response with [status]
     * arrived (the core maps the status); [version] is the response's `version_header`
     * value. Returns the core's verdict, or null when closed.
     */
    fun report(
        biz: String?,
        line: String?,
        ws: Boolean,
        outcome: AttemptOutcome?,
        status: Int?,
        timings: AttemptTimings,
        version: String? = null,
    ): Verdict? {
        val packed = handle.use {
            NativeFast.report(
                it, biz, line, ws, outcome?.code ?: -1, status ?: -1,
                AttemptTimings.msOrNone(timings.totalNanos),
                AttemptTimings.msOrNone(timings.dnsNanos),
                AttemptTimings.msOrNone(timings.connectNanos),
                AttemptTimings.msOrNone(timings.tlsNanos),
                AttemptTimings.msOrNone(timings.ttfbNanos),
                version,
            )
        } ?: return null
        val recorded = AttemptOutcome.fromCode(packed and 0xff) ?: return null
        return Verdict(recorded, packed and 0x100 != 0)
    }

    /** The core's reading of one attempt: what it recorded and whether that is a line fault. */
    class Verdict(val outcome: AttemptOutcome, val lineFault: Boolean)

    companion object {
        /**
         * Parses
         * `"reason\nmaxRetries\nbufferBodyMaxBytes\nline\nbiz\nversionHeader\nversionMismatch\nurl"`.
         */
        fun unpack(packed: String): RouteDecision {
            val a = packed.indexOf('\n')
            val b = packed.indexOf('\n', a + 1)
            val c = packed.indexOf('\n', b + 1)
            val d = packed.indexOf('\n', c + 1)
            val e = packed.indexOf('\n', d + 1)
            val f = packed.indexOf('\n', e + 1)
            val g = packed.indexOf('\n', f + 1)
            check(a > 0 && b > a && c > b && d > c && e > d && f > e && g > f) { "linekit: malformed route answer" }
            val reason = RouteReason.fromCode(decimal(packed, 0, a).toInt())
                ?: error("linekit: unknown reason code in a route answer")
            val line = if (d == c + 1) null else packed.substring(c + 1, d)
            val biz = if (e == d + 1) null else packed.substring(d + 1, e)
            val versionHeader = if (f == e + 1) null else packed.substring(e + 1, f)
            return RouteDecision(
                reason, line, biz, packed.substring(g + 1),
                maxRetries = decimal(packed, a + 1, b).toInt(),
                bufferBodyMaxBytes = decimal(packed, b + 1, c),
                versionMismatch = g == f + 2 && packed[f + 1] == '1',
                versionHeader = versionHeader,
            )
        }

        /** The decimal number in `s[from, to)`, read in place (no substring). */
        private fun decimal(s: String, from: Int, to: Int): Long {
            check(to > from) { "linekit: malformed route answer" }
            var n = 0L
            for (i in from until to) {
                val digit = s[i] - '0'
                check(digit in 0..9) { "linekit: malformed route answer" }
                n = n * 10 + digit
            }
            return n
        }
    }
}
