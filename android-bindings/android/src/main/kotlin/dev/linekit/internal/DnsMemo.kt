package dev.linekit.internal

import java.net.InetAddress
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.concurrent.ConcurrentHashMap

/**
 * The Kotlin side's copy of the core's HTTPDNS answers, so that a [dev.linekit.LineKitDns]
 * hit is a map read and never crosses JNI.
 *
 * An entry is served only while the core's snapshot generation ([generation], a direct
 * buffer over the core's own counter) is still the value read *before* the answer was
 * asked for. The core bumps it after every change a lookup could see — new records,
 * quarantine changes, connect ranking, network changes, settings — and, from a runtime
 * timer, when the first answer it handed out reaches its keep time (the record's
 * `refresh_at`, its expiry or the end of a quarantine, whichever is first). So a hit needs
 * no clock: it is one map read and one 4-byte load, and after `refresh_at` the next lookup
 * asks the core again, which queues the refresh. Reading the generation before asking
 * means a change that races the native call leaves the entry already stale, never wrongly
 * fresh.
 *
 * Answers the core does not let be kept (`system`, serve-stale, a refresh due) are never
 * stored. Keys are (network handle, host as given); the map is cleared when it grows past
 * [MAX_ENTRIES] so that a wildcard `httpdns.hosts` cannot grow it without bound.
 *
 * The generation is read with a plain load after the map's own acquire read, so it is
 * re-read on every lookup (never hoisted); a change another thread just made may be seen
 * a moment late, as with any lock-free snapshot read.
 */
internal class DnsMemo(generation: ByteBuffer) {
    private val generation: ByteBuffer = generation.duplicate().order(ByteOrder.nativeOrder())

    private class Entry(val addrs: List<InetAddress>, val generation: Int)

    private val defaultNetwork = ConcurrentHashMap<String, Entry>()
    private val bound = ConcurrentHashMap<Long, ConcurrentHashMap<String, Entry>>()

    /** The generation to pass to [put] for an answer asked for after this read. */
    fun generation(): Int = generation.getInt(0)

    /** The kept answer for [host] on [network], or null: ask the core. */
    fun get(host: String, network: Long): List<InetAddress>? {
        val map = if (network == DEFAULT_NETWORK) defaultNetwork else bound[network] ?: return null
        val e = map[host] ?: return null
        if (e.generation != generation.getInt(0)) return null
        return e.addrs
    }

    /**
     * Keeps [addrs] while the generation stays [generation]; [keepMs] 0 means the core does
     * not let this answer be kept (the core's timer, not a clock here, ends the others).
     */
    fun put(host: String, network: Long, addrs: List<InetAddress>, generation: Int, keepMs: Long) {
        val map = if (network == DEFAULT_NETWORK) defaultNetwork else bound.computeIfAbsent(network) { ConcurrentHashMap() }
        if (keepMs <= 0) {
            map.remove(host)
            return
        }
        if (map.size >= MAX_ENTRIES) map.clear()
        map[host] = Entry(addrs, generation)
    }

    /** Forgets everything (the engine closed). */
    fun clear() {
        defaultNetwork.clear()
        bound.clear()
    }

    private companion object {
        const val MAX_ENTRIES = 1024
    }
}

