package dev.linekit.internal

import dev.linekit.AttemptOutcome
import dev.linekit.AttemptTimings
import dev.linekit.RouteDecision
import dev.linekit.RouteReason

/**
 * TEMPORARY, for one JMH run side by side: the previous packed-string route answer and
 * string report, so the records path is measured against it in the same run. Removed
 * again right after the measurement.
 */
internal class LegacyRouter(private val handle: NativeHandle) {
    private val origins = OriginCache()

    /** The previous route: a packed-string answer unpacked here. */
    fun route(url: String, method: String, routeHeaders: String?, ws: Boolean, exclude: List<String>, oneShotBody: Boolean = false): RouteDecision? {
        val joined = if (exclude.isEmpty()) null else exclude.joinToString("\n")
        val packed = handle.use { NativeFast.routePacked(it, url, method, routeHeaders, ws, oneShotBody, joined) }
            ?: return null
        return unpack(packed, url, origins)
    }

    /** The previous report: the business line and the line as strings. */
    fun report(biz: String?, line: String?, ws: Boolean, outcome: AttemptOutcome?, status: Int?, timings: AttemptTimings, version: String? = null): Router.Verdict? {
        val packed = handle.use {
            NativeFast.reportStrings(
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
        return Router.Verdict(recorded, packed and 0x100 != 0)
    }

    /**
     * The origins of the lines routes went to, parsed once each. Lines come from the config
     * (and `X-Line-Fixed-Host` values), so there are few; past [MAX] distinct ones the cache
     * starts over rather than grow.
     */
    internal class OriginCache {
        private val byKey = java.util.concurrent.ConcurrentHashMap<String, okhttp3.HttpUrl>()

        /** The origin for [key], made by [make] on a miss (null: not cached, none). */
        fun get(key: String, make: () -> okhttp3.HttpUrl?): okhttp3.HttpUrl? {
            byKey[key]?.let { return it }
            val origin = make() ?: return null
            if (byKey.size >= MAX) byKey.clear()
            byKey[key] = origin
            return origin
        }

        private companion object {
            const val MAX = 256
        }
    }

    companion object {
        /** Fields in a route answer. */
        private const val FIELDS = 12

        /**
         * Parses the answer for the request URL [url]:
         * `"reason\nmaxRetries\nbufferBodyMaxBytes\nline\nbiz\nversionHeader\nversionMismatch\nscheme\nhost\nport\nprefix\nrestAt"`.
         */
        fun unpack(packed: String, url: String, origins: OriginCache = OriginCache()): RouteDecision {
            // ends[i] is the index of the newline after field i (the length for the last).
            val ends = IntArray(FIELDS)
            var at = -1
            for (i in 0 until FIELDS - 1) {
                at = packed.indexOf('\n', at + 1)
                check(at >= 0) { "linekit: malformed route answer" }
                ends[i] = at
            }
            ends[FIELDS - 1] = packed.length
            check(packed.indexOf('\n', at + 1) < 0) { "linekit: malformed route answer" }
            fun start(i: Int) = if (i == 0) 0 else ends[i - 1] + 1
            fun field(i: Int): String? = if (ends[i] == start(i)) null else packed.substring(start(i), ends[i])
            val reason = RouteReason.fromCode(decimal(packed, 0, ends[0]).toInt())
                ?: error("linekit: unknown reason code in a route answer")
            val target = if (ends[7] == start(7)) null else {
                check(ends[8] > start(8)) { "linekit: malformed route answer" }
                val port = if (ends[9] == start(9)) -1 else decimal(packed, start(9), ends[9]).toInt()
                val origin = origins.get(packed.substring(start(7), ends[9])) {
                    RouteTarget.originOf(packed.substring(start(7), ends[7]), packed.substring(start(8), ends[8]), port)
                }
                // A part OkHttp rejects leaves the URL as it is (the request path's fallback).
                origin?.let {
                    schemeOf(packed, start(7), ends[7])
                    decimal(packed, start(11), ends[11]).toInt()
                    RouteTarget(it, field(10) ?: "")
                }
            }
            return RouteDecision(
                reason, field(3), field(4), url, target,
                maxRetries = decimal(packed, start(1), ends[1]).toInt(),
                bufferBodyMaxBytes = decimal(packed, start(2), ends[2]),
                versionMismatch = ends[6] == start(6) + 1 && packed[start(6)] == '1',
                versionHeader = field(5),
                rewritten = target != null,
            )
        }

        /** The scheme in `s[from, to)` as one of the shared literals (no substring for the usual ones). */
        private fun schemeOf(s: String, from: Int, to: Int): String {
            for (known in SCHEMES) {
                if (to - from == known.length && s.regionMatches(from, known, 0, known.length)) return known
            }
            return s.substring(from, to)
        }

        private val SCHEMES = arrayOf("https", "http", "wss", "ws")

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
