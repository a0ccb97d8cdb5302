package dev.linekit.internal

import java.util.concurrent.atomic.AtomicBoolean

/**
 * Binds the UniFFI library on a background thread, once per process, as soon as a
 * [dev.linekit.LineKit.Builder] is created.
 *
 * The first UniFFI call of a process pays for JNA's `Native.register` of every function and
 * the contract checks (tens to a hundred and more milliseconds on a fresh JVM). Started
 * early, that work overlaps what `build()` does on the caller's thread before its first
 * UniFFI call (the default transport's OkHttp client, class loading of the Kotlin side). A
 * caller that reaches UniFFI while the binding is still running waits for it on the JVM's
 * class-initialisation lock, so nothing runs against a half-bound library; a failure here is
 * left for the caller's own first UniFFI call to meet.
 */
internal object UniffiWarmUp {
    private val started = AtomicBoolean(false)

    /** How long the binding took on the warm-up thread (ns), or -1 until it finished. */
    @Volatile
    @JvmStatic
    var bindNanos: Long = -1L
        private set

    /** Starts the binding unless it already started in this process. */
    fun start() {
        if (!started.compareAndSet(false, true)) return
        val thread = Thread({
            val begin = System.nanoTime()
            try {
                dev.linekit.ffi.uniffiEnsureInitialized()
            } catch (_: Throwable) {
                // The caller's first UniFFI call reports it.
            }
            bindNanos = System.nanoTime() - begin
        }, "linekit-uniffi-bind")
        thread.isDaemon = true
        thread.start()
    }
}
