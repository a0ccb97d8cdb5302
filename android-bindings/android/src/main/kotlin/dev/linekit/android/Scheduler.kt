package dev.linekit.android

import android.os.Handler
import android.os.Looper

/**
 * Runs a task later. [LineKitAndroid] uses one to coalesce network callback storms; the
 * default posts to a [Handler], tests inject their own clock (or drive Robolectric's looper).
 */
fun interface Scheduler {
    /** Runs [task] once after [delayMs] milliseconds; the result cancels it if still pending. */
    fun schedule(delayMs: Long, task: Runnable): Cancellable
}

/** A scheduled task that can still be withdrawn. */
fun interface Cancellable {
    /** Withdraws the task if it has not run yet; does nothing otherwise. */
    fun cancel()
}

/** [Scheduler] on a [Handler] (by default the main looper's: forwards are tiny). */
class HandlerScheduler @JvmOverloads constructor(
    private val handler: Handler = Handler(Looper.getMainLooper()),
) : Scheduler {
    override fun schedule(delayMs: Long, task: Runnable): Cancellable {
        handler.postDelayed(task, delayMs)
        return Cancellable { handler.removeCallbacks(task) }
    }
}

/**
 * Forwards a stream of values with at most one forward per window, without delaying the
 * first: an offer after a quiet period is forwarded at once and opens a window of
 * [windowMs]; offers inside the window only replace the pending value; when the window
 * closes the latest value is forwarded (unless it equals the last one forwarded) and, if it
 * was, a new window opens. A single change therefore reaches the core immediately, a storm
 * reaches it at most once per window, and the final state is always delivered, at most
 * [windowMs] late. Thread-safe; [forward] runs under the lock, in order.
 */
internal class Coalescer<T : Any>(
    private val scheduler: Scheduler,
    private val windowMs: Long,
    private val forward: (T) -> Unit,
) {
    private val lock = Any()
    private var pending: T? = null
    private var window: Cancellable? = null
    private var last: T? = null
    private var stopped = false

    /** The value forwarded last, or null before the first. */
    val lastForwarded: T? get() = synchronized(lock) { last }

    /** Offers [value]: forwarded now after a quiet period, else when the window closes. */
    fun offer(value: T) {
        synchronized(lock) {
            if (stopped) return
            if (window != null) {
                pending = value
                return
            }
            if (emit(value)) openWindow()
        }
    }

    /** Forwards [value] now (dropping anything pending), unless it equals the last one. */
    fun forwardNow(value: T) {
        synchronized(lock) {
            if (stopped) return
            window?.cancel()
            window = null
            pending = null
            emit(value)
        }
    }

    /** Drops the pending value; nothing is forwarded afterwards. */
    fun stop() = synchronized(lock) {
        stopped = true
        window?.cancel()
        window = null
        pending = null
    }

    private fun openWindow() {
        window = scheduler.schedule(windowMs) { flush() }
    }

    private fun flush() {
        synchronized(lock) {
            window = null
            val value = pending ?: return
            pending = null
            if (!stopped && emit(value)) openWindow()
        }
    }

    /** Forwards [value] unless it is the last one forwarded; whether it did. */
    private fun emit(value: T): Boolean {
        if (value == last) return false
        last = value
        forward(value)
        return true
    }
}
