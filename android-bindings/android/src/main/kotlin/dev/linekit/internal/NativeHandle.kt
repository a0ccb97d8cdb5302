package dev.linekit.internal

import java.util.concurrent.atomic.AtomicLong

/**
 * Owns one native handle (a leaked engine reference) and makes use-after-free impossible:
 * every use bumps a call counter that starts at 1; [close] drops that initial 1, and
 * whoever brings the counter to 0 — [close] or the last call in flight — releases the
 * handle. Same scheme as UniFFI's generated objects.
 */
internal class NativeHandle(private val handle: Long) : AutoCloseable {
    @PublishedApi
    internal val calls = AtomicLong(1)
    @PublishedApi
    internal val closed = java.util.concurrent.atomic.AtomicBoolean(false)

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
            if (calls.decrementAndGet() == 0L) NativeFast.release(handle)
        }
    }

    override fun close() {
        if (closed.compareAndSet(false, true) && calls.decrementAndGet() == 0L) {
            NativeFast.release(handle)
        }
    }
}
