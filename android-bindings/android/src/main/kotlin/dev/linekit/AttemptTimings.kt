package dev.linekit

import java.util.concurrent.TimeUnit

/**
 * Phase durations of one attempt, in nanoseconds (`null` when the phase did not happen,
 * e.g. no DNS or connect on a pooled connection). Measured with [System.nanoTime] by the
 * call's own [LineKitEventListener].
 *
 * @property dnsNanos DNS lookup.
 * @property connectNanos TCP connect, including TLS.
 * @property tlsNanos TLS handshake.
 * @property ttfbNanos from the request being written to the first response byte.
 * @property totalNanos from the start of the attempt to its response headers (or failure).
 */
data class AttemptTimings(
    val dnsNanos: Long?,
    val connectNanos: Long?,
    val tlsNanos: Long?,
    val ttfbNanos: Long?,
    val totalNanos: Long,
) {
    /** [totalNanos] in whole milliseconds. */
    val totalMs: Long get() = TimeUnit.NANOSECONDS.toMillis(totalNanos)

    /** Conversions. */
    companion object {
        /** Nanoseconds to milliseconds, or -1 (the JNI "none") for `null`. */
        internal fun msOrNone(nanos: Long?): Long = if (nanos == null) -1L else TimeUnit.NANOSECONDS.toMillis(nanos)
    }
}

/**
 * One attempt as reported to the engine, handed to the observer set with
 * [LineKit.Builder.onAttempt].
 *
 * @property request the request as sent (rewritten URL, private headers removed).
 * @property route the routing decision of the attempt.
 * @property outcome what happened.
 * @property status HTTP status, when a response arrived.
 * @property timings phase durations of this attempt only.
 * @property error the failure, when no response arrived.
 */
data class Attempt(
    val request: okhttp3.Request,
    val route: RouteTag,
    val outcome: AttemptOutcome,
    val status: Int?,
    val timings: AttemptTimings,
    val error: java.io.IOException?,
)
