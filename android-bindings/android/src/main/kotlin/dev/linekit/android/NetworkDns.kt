@file:JvmName("NetworkClients")

package dev.linekit.android

import android.net.Network
import dev.linekit.LineKit
import dev.linekit.LineKitDns
import dev.linekit.lineKit
import okhttp3.Dns
import okhttp3.OkHttpClient
import java.net.InetAddress
import java.net.UnknownHostException

/**
 * System DNS on one [Network] (`Network.getAllByName`), for clients whose sockets are bound
 * to that network: the platform resolves on the default network otherwise, so the answer
 * could belong to another interface than the one the connection uses. Plain [Dns]: it is
 * the delegate Linekit's `Dns` falls back to when the core answers `system`.
 */
class NetworkDns(
    /** The network lookups run on. */
    val network: Network,
) : Dns {
    @Throws(UnknownHostException::class)
    override fun lookup(hostname: String): List<InetAddress> {
        val addresses = try {
            network.getAllByName(hostname)
        } catch (e: NullPointerException) {
            // Old platform builds throw NPE instead of UnknownHostException (as OkHttp's
            // Dns.SYSTEM notes); no host name in the message: it may end up in logs.
            throw UnknownHostException("system DNS failed on the bound network").apply { initCause(e) }
        }
        return addresses.toList()
    }

    override fun toString(): String = "NetworkDns(handle=${network.networkHandle})"

    companion object {
        /** [NetworkDns] for [network], or [Dns.SYSTEM] for the default network (null). */
        @JvmStatic
        fun forNetwork(network: Network?): Dns = if (network == null) Dns.SYSTEM else NetworkDns(network)
    }
}

/**
 * An OkHttp client whose connections all use [network]: its `SocketFactory` binds sockets
 * to the network and its system DNS resolves on it ([NetworkDns]), as the platform requires
 * (a bound socket with default-network DNS may connect to an address of another network).
 * Linekit is installed with [lineKit]; its `Dns` reads the HTTPDNS records of [network]
 * itself (never the default network's) and falls back to [NetworkDns], so whenever the core
 * has no answer for that network the lookup still resolves on it.
 *
 * Java: `NetworkClients.clientFor(kit, network)`.
 *
 * @param builder a builder carrying the app's own settings (timeouts, interceptors, ...).
 */
@JvmOverloads
fun LineKit.clientFor(network: Network, builder: OkHttpClient.Builder = OkHttpClient.Builder()): OkHttpClient =
    builder
        .socketFactory(network.socketFactory)
        .lineKit(this, delegateDns = NetworkDns(network))
        .dns(LineKitDns(this, NetworkDns(network), network.networkHandle))
        .build()
