package dev.linekit

import java.util.concurrent.TimeUnit

/**
 * Polls [condition] every 10 ms for up to [timeoutMs] and returns whether it became true:
 * for work the engine does on its own threads (HTTPDNS queries against a local server,
 * probes). Shared by the host-JVM and the Robolectric tests.
 */
fun eventually(timeoutMs: Long = 5_000, condition: () -> Boolean): Boolean {
    val end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
    while (System.nanoTime() < end) {
        if (condition()) return true
        Thread.sleep(10)
    }
    return condition()
}
