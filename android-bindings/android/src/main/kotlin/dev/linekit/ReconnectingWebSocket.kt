package dev.linekit

import okhttp3.Request
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import okio.ByteString
import java.util.Random
import java.util.concurrent.ScheduledThreadPoolExecutor
import java.util.concurrent.TimeUnit
import kotlin.math.min
import kotlin.math.pow

/**
 * When and how often [ReconnectingWebSocket] reconnects.
 *
 * The n-th consecutive reconnect (n from 0) waits `min(maxDelayMs, initialDelayMs *
 * multiplier^n)` shortened by a random fraction of up to [jitter] (so a million clients
 * dropped by one outage do not come back in lockstep). A connection that stayed open for
 * [stableMs] resets n to 0.
 *
 * @property initialDelayMs delay before the first reconnect (before jitter).
 * @property maxDelayMs cap on any delay.
 * @property multiplier growth per consecutive reconnect (≥ 1).
 * @property jitter fraction in [0, 1] the delay may be shortened by at random.
 * @property maxAttempts consecutive reconnects before giving up.
 * @property stableMs how long a connection must stay open to reset the back-off; null
 *   uses the engine's `thresholds.ws_stable_ms` (the same age after which a close no
 *   longer counts against a line).
 */
data class ReconnectPolicy @JvmOverloads constructor(
    val initialDelayMs: Long = 500,
    val maxDelayMs: Long = 30_000,
    val multiplier: Double = 2.0,
    val jitter: Double = 0.5,
    val maxAttempts: Int = Int.MAX_VALUE,
    val stableMs: Long? = null,
) {
    init {
        require(initialDelayMs >= 0 && maxDelayMs >= initialDelayMs) { "need 0 <= initialDelayMs <= maxDelayMs" }
        require(multiplier >= 1.0) { "multiplier must be >= 1" }
        require(jitter in 0.0..1.0) { "jitter must be in [0, 1]" }
        require(maxAttempts >= 0) { "maxAttempts must be >= 0" }
        require(stableMs == null || stableMs >= 0) { "stableMs must be >= 0" }
    }

    /** The delay before consecutive reconnect number [attempt] (from 0), jittered by [random]. */
    fun delayMs(attempt: Int, random: Random): Long {
        val base = min(maxDelayMs.toDouble(), initialDelayMs * multiplier.pow(attempt.coerceAtLeast(0)))
        return (base * (1.0 - jitter * random.nextDouble())).toLong()
    }
}

/** Runs delayed tasks for [ReconnectingWebSocket]; tests inject a virtual one. */
fun interface WsScheduler {
    /** Runs [task] after [delayMs]; the result cancels it. */
    fun schedule(delayMs: Long, task: Runnable): Cancellable

    /** A scheduled task. */
    fun interface Cancellable {
        /** Cancels the task if it has not run yet. */
        fun cancel()
    }

    /** The default scheduler. */
    companion object {
        /** One shared daemon thread (`linekit-ws-reconnect`). */
        @JvmField
        val DEFAULT: WsScheduler = DaemonScheduler
    }
}

/** [WsScheduler.DEFAULT]: one lazily started daemon thread shared by every socket. */
private object DaemonScheduler : WsScheduler {
    private val executor by lazy {
        ScheduledThreadPoolExecutor(1) { r -> Thread(r, "linekit-ws-reconnect").apply { isDaemon = true } }
            .apply { removeOnCancelPolicy = true }
    }

    override fun schedule(delayMs: Long, task: Runnable): WsScheduler.Cancellable {
        val future = executor.schedule(task, delayMs, TimeUnit.MILLISECONDS)
        return WsScheduler.Cancellable { future.cancel(false) }
    }
}

/**
 * A WebSocket that keeps itself connected (made by [LineKitWebSocket.connect]).
 *
 * Whenever a connection ends without the app closing it — a refused upgrade, a drop, a
 * server close — it schedules a new connection after the [ReconnectPolicy] back-off. Each
 * new connection is routed afresh, and by then the engine has heard about the fault, so
 * it lands on the next ranked `ws` line. The back-off resets once a connection stays open
 * for the stable period; after `maxAttempts` consecutive reconnects it gives up. The
 * app's listener sees the callbacks of every connection in turn. Thread-safe.
 */
class ReconnectingWebSocket internal constructor(
    private val factory: LineKitWebSocket,
    private val request: Request,
    private val listener: WebSocketListener,
    private val policy: ReconnectPolicy,
    private val scheduler: WsScheduler,
    private val random: Random,
    private val stableMs: Long,
) : AutoCloseable {
    private val lock = Any()
    private var socket: WebSocket? = null
    private var pending: WsScheduler.Cancellable? = null
    private var consecutive = 0
    private var connections = 0
    private var ended = 0
    private var closed = false
    private var gaveUp = false

    /** The connection now open or opening (null while waiting to reconnect). */
    val current: WebSocket? get() = synchronized(lock) { socket }

    /** Connections opened so far (the first plus every reconnect). */
    val connectionCount: Int get() = synchronized(lock) { connections }

    /** Consecutive reconnects since the last stable connection. */
    val consecutiveReconnects: Int get() = synchronized(lock) { consecutive }

    /** Whether it stopped after `maxAttempts` consecutive reconnects. */
    val hasGivenUp: Boolean get() = synchronized(lock) { gaveUp }

    /** Sends on the current connection; false when there is none or it is closing. */
    fun send(text: String): Boolean = current?.send(text) ?: false

    /** Sends on the current connection; false when there is none or it is closing. */
    fun send(bytes: ByteString): Boolean = current?.send(bytes) ?: false

    /** Closes the current connection with [code] and stops reconnecting. Idempotent. */
    fun close(code: Int, reason: String?) {
        val s = synchronized(lock) {
            if (closed) return
            closed = true
            pending?.cancel()
            pending = null
            socket.also { socket = null }
        }
        s?.close(code, reason)
    }

    /** Closes with 1000 and stops reconnecting. */
    override fun close() = close(1000, null)

    internal fun start() = connectNow()

    private fun connectNow() {
        val number = synchronized(lock) {
            if (closed) return
            pending = null
            ++connections
        }
        val s = factory.open(request, listener) { report -> onEnd(number, report) }
        val stale = synchronized(lock) {
            when {
                closed -> s
                ended < number -> null.also { socket = s }
                else -> null // it already ended (and may have scheduled the next one)
            }
        }
        stale?.cancel() // closed while connecting
    }

    private fun onEnd(number: Int, report: WsConnectionReport) {
        synchronized(lock) {
            ended = number
            if (number == connections) socket = null
            if (closed || report.cause == WsDropCause.LOCAL) return
            if ((report.durationMs ?: 0L) >= stableMs) consecutive = 0
            if (consecutive >= policy.maxAttempts) {
                gaveUp = true
                return
            }
            val delay = policy.delayMs(consecutive, random)
            consecutive++
            pending = scheduler.schedule(delay) { connectNow() }
        }
    }
}
