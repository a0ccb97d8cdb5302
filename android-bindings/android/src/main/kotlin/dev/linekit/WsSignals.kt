package dev.linekit

import java.util.concurrent.atomic.AtomicLong

/**
 * What the app tells Linekit about its surroundings that explains a WebSocket drop
 * without blaming the line: network changes ([LineKit.onNetworkChanged]) and going to the
 * background ([LineKit.markBackground]).
 *
 * Both are kept as generation counters, not timestamps, so they need no clock: a socket
 * remembers the generations at its last sign of life (open, or a message), and a drop is
 * blamed on the network or the background when a generation moved since then — a socket
 * that kept receiving after a network change survived it.
 */
internal class WsSignals {
    private val networkGeneration = AtomicLong()
    private val backgroundGeneration = AtomicLong()
    private val lastHandle = AtomicLong(NO_HANDLE)

    @Volatile
    private var background = false

    /** Whether the app is in the background now. */
    val isBackground: Boolean get() = background

    /** The default network is now [handle]; a different handle than before is a change. */
    fun networkChanged(handle: Long) {
        val previous = lastHandle.getAndSet(handle)
        if (previous != NO_HANDLE && previous != handle) networkGeneration.incrementAndGet()
    }

    /** The app entered ([inBackground] `true`) or left the background. */
    fun markBackground(inBackground: Boolean) {
        if (inBackground && !background) backgroundGeneration.incrementAndGet()
        background = inBackground
    }

    /** The generations now, to compare with at a drop. */
    fun snapshot(): Snapshot = Snapshot(networkGeneration.get(), backgroundGeneration.get())

    /** Generation counters at one moment. */
    data class Snapshot(val network: Long, val background: Long)

    /** Whether the network changed since [since]. */
    fun networkChangedSince(since: Snapshot): Boolean = networkGeneration.get() != since.network

    /** Whether the app is in the background or went there since [since]. */
    fun backgroundSince(since: Snapshot): Boolean = background || backgroundGeneration.get() != since.background

    private companion object {
        const val NO_HANDLE = Long.MIN_VALUE
    }
}
