package dev.linekit.internal

import java.net.InetAddress
import java.util.Collections
import java.util.concurrent.atomic.AtomicLong

/**
 * The per-connection DNS calls into the engine, over the JNI path ([JniResolver], the only
 * one). A closed engine answers `null` (use the system resolver) and ignores connect
 * results. [ConnectFailureKind] is generated from the core's `ConnectError` list.
 */
internal interface Resolver {
    /**
     * The core's addresses for [host] in connect order, or null: use the system resolver.
     * [network] is the handle of the network a bound client uses ([DEFAULT_NETWORK]: the
     * default network); its own records are read, never another network's.
     */
    fun lookup(host: String, network: Long = DEFAULT_NETWORK): List<InetAddress>?

    /** A connect to [ip] for [host] failed; whether the address was quarantined. */
    fun connectFailed(host: String, ip: InetAddress, kind: ConnectFailureKind): Boolean

    /** A connect to [ip] for [host] succeeded in [connectMs] ms (-1: not measured); a measured time also ranks the address. */
    fun connectSucceeded(host: String, ip: InetAddress, connectMs: Long = -1)
}

/** The `network` of [Resolver.lookup] that means "the default network". */
internal const val DEFAULT_NETWORK: Long = 0L

/**
 * [Resolver] over the JNI fast path. A lookup the core has answered before is served from
 * [memo] without crossing JNI while the core's snapshot generation is unchanged and the
 * answer's keep time (until `refresh_at`) has not passed; anything else asks the core, so
 * misses and due refreshes still reach it.
 */
internal class JniResolver(private val handle: NativeHandle) : Resolver {
    /** The kept answers; null only when the engine was closed before this was built. */
    internal val memo: DnsMemo? = handle.use { NativeDns.generation(it) }?.let { DnsMemo(it) }

    /** Lookups that crossed into native code (tests check that a hit does not). */
    internal val nativeLookups = AtomicLong()

    override fun lookup(host: String, network: Long): List<InetAddress>? {
        if (handle.isClosed) return null
        val memo = memo
        memo?.get(host, network)?.let { return it }
        // Read before asking: a change racing the call leaves the kept answer stale.
        val generation = memo?.generation() ?: 0
        nativeLookups.incrementAndGet()
        val packed = handle.use { NativeDns.lookup(it, host, network) } ?: return null
        val addrs = unpack(host, packed) ?: return null
        memo?.put(host, network, addrs, generation, LookupAnswer.keepMs(packed))
        return addrs
    }

    override fun connectFailed(host: String, ip: InetAddress, kind: ConnectFailureKind): Boolean {
        val result = ConnectResult.pack(true, kind.code, false, 0L)
        return handle.use { NativeDns.connectResult(it, host, ip.address, result) } ?: false
    }

    override fun connectSucceeded(host: String, ip: InetAddress, connectMs: Long) {
        val result = ConnectResult.pack(false, 0, connectMs >= 0, connectMs.coerceIn(0L, MAX_CONNECT_MS))
        handle.use { NativeDns.connectResult(it, host, ip.address, result) }
    }

    companion object {
        /** The largest connect time a [ConnectResult] carries (longer ones are saturated). */
        private const val MAX_CONNECT_MS = 0xffffffffL

        /**
         * The addresses of the [LookupAnswer] [packed]; every entry keeps [host] as its
         * name. The list is read-only (it may be handed out again from the memo); null for
         * none.
         */
        fun unpack(host: String, packed: ByteArray): List<InetAddress>? {
            val out = ArrayList<InetAddress>(packed.size / 5)
            val whole = LookupAnswer.forEachEntry(packed) { at, length ->
                check(length == 4 || length == 16) { "linekit: malformed lookup answer" }
                out.add(InetAddress.getByAddress(host, packed.copyOfRange(at, at + length)))
            }
            check(whole) { "linekit: malformed lookup answer" }
            return if (out.isEmpty()) null else Collections.unmodifiableList(out)
        }
    }
}
