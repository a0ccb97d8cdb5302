package dev.linekit.android

import android.net.LinkProperties
import android.net.NetworkCapabilities
import android.os.Build
import dev.linekit.LineKit
import dev.linekit.PrivateDnsMode

/**
 * What Linekit forwards to the core about the default network: the values of
 * [LineKit.onNetworkChanged], read from the platform's [NetworkCapabilities] and
 * [LinkProperties] as the network callback delivers them.
 *
 * @property handle `Network.getNetworkHandle()`; 0 when there is no default network.
 * @property validated `NET_CAPABILITY_VALIDATED` (false until capabilities arrive).
 * @property vpn `TRANSPORT_VPN`.
 * @property privateDns Private DNS mode (API 28+; always off before).
 * @property proxy whether `LinkProperties.getHttpProxy()` is set.
 * @property transport `wifi`, `cellular`, `ethernet`, `bluetooth`, `vpn`, or null if unknown.
 */
data class NetworkSnapshot(
    val handle: Long,
    val validated: Boolean,
    val vpn: Boolean,
    val privateDns: PrivateDnsMode,
    val proxy: Boolean,
    val transport: String?,
) {
    companion object {
        /** No default network known: the core bypasses HTTPDNS (lines are routed as usual). */
        @JvmField
        val NONE = NetworkSnapshot(0L, false, false, PrivateDnsMode.OFF, false, null)

        /**
         * Reads a snapshot of network [handle] from what the callback delivered so far;
         * either part may still be missing (the platform sends them right after
         * `onAvailable`), in which case its fields keep their "not known" defaults.
         */
        @JvmStatic
        fun of(handle: Long, caps: NetworkCapabilities?, link: LinkProperties?): NetworkSnapshot =
            NetworkSnapshot(
                handle = handle,
                validated = caps?.hasCapability(NetworkCapabilities.NET_CAPABILITY_VALIDATED) ?: false,
                vpn = caps?.hasTransport(NetworkCapabilities.TRANSPORT_VPN) ?: false,
                privateDns = link?.let(::privateDnsMode) ?: PrivateDnsMode.OFF,
                proxy = link?.httpProxy != null,
                transport = caps?.let(::transportName),
            )

        /**
         * Android reports Private DNS as "active" plus an optional server name: a name
         * means strict mode (that resolver or nothing), active without a name means
         * opportunistic DNS-over-TLS, inactive means off (also when opportunistic mode
         * found no resolver that speaks TLS).
         */
        private fun privateDnsMode(link: LinkProperties): PrivateDnsMode = when {
            Build.VERSION.SDK_INT < Build.VERSION_CODES.P -> PrivateDnsMode.OFF
            !link.isPrivateDnsActive -> PrivateDnsMode.OFF
            link.privateDnsServerName != null -> PrivateDnsMode.STRICT
            else -> PrivateDnsMode.OPPORTUNISTIC
        }

        /** The physical transport first; `vpn` only when nothing underneath is reported. */
        private fun transportName(caps: NetworkCapabilities): String? = when {
            caps.hasTransport(NetworkCapabilities.TRANSPORT_WIFI) -> "wifi"
            caps.hasTransport(NetworkCapabilities.TRANSPORT_CELLULAR) -> "cellular"
            caps.hasTransport(NetworkCapabilities.TRANSPORT_ETHERNET) -> "ethernet"
            caps.hasTransport(NetworkCapabilities.TRANSPORT_BLUETOOTH) -> "bluetooth"
            caps.hasTransport(NetworkCapabilities.TRANSPORT_VPN) -> "vpn"
            else -> null
        }
    }
}
