package dev.linekit.internal

import java.net.InetAddress

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

    /** A connect to [ip] for [host] succeeded. */
    fun connectSucceeded(host: String, ip: InetAddress)

    /** A connect to [ip] for [host] succeeded in [connectMs] ms: also ranks the address. */
    fun connectSucceeded(host: String, ip: InetAddress, connectMs: Long)
}

/** The `network` of [Resolver.lookup] that means "the default network". */
internal const val DEFAULT_NETWORK: Long = 0L

/** [Resolver] over the JNI fast path. */
internal class JniResolver(private val handle: NativeHandle) : Resolver {
    override fun lookup(host: String, network: Long): List<InetAddress>? {
        val packed = handle.use { NativeDns.lookup(it, host, network) } ?: return null
        return unpack(host, packed)
    }

    override fun connectFailed(host: String, ip: InetAddress, kind: ConnectFailureKind): Boolean =
        handle.use { NativeDns.connectFailed(it, host, ip.address, kind.code) } ?: false

    override fun connectSucceeded(host: String, ip: InetAddress) {
        handle.use { NativeDns.connectSucceeded(it, host, ip.address) }
    }

    override fun connectSucceeded(host: String, ip: InetAddress, connectMs: Long) {
        handle.use { NativeDns.connectSucceededMs(it, host, ip.address, connectMs) }
    }

    companion object {
        /** Decodes length-prefixed addresses; every entry keeps [host] as its name. */
        fun unpack(host: String, packed: ByteArray): List<InetAddress>? {
            val out = ArrayList<InetAddress>(packed.size / 5)
            var i = 0
            while (i < packed.size) {
                val len = packed[i].toInt()
                check((len == 4 || len == 16) && i + 1 + len <= packed.size) { "linekit: malformed lookup answer" }
                out.add(InetAddress.getByAddress(host, packed.copyOfRange(i + 1, i + 1 + len)))
                i += 1 + len
            }
            return out.ifEmpty { null }
        }
    }
}
