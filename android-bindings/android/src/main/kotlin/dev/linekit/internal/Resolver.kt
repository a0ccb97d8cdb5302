package dev.linekit.internal

import dev.linekit.ffi.ConnectFailure
import dev.linekit.ffi.DnsSource
import dev.linekit.ffi.LineKitException
import dev.linekit.ffi.NativeLineKit
import java.net.InetAddress

/**
 * How one connect to one address failed, as the core's quarantine sees it. [code] is the
 * JNI wire code (the position in the core's `ConnectError::ALL`), so the order matters.
 */
internal enum class ConnectFailureKind {
    REFUSED,
    TIMEOUT,
    NO_ROUTE,
    TLS,
    HTTP_5XX,
    READ_TIMEOUT,
    PROXY_CONNECT,
    CANCELLED_RACE,
    ;

    val code: Int get() = ordinal
}

/**
 * The per-connection DNS calls into the engine, through [JniResolver] or [UniffiResolver]
 * (switched by `LineKit.Builder.fastPath`). A closed engine answers `null` (use the
 * system resolver) and ignores connect results.
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

/** [Resolver] over the generated UniFFI bindings. */
internal class UniffiResolver(private val native: NativeLineKit) : Resolver {
    override fun lookup(host: String, network: Long): List<InetAddress>? {
        val r = closedAsNull {
            if (network == DEFAULT_NETWORK) native.lookup(host) else native.lookupOn(host, network.toULong())
        } ?: return null
        if (r.source == DnsSource.SYSTEM || r.addresses.isEmpty()) return null
        return r.addresses.map { InetAddress.getByAddress(host, it) }
    }

    override fun connectFailed(host: String, ip: InetAddress, kind: ConnectFailureKind): Boolean =
        closedAsNull { native.connectFailed(host, ip.address, ConnectFailure.entries[kind.code]) } ?: false

    override fun connectSucceeded(host: String, ip: InetAddress) {
        closedAsNull { native.connectSucceeded(host, ip.address) }
    }

    override fun connectSucceeded(host: String, ip: InetAddress, connectMs: Long) {
        closedAsNull { native.connectSucceededMs(host, ip.address, connectMs.coerceAtLeast(0).toULong()) }
    }

    private inline fun <R> closedAsNull(block: () -> R): R? = try {
        block()
    } catch (_: LineKitException.Closed) {
        null
    } catch (_: IllegalStateException) {
        // The generated object was already destroyed.
        null
    }
}
