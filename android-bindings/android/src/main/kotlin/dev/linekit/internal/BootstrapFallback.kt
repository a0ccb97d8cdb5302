package dev.linekit.internal

import dev.linekit.ffi.LineKitException
import dev.linekit.ffi.NativeLineKit
import java.net.InetAddress

/**
 * The config's built-in addresses (`httpdns.bootstrap`), the last resort of
 * [dev.linekit.LineKitDns]. The core decides whether they apply: only for a listed host,
 * and only when the system resolver failed or returned nothing the address policy accepts.
 * The call runs inside the engine's open state ([handle]); a closed engine offers nothing.
 */
internal class BootstrapFallback(private val native: () -> NativeLineKit, private val handle: NativeHandle) {
    /** The built-in addresses for [host] after the system answered [system] (empty = it failed), or null. */
    fun addresses(host: String, system: List<InetAddress>): List<InetAddress>? {
        val listed = try {
            handle.use { native().bootstrapFallback(host, system.map { it.address }) }
        } catch (_: LineKitException.Closed) {
            null
        } ?: return null
        return listed.ifEmpty { null }?.map { InetAddress.getByAddress(host, it) }
    }
}
