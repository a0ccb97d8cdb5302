package dev.linekit

import dev.linekit.internal.ConnectFailureKind
import java.io.EOFException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import javax.net.ssl.SSLException

/**
 * The one place where a failure becomes an [AttemptOutcome]. The interceptor, the event
 * listener, WebSockets, the probe transport and the diagnosis all ask it; none keeps a
 * mapping of its own, and what an outcome *means* (line fault or not, how much it counts)
 * is the core's call.
 *
 * What it tells apart:
 * - before a connection: DNS failure, TLS failure, refused (or unreachable, or reset while
 *   connecting), connect timeout;
 * - after the request was sent: a stall past the read timeout ([AttemptOutcome.READ_TIMEOUT]),
 *   a reset or broken connection ([AttemptOutcome.CONNECTION_RESET]) and a response cut off
 *   early — an unexpected end of stream in the headers or the body ([AttemptOutcome.TRUNCATED]);
 * - a connection reused from the pool that broke (reset, or ended) before the response
 *   began ([AttemptOutcome.STALE_CONNECTION]): it went stale while idle, which says
 *   nothing of the line;
 * - a cancelled call, or its call timeout ([AttemptOutcome.CANCELLED]).
 */
object FailureClassifier {
    /**
     * The outcome of an attempt that failed with [e].
     *
     * @param cancelled whether the call was cancelled (or its call timeout fired).
     * @param connected whether the attempt had a connection (the request was being sent
     *   or had been sent); `null` when unknown (WebSocket calls run without an event
     *   listener), in which case the exception alone decides.
     * @param reusedBeforeResponse whether that connection came from the pool and no
     *   response had begun on it: a reset or an end of stream is then
     *   [AttemptOutcome.STALE_CONNECTION].
     */
    @JvmStatic
    @JvmOverloads
    fun classify(
        e: Throwable,
        cancelled: Boolean,
        connected: Boolean?,
        reusedBeforeResponse: Boolean = false,
    ): AttemptOutcome {
        val outcome = classifyFailure(e, cancelled, connected)
        val broke = outcome == AttemptOutcome.CONNECTION_RESET || outcome == AttemptOutcome.TRUNCATED
        return if (broke && reusedBeforeResponse && connected == true) AttemptOutcome.STALE_CONNECTION else outcome
    }

    private fun classifyFailure(e: Throwable, cancelled: Boolean, connected: Boolean?): AttemptOutcome = when {
        cancelled -> AttemptOutcome.CANCELLED
        e is UnknownHostException -> AttemptOutcome.DNS_FAILURE
        e is SSLException -> AttemptOutcome.TLS_FAILURE
        e is ConnectException || e is NoRouteToHostException -> AttemptOutcome.CONNECT_REFUSED
        e is SocketTimeoutException -> when (connected) {
            true -> AttemptOutcome.READ_TIMEOUT
            false -> AttemptOutcome.CONNECT_TIMEOUT
            null -> if (e.message.orEmpty().contains("connect", ignoreCase = true)) {
                AttemptOutcome.CONNECT_TIMEOUT
            } else {
                AttemptOutcome.READ_TIMEOUT
            }
        }
        // OkHttp's call timeout (the call is cancelled with it).
        e is InterruptedIOException -> AttemptOutcome.CANCELLED
        connected == false -> AttemptOutcome.CONNECT_REFUSED
        isEndOfStream(e) -> AttemptOutcome.TRUNCATED
        else -> AttemptOutcome.CONNECTION_RESET
    }

    /**
     * How a failed connect to one address counts for the core's quarantine, or null when it
     * is not reported. Derived from [classify], plus the one distinction the quarantine
     * keeps that outcomes do not: no route to host.
     */
    internal fun connectFailure(e: Throwable, cancelled: Boolean): ConnectFailureKind? =
        when (classify(e, cancelled, connected = false)) {
            AttemptOutcome.CANCELLED -> ConnectFailureKind.CANCELLED_RACE
            AttemptOutcome.CONNECT_REFUSED ->
                if (e is NoRouteToHostException) ConnectFailureKind.NO_ROUTE else ConnectFailureKind.REFUSED
            AttemptOutcome.CONNECT_TIMEOUT -> ConnectFailureKind.TIMEOUT
            AttemptOutcome.TLS_FAILURE -> ConnectFailureKind.TLS
            else -> null
        }

    /**
     * The diagnosis report's code for a socket-level failure while connecting to an address
     * ([connecting]) or during the TLS handshake after it: the wire name of [classify]'s
     * outcome, with two details the report keeps that outcomes do not — the exception class
     * of a TLS failure (never its message) and no route to host — and a timeout in the
     * handshake named `tls_timeout`.
     */
    internal fun diagnosisCode(e: Throwable, connecting: Boolean): String {
        val outcome = classify(e, cancelled = false, connected = !connecting)
        return when {
            outcome == AttemptOutcome.TLS_FAILURE -> "${outcome.wireName} (${e.javaClass.simpleName})"
            e is NoRouteToHostException -> "no_route"
            !connecting && outcome == AttemptOutcome.READ_TIMEOUT -> "tls_timeout"
            else -> outcome.wireName
        }
    }

    /** An unexpected end of stream anywhere in the cause chain (OkHttp's wording or an [EOFException]). */
    private fun isEndOfStream(e: Throwable): Boolean {
        var t: Throwable? = e
        var depth = 0
        while (t != null && depth < 8) {
            if (t is EOFException) return true
            if (t.message.orEmpty().contains("unexpected end of stream", ignoreCase = true)) return true
            t = t.cause
            depth++
        }
        return false
    }
}
