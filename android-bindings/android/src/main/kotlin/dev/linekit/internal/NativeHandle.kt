package dev.linekit.internal

import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * Owns one native handle (a leaked engine reference) and is the engine's explicit closed
 * state: every use bumps a call counter that starts at 1; [close] drops that initial 1, and
 * whoever brings the counter to 0 — [close] or the last call in flight — releases the
 * handle and runs [onRelease] (which frees the UniFFI object). A call after [close] is
 * refused up front, so no call ever meets a freed object. Same scheme as UniFFI's
 * generated objects.
 */
internal class NativeHandle(
    private val handle: Long,
    private val onRelease: () -> Unit = {},
) : AutoCloseable {
    @PublishedApi
    internal val calls = AtomicLong(1)

    @PublishedApi
    internal val closed = AtomicBoolean(false)

    /** Whether [close] was called. */
    val isClosed: Boolean get() = closed.get()

    /**
     * Runs [block] with the live handle, or returns null once [close] was called (calls
     * already in flight finish; the counter alone would let a busy caller go on forever).
     */
    inline fun <R> use(block: (Long) -> R): R? {
        if (closed.get()) return null
        while (true) {
            val c = calls.get()
            if (c == 0L) return null
            if (calls.compareAndSet(c, c + 1)) break
        }
        try {
            return block(handle)
        } finally {
            if (calls.decrementAndGet() == 0L) release()
        }
    }

    @PublishedApi
    internal fun release() {
        NativeFast.release(handle)
        onRelease()
    }

    override fun close() {
        if (closed.compareAndSet(false, true) && calls.decrementAndGet() == 0L) release()
    }
}
