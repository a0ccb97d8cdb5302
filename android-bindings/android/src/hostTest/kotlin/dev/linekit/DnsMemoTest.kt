package dev.linekit

import dev.linekit.internal.ConnectFailureKind
import dev.linekit.internal.JniResolver
import dev.linekit.internal.NanoClock
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.util.concurrent.TimeUnit

/** A clock moved by hand for the memo's deadlines. */
private class ManualNanos : NanoClock {
    @Volatile
    var now = 1_000_000_000L
    override fun nanoTime(): Long = now
    fun advanceSeconds(s: Long) {
        now += TimeUnit.SECONDS.toNanos(s)
    }
}

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
        assertTrue(eventually { kit.state().contains("\"host\":\"$host\"") }, kit.state())
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
    fun `past refresh_at the lookup reaches native code again`() {
        build().use { kit ->
            val clock = ManualNanos()
            resolver(kit).memo!!.clock = clock
            val lookup = kit.dns(CountingDns())
            warm(kit, lookup)
            val before = natives(kit)
            // TTL 60 s, refresh_ratio 0.75 with up to 10 % jitter: refresh_at is 39-45 s out.
            clock.advanceSeconds(20)
            lookup.lookup(host)
            assertEquals(before, natives(kit), "before refresh_at: kept")
            clock.advanceSeconds(26)
            lookup.lookup(host)
            assertEquals(before + 1, natives(kit), "past refresh_at: asks the core (which queues the refresh)")
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
