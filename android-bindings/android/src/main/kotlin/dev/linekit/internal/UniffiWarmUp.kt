package dev.linekit.internal

import java.util.concurrent.atomic.AtomicReference

/**
 * Binds the UniFFI library on a background thread, once per process, as soon as a
 * [dev.linekit.LineKit.Builder] is created.
 *
 * The first UniFFI call of a process pays for JNA's `Native.register` of every function and
 * the contract checks (tens to a hundred and more milliseconds on a fresh JVM). Started
 * early, that work overlaps what `build()` does on the caller's thread before its first
 * UniFFI call (the default transport's OkHttp client, class loading of the Kotlin side).
 *
 * `build()` calls [await] before its first UniFFI call: JNA's own first-use initialisation
 * is not safe to run from two threads at once (its `Structure` layout lock and the
 * `Structure.FFIType` class initialiser can deadlock), so the caller never touches UniFFI
 * while the binding thread runs. A failure on that thread is left for the caller's own
 * first UniFFI call to meet.
 */
internal object UniffiWarmUp {
    private val thread = AtomicReference<Thread?>(null)

    /** How long the binding took on the warm-up thread (ns), or -1 until it finished. */
    @Volatile
    @JvmStatic
    var bindNanos: Long = -1L
        private set

    /** Starts the binding unless it already started in this process. */
    fun start() {
        if (thread.get() != null) return
        val t = Thread({
            val begin = System.nanoTime()
            try {
                dev.linekit.ffi.uniffiEnsureInitialized()
            } catch (_: Throwable) {
                // The caller's first UniFFI call reports it.
            }
            bindNanos = System.nanoTime() - begin
        }, "linekit-uniffi-bind")
        t.isDaemon = true
        if (thread.compareAndSet(null, t)) t.start()
    }

    /** Waits until the binding started by [start] has finished (at once when it has). */
    fun await() {
        val t = thread.get() ?: return
        var interrupted = false
        while (t.isAlive) {
            try {
                t.join()
            } catch (_: InterruptedException) {
                interrupted = true
            }
        }
        if (interrupted) Thread.currentThread().interrupt()
    }
}
