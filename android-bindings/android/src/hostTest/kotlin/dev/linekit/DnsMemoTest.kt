package dev.linekit

import dev.linekit.internal.ConnectFailureKind
import dev.linekit.internal.JniResolver
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.util.concurrent.TimeUnit

/** `LineKitDns` hits are served by the Kotlin memo; everything that changes the answer reaches the core. */
class DnsMemoTest {
    private val dns = HttpDnsServer()
    private val host = "api.linekit.test"

    @AfterEach
    fun tearDown() = dns.close()

    private fun build(config: String = httpDnsConfig(dns)): LineKit =
        LineKit.Builder().configJson(config).build().also { it.onNetworkChanged(1, validated = true) }

    private fun resolver(kit: LineKit) = kit.resolver as JniResolver

    private fun natives(kit: LineKit) = resolver(kit).nativeLookups.get()

    /** Waits for the HTTPDNS record, then lets one lookup warm the memo. */
    private fun warm(kit: LineKit, lookup: LineKitDns = kit.dns(CountingDns())): List<InetAddress> {
        lookup.lookup(host)
        assertTrue(eventually { kit.stateJson().contains("\"host\":\"$host\"") }, kit.stateJson())
        return lookup.lookup(host)
    }

    @Test
    fun `a hit is served without crossing into native code`() {
        build().use { kit ->
            val delegate = CountingDns()
            val lookup = kit.dns(delegate)
            val first = warm(kit, lookup)
            val before = natives(kit)
            repeat(100) { assertSame(first, lookup.lookup(host)) }
            assertEquals(before, natives(kit), "hits never call native code")
            assertEquals(listOf("127.0.0.1"), first.map { it.hostAddress })
            assertEquals(1, delegate.calls.get(), "only the lookup before the record")
            // Another LineKitDns over the same engine shares the memo.
            kit.dns(delegate).lookup(host)
            assertEquals(before, natives(kit))
        }
    }

    @Test
    fun `a quarantine change reaches native code and the quarantined address is gone`() {
        dns.ips = listOf("127.0.0.2", "127.0.0.1")
        build().use { kit ->
            val lookup = kit.dns(CountingDns())
            assertEquals(listOf("127.0.0.2", "127.0.0.1"), warm(kit, lookup).map { it.hostAddress })
            val before = natives(kit)
            val bad = InetAddress.getByAddress(host, byteArrayOf(127, 0, 0, 2))
            assertTrue(kit.resolver.connectFailed(host, bad, ConnectFailureKind.REFUSED))
            assertEquals(listOf("127.0.0.1"), lookup.lookup(host).map { it.hostAddress })
            assertEquals(before + 1, natives(kit))
            lookup.lookup(host)
            assertEquals(before + 1, natives(kit), "the new answer is kept again")
            // Clearing the quarantine brings the address back at once.
            kit.resolver.connectSucceeded(host, bad)
            assertEquals(listOf("127.0.0.2", "127.0.0.1"), lookup.lookup(host).map { it.hostAddress })
            assertEquals(before + 2, natives(kit))
        }
    }

    @Test
    fun `past refresh_at the lookup reaches native code again and queues the refresh`() {
        // TTL clamped to 2 s, refresh at 75 % (1.5 s), no jitter.
        val config = httpDnsConfig(dns).replace(
            "\"hosts\":[\"*.linekit.test\"]",
            "\"min_ttl_s\":1,\"max_ttl_s\":2,\"jitter_ratio\":0,\"hosts\":[\"*.linekit.test\"]",
        )
        build(config).use { kit ->
            val lookup = kit.dns(CountingDns())
            warm(kit, lookup)
            val before = natives(kit)
            assertEquals(1, dns.queries.size)
            // Nothing here reads a clock: the core's timer moves the generation at refresh_at.
            assertTrue(eventually { lookup.lookup(host); natives(kit) > before }, "a lookup reached the core after refresh_at")
            assertTrue(eventually { lookup.lookup(host); dns.queries.size >= 2 }, "the refresh was queued and sent")
        }
    }

    @Test
    fun `a network switch and a config change reach native code`() {
        build().use { kit ->
            val delegate = CountingDns()
            val lookup = kit.dns(delegate)
            warm(kit, lookup)
            val before = natives(kit)
            val calls = delegate.calls.get()
            kit.onNetworkChanged(2, validated = true)
            lookup.lookup(host)
            assertEquals(before + 1, natives(kit))
            assertEquals(calls + 1, delegate.calls.get(), "network 2 has no record: the delegate answers")
            kit.onNetworkChanged(1, validated = true)
            lookup.lookup(host)
            assertEquals(before + 2, natives(kit))
            assertEquals(calls + 1, delegate.calls.get(), "network 1's own record is back")
            lookup.lookup(host)
            assertEquals(before + 2, natives(kit))
            assertTrue(kit.updateConfig(httpDnsConfig(dns).replace("\"version\":1", "\"version\":2")).applied)
            lookup.lookup(host)
            assertEquals(before + 3, natives(kit), "settings changed")
        }
    }

    @Test
    fun `a client bound to a network keeps its own records through the memo`() {
        build().use { kit ->
            val delegate = CountingDns()
            val bound = LineKitDns(kit, delegate, networkHandle = 1)
            val first = warm(kit, bound)
            val before = natives(kit)
            assertSame(first, bound.lookup(host))
            assertEquals(before, natives(kit))
            // Network 1 is parked: the bound client still reads its records, the default one does not.
            kit.onNetworkChanged(2, validated = true)
            assertEquals(listOf("127.0.0.1"), bound.lookup(host).map { it.hostAddress })
            assertEquals(before + 1, natives(kit))
            bound.lookup(host)
            assertEquals(before + 1, natives(kit), "the parked answer is kept too")
            val calls = delegate.calls.get()
            kit.dns(delegate).lookup(host)
            assertEquals(calls + 1, delegate.calls.get(), "the default network (2) has no record")
        }
    }

    @Test
    fun `a closed engine never answers from the memo`() {
        val kit = build()
        val delegate = CountingDns()
        val lookup = kit.dns(delegate)
        warm(kit, lookup)
        val calls = delegate.calls.get()
        kit.close()
        lookup.lookup(host)
        assertEquals(calls + 1, delegate.calls.get())
        assertFalse(resolver(kit).memo == null)
    }
}
