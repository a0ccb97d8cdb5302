package dev.linekit.internal

import dev.linekit.AttemptOutcome
import dev.linekit.AttemptTimings
import dev.linekit.RouteDecision
import dev.linekit.ffi.AttemptReport
import dev.linekit.ffi.LineKitException
import dev.linekit.ffi.NativeLineKit
import dev.linekit.ffi.Outcome
import dev.linekit.ffi.Protocol
import dev.linekit.ffi.RouteRequest


/**
 * The per-request calls into the engine, through one of two doors: [JniRouter] (direct
 * JNI) or [UniffiRouter] (generated UniFFI/JNA bindings). Both answer `null` / do
 * nothing once the engine is closed, so a closed engine degrades to pass-through.
 */
internal interface Router {
    /** Routes one request, or returns null when the engine is closed. */
    fun route(
        url: String,
        method: String,
        biz: String?,
        keepOriginal: Boolean,
        fixedHost: String?,
        ws: Boolean,
        exclude: List<String>,
    ): RouteDecision?

    /** Reports one attempt. */
    fun report(
        biz: String?,
        line: String?,
        ws: Boolean,
        outcome: AttemptOutcome,
        status: Int?,
        timings: AttemptTimings,
        version: String? = null,
    )

    /** `thresholds.max_retries` in force (0 when closed). */
    fun maxRetries(): Int
}

/** [Router] over the JNI fast path. */
internal class JniRouter(private val handle: NativeHandle) : Router {
    override fun route(
        url: String,
        method: String,
        biz: String?,
        keepOriginal: Boolean,
        fixedHost: String?,
        ws: Boolean,
        exclude: List<String>,
    ): RouteDecision? {
        val joined = if (exclude.isEmpty()) null else exclude.joinToString("\n")
        val packed = handle.use { NativeFast.route(it, url, method, biz, keepOriginal, fixedHost, ws, joined) }
            ?: return null
        return unpack(packed)
    }

    override fun report(
        biz: String?,
        line: String?,
        ws: Boolean,
        outcome: AttemptOutcome,
        status: Int?,
        timings: AttemptTimings,
        version: String?,
    ) {
        handle.use {
            NativeFast.report(
                it, biz, line, ws, outcome.code, status ?: -1,
                AttemptTimings.msOrNone(timings.totalNanos),
                AttemptTimings.msOrNone(timings.dnsNanos),
                AttemptTimings.msOrNone(timings.connectNanos),
                AttemptTimings.msOrNone(timings.tlsNanos),
                AttemptTimings.msOrNone(timings.ttfbNanos),
                version,
            )
        }
    }

    override fun maxRetries(): Int = handle.use { NativeFast.maxRetries(it) } ?: 0

    companion object {
        /** Parses `"reason\nline\nbiz\nversionHeader\nversionMismatch\nurl"`. */
        fun unpack(packed: String): RouteDecision {
            val a = packed.indexOf('\n')
            val b = packed.indexOf('\n', a + 1)
            val c = packed.indexOf('\n', b + 1)
            val d = packed.indexOf('\n', c + 1)
            val e = packed.indexOf('\n', d + 1)
            check(a > 0 && b > a && c > b && d > c && e > d) { "linekit: malformed fast-path decision" }
            val line = if (b == a + 1) null else packed.substring(a + 1, b)
            val biz = if (c == b + 1) null else packed.substring(b + 1, c)
            val versionHeader = if (d == c + 1) null else packed.substring(c + 1, d)
            return RouteDecision(
                packed.substring(0, a), line, biz, packed.substring(e + 1),
                versionMismatch = e == d + 2 && packed[d + 1] == '1',
                versionHeader = versionHeader,
            )
        }
    }
}

/** [Router] over the generated UniFFI bindings. */
internal class UniffiRouter(private val native: NativeLineKit) : Router {
    override fun route(
        url: String,
        method: String,
        biz: String?,
        keepOriginal: Boolean,
        fixedHost: String?,
        ws: Boolean,
        exclude: List<String>,
    ): RouteDecision? = closedAsNull {
        val d = native.route(
            RouteRequest(url, method, biz, keepOriginal, fixedHost, if (ws) Protocol.WS else Protocol.HTTP, exclude),
        )
        RouteDecision(d.reason, d.line, d.biz, d.url, d.versionMismatch, d.versionHeader)
    }

    override fun report(
        biz: String?,
        line: String?,
        ws: Boolean,
        outcome: AttemptOutcome,
        status: Int?,
        timings: AttemptTimings,
        version: String?,
    ) {
        closedAsNull {
            native.report(
                AttemptReport(
                    biz = biz,
                    protocol = if (ws) Protocol.WS else Protocol.HTTP,
                    line = line,
                    host = null,
                    outcome = Outcome.entries[outcome.code],
                    status = status?.toUShort(),
                    costMs = ms(timings.totalNanos) ?: 0u,
                    dnsMs = ms(timings.dnsNanos),
                    connectMs = ms(timings.connectNanos),
                    tlsMs = ms(timings.tlsNanos),
                    ttfbMs = ms(timings.ttfbNanos),
                    version = version,
                ),
            )
        }
    }

    override fun maxRetries(): Int = closedAsNull { native.maxRetries().toInt() } ?: 0

    private fun ms(nanos: Long?): ULong? = nanos?.let { (it / 1_000_000L).toULong() }

    /** Runs [block]; a closed (shut down or destroyed) engine yields null. */
    private inline fun <R> closedAsNull(block: () -> R): R? = try {
        block()
    } catch (_: LineKitException.Closed) {
        null
    } catch (_: IllegalStateException) {
        // The generated object was already destroyed.
        null
    }
}
