package dev.linekit.internal

/**
 * Binds the UniFFI bindings (the control plane) off the thread that built an engine.
 *
 * The first use of the generated bindings loads JNA's own native library and binds
 * every UniFFI function: more than the whole engine start, so `build()` leaves it to
 * [prepare], which runs it on a short-lived daemon thread (`linekit-bind`, gone once the
 * engine is bound). A control-plane call that comes first binds on its own thread
 * instead; either way every bind runs under one process-wide lock, so JNA's first-use
 * initialisation only ever runs on one thread at a time (two threads running it at once
 * can deadlock).
 */
internal object ControlPlane {
    private val lock = Any()

    /** Runs [block] under the process-wide bind lock. */
    fun <T> bind(block: () -> T): T = synchronized(lock) { block() }

    /** Starts a bind task: on a new bind thread (tests may hold the task instead). */
    @Volatile
    internal var launch: (() -> Unit) -> Unit = { task ->
        Thread(task, "linekit-bind").apply {
            isDaemon = true
            // Below the app's threads where the platform honours it (Android: nice 19).
            priority = Thread.MIN_PRIORITY
        }.start()
    }

    /** Runs [task] on a new bind thread. */
    fun prepare(task: () -> Unit) = launch(task)
}
