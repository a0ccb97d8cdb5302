package dev.linekit

import okhttp3.Dns
import java.net.InetAddress
import java.net.UnknownHostException

/**
 * OkHttp's [Dns] backed by Linekit's HTTPDNS snapshot: installed by
 * `OkHttpClient.Builder.lineKit(lineKit)`.
 *
 * [lookup] is a memory read of the core's current-network snapshot (through JNI): it
 * never waits for the network, the disk or a lock
 * held across I/O. The addresses come back as `InetAddress.getByAddress(hostname, bytes)`
 * (never a name lookup), v6/v4 interleaved for OkHttp's fast fallback, minus quarantined
 * ones. When the core has nothing usable — the host is not an HTTPDNS host, no record
 * yet (a refresh is then queued in the background), the record expired, or HTTPDNS is
 * bypassed on this network (VPN, strict Private DNS, proxy, not validated) — the lookup
 * goes to [delegate], the platform resolver by default (on Android pass a resolver bound
 * to the same `Network`). It never returns an empty list.
 *
 * @param lineKit the engine.
 * @param delegate the resolver used whenever the core says `system`.
 */
class LineKitDns @JvmOverloads constructor(
    private val lineKit: LineKit,
    /** The resolver used when the core has no HTTPDNS answer (`system`). */
    val delegate: Dns = Dns.SYSTEM,
) : Dns {
    /**
     * The addresses for [hostname].
     *
     * @throws UnknownHostException for a blank name, or when [delegate] finds nothing.
     */
    override fun lookup(hostname: String): List<InetAddress> {
        if (hostname.isBlank()) throw UnknownHostException("linekit: blank host name")
        lineKit.resolver.lookup(hostname)?.let { return it }
        val answer = delegate.lookup(hostname)
        if (answer.isEmpty()) throw UnknownHostException("$delegate returned no addresses for $hostname")
        return answer
    }

    override fun toString(): String = "LineKitDns(delegate=$delegate)"
}
