package dev.linekit

import okhttp3.Dns
import java.net.InetAddress
import java.net.UnknownHostException

/**
 * OkHttp's [Dns] backed by Linekit's HTTPDNS snapshot: installed by
 * `OkHttpClient.Builder.lineKit(lineKit)`.
 *
 * [lookup] is a memory read: a hit is answered from a Kotlin memo of the core's earlier
 * answers without crossing JNI, as long as the core's snapshot generation is unchanged and
 * the record is before its `refresh_at`; otherwise it reads the core's current-network
 * snapshot through JNI (which queues a due refresh). It never waits for the network, the
 * disk or a lock held across I/O. The addresses come back as `InetAddress.getByAddress(hostname, bytes)`
 * (never a name lookup), v6/v4 interleaved for OkHttp's fast fallback, minus quarantined
 * ones. When the core has nothing usable — the host is not an HTTPDNS host, no record
 * yet (a refresh is then queued in the background), the record expired, or HTTPDNS is
 * bypassed on this network (VPN, strict Private DNS, proxy, not validated) — the lookup
 * goes to [delegate], the platform resolver by default (on Android pass a resolver bound
 * to the same `Network`). When that fails too, or returns only addresses the core's
 * address policy rejects, a host listed in `httpdns.bootstrap` gets its built-in
 * addresses instead. It never returns an empty list.
 *
 * A client bound to one network (Android's `Network.socketFactory`) passes that network's
 * handle as [networkHandle]: its lookups read that network's own records (learned while it
 * was the default network), never the default network's, and fall back to [delegate] (a
 * resolver on the same network) when it has none.
 *
 * @param lineKit the engine.
 * @param delegate the resolver used whenever the core says `system`.
 * @param networkHandle `Network.getNetworkHandle()` of the client's network; 0 (the
 *   default) follows the default network.
 */
class LineKitDns @JvmOverloads constructor(
    private val lineKit: LineKit,
    /** The resolver used when the core has no HTTPDNS answer (`system`). */
    val delegate: Dns = Dns.SYSTEM,
    /** The network whose records are read; 0 = the default network. */
    val networkHandle: Long = 0L,
) : Dns {
    /**
     * The addresses for [hostname].
     *
     * @throws UnknownHostException for a blank name, or when [delegate] finds nothing.
     */
    @Throws(UnknownHostException::class)
    override fun lookup(hostname: String): List<InetAddress> {
        if (hostname.isBlank()) throw UnknownHostException("linekit: blank host name")
        lineKit.resolver.lookup(hostname, networkHandle)?.let { return it }
        val answer = try {
            delegate.lookup(hostname)
        } catch (e: UnknownHostException) {
            lineKit.bootstrap.addresses(hostname, emptyList())?.let { return it }
            throw e
        }
        lineKit.bootstrap.addresses(hostname, answer)?.let { return it }
        if (answer.isEmpty()) throw UnknownHostException("$delegate returned no addresses for $hostname")
        return answer
    }

    override fun toString(): String =
        if (networkHandle == 0L) "LineKitDns(delegate=$delegate)" else "LineKitDns(network=$networkHandle, delegate=$delegate)"
}
