package dev.linekit.android

import android.Manifest
import android.app.Application
import android.net.ConnectivityManager
import android.net.LinkProperties
import android.net.NetworkCapabilities.TRANSPORT_CELLULAR
import android.net.NetworkCapabilities.TRANSPORT_VPN
import android.net.NetworkCapabilities.TRANSPORT_WIFI
import android.net.ProxyInfo
import android.os.Looper
import dev.linekit.LineKit
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Before
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import java.net.InetAddress
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList

@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34])
class LineKitAndroidTest {
    private lateinit var app: Application
    private lateinit var connectivity: ConnectivityManager
    private lateinit var lineKit: LineKit
    private val forwarded = CopyOnWriteArrayList<NetworkSnapshot>()
    private var monitor: LineKitAndroid? = null

    @Before
    fun setUp() {
        app = RuntimeEnvironment.getApplication()
        shadowOf(app).grantPermissions(Manifest.permission.ACCESS_NETWORK_STATE)
        connectivity = app.getSystemService(ConnectivityManager::class.java)
        // No default network at attach time unless a test sets one up.
        shadowOf(connectivity).setDefaultNetworkActive(false)
        lineKit = testLineKit()
    }

    @After
    fun tearDown() {
        monitor?.detach()
        lineKit.close()
    }

    private fun attach(scheduler: Scheduler = HandlerScheduler()): LineKitAndroid =
        LineKitAndroid.attach(app, lineKit, scheduler, onNetwork = { forwarded.add(it) }).also { monitor = it }

    private fun callback(): ConnectivityManager.NetworkCallback =
        shadowOf(connectivity).networkCallbacks.single()

    /** Lets the coalescing window (1 s on the main looper) close. */
    private fun settle() = shadowOf(Looper.getMainLooper()).idleFor(Duration.ofMillis(LineKitAndroid.DEFAULT_COALESCE_MS))

    /** Lets the coalescing window close, then checks the network the core holds, key by key. */
    private fun assertSettledNetwork(vararg expected: Pair<String, Any?>) {
        settle()
        val net = lineKit.networkJson()
        for ((key, value) in expected) assertEquals("$key in $net", value, net[key])
    }

    @Test
    fun `attach without ACCESS_NETWORK_STATE fails with a message naming the permission`() {
        shadowOf(app).denyPermissions(Manifest.permission.ACCESS_NETWORK_STATE)
        try {
            attach()
            fail("attach must refuse without the permission")
        } catch (e: SecurityException) {
            assertTrue(e.message!!.contains("android.permission.ACCESS_NETWORK_STATE"))
            assertTrue(e.message!!.contains("AndroidManifest.xml"))
        }
        assertTrue(shadowOf(connectivity).networkCallbacks.isEmpty())
    }

    @Test
    @Suppress("DEPRECATION") // Robolectric picks its active network by legacy NetworkInfo type.
    fun `attach registers a default-network callback and forwards the current network at once`() {
        shadowOf(connectivity).setDefaultNetworkActive(true)
        shadowOf(connectivity).setActiveNetworkInfo(connectivity.getNetworkInfo(ConnectivityManager.TYPE_WIFI))
        val active = connectivity.activeNetwork!!
        assertTrue(active.networkHandle != 0L)
        shadowOf(connectivity).setNetworkCapabilities(active, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        attach()
        assertEquals(1, shadowOf(connectivity).networkCallbacks.size)
        val net = lineKit.networkJson()
        assertEquals(active.networkHandle, net["handle"])
        assertEquals(true, net["validated"])
        assertEquals("wifi", net["transport"])
        assertNull(net["httpdns_bypass"])
        assertEquals(1, forwarded.size)
    }

    @Test
    fun `validated comes from onCapabilitiesChanged, not from onAvailable`() {
        attach()
        val n = network(101)
        // The platform already knows the network is validated; onAvailable must not ask.
        shadowOf(connectivity).setNetworkCapabilities(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        callback().onAvailable(n)
        assertSettledNetwork("handle" to n.networkHandle, "validated" to false, "httpdns_bypass" to "not_validated")

        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        assertSettledNetwork("validated" to true, "transport" to "wifi", "httpdns_bypass" to null)

        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = false))
        assertSettledNetwork("validated" to false)
    }

    @Test
    fun `VPN on and off reach the core`() {
        attach()
        val n = network(102)
        callback().onAvailable(n)
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_CELLULAR, TRANSPORT_VPN), validated = true))
        assertSettledNetwork("vpn" to true, "transport" to "cellular", "httpdns_bypass" to "vpn")

        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_CELLULAR), validated = true))
        assertSettledNetwork("vpn" to false, "httpdns_bypass" to null)
    }

    @Test
    fun `Private DNS strict, opportunistic and off are told apart`() {
        attach()
        val n = network(103)
        callback().onAvailable(n)
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        callback().onLinkPropertiesChanged(n, linkProperties(privateDnsActive = true, privateDnsServer = "dns.example"))
        assertSettledNetwork("private_dns" to "strict", "httpdns_bypass" to "strict_private_dns")

        callback().onLinkPropertiesChanged(n, linkProperties(privateDnsActive = true))
        assertSettledNetwork("private_dns" to "opportunistic", "httpdns_bypass" to null)

        callback().onLinkPropertiesChanged(n, linkProperties(privateDnsActive = false))
        assertSettledNetwork("private_dns" to "off")
    }

    @Test
    fun `an HTTP proxy on the network reaches the core`() {
        attach()
        val n = network(104)
        callback().onAvailable(n)
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        val link = LinkProperties()
        link.httpProxy = ProxyInfo.buildDirectProxy("proxy.example", 3128)
        callback().onLinkPropertiesChanged(n, link)
        assertSettledNetwork("proxy" to true, "httpdns_bypass" to "proxy")

        callback().onLinkPropertiesChanged(n, LinkProperties())
        assertSettledNetwork("proxy" to false, "httpdns_bypass" to null)
    }

    @Test
    fun `onLost clears only the network it names`() {
        attach()
        val wifi = network(105)
        val cell = network(106)
        callback().onAvailable(wifi)
        callback().onCapabilitiesChanged(wifi, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        settle()
        // The default moves to cellular; Wi-Fi's late loss must not wipe cellular.
        callback().onAvailable(cell)
        callback().onCapabilitiesChanged(cell, capabilities(listOf(TRANSPORT_CELLULAR), validated = true))
        callback().onLost(wifi)
        assertSettledNetwork("handle" to cell.networkHandle, "validated" to true, "transport" to "cellular")

        callback().onLost(cell)
        assertSettledNetwork("handle" to 0L, "httpdns_bypass" to "no_network")
        assertNull(monitor!!.defaultNetwork)
    }

    @Test
    fun `a change after a quiet period reaches the core at once`() {
        val scheduler = ManualScheduler()
        attach(scheduler)
        val n = network(250)
        callback().onAvailable(n)
        assertEquals("no coalescing delay for the first change", n.networkHandle, lineKit.networkJson()["handle"])
        assertEquals(2, forwarded.size) // the seed at attach, then this change
        // Quiet again: once the window has passed, the next change is immediate too.
        scheduler.advance(5_000)
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        assertEquals(true, lineKit.networkJson()["validated"])
        assertEquals(3, forwarded.size)
    }

    @Test
    fun `a callback storm is merged after its first change, and its last state is delivered`() {
        attach()
        val before = forwarded.size
        val looper = shadowOf(Looper.getMainLooper())
        var last = network(200)
        for (i in 0 until 40) {
            last = network(200 + i)
            callback().onAvailable(last)
            callback().onCapabilitiesChanged(last, capabilities(listOf(TRANSPORT_WIFI), validated = i % 2 == 1))
            callback().onLinkPropertiesChanged(last, linkProperties())
            if (i == 0) assertEquals("the first change is not delayed", before + 1, forwarded.size)
            looper.idleFor(Duration.ofMillis(20)) // 40 × 20 ms = 800 ms: all inside one window
        }
        assertEquals("the rest of the storm is held while it lasts", before + 1, forwarded.size)
        looper.idleFor(Duration.ofMillis(200))
        assertEquals(before + 2, forwarded.size)
        val net = lineKit.networkJson()
        assertEquals(last.networkHandle, net["handle"])
        assertEquals(true, net["validated"])
        looper.idleFor(Duration.ofSeconds(5))
        assertEquals("no trailing duplicate", before + 2, forwarded.size)
    }

    @Test
    fun `coalescing with an injected scheduler forwards once per window and skips no-ops`() {
        val scheduler = ManualScheduler()
        attach(scheduler)
        val n = network(300)
        callback().onAvailable(n) // forwarded at once, opens the window
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        scheduler.advance(999)
        assertEquals(2, forwarded.size)
        assertEquals(false, forwarded.last().validated)
        scheduler.advance(1)
        assertEquals(3, forwarded.size)
        assertEquals(true, forwarded.last().validated)

        // A change reverted inside the window leaves the core alone.
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = false))
        callback().onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        scheduler.advance(1_000)
        assertEquals(3, forwarded.size)
        assertEquals(0, scheduler.pending)
    }

    @Test
    fun `on API 25 the state of a new default network is read from the platform until validated`() {
        val scheduler = ManualScheduler()
        withSdkInt(25) {
            attach(scheduler)
            val n = network(600)
            shadowOf(connectivity).setNetworkCapabilities(n, capabilities(listOf(TRANSPORT_WIFI), validated = false))
            // No onCapabilitiesChanged follows onAvailable on API 24-25.
            callback().onAvailable(n)
            var net = lineKit.networkJson()
            assertEquals(n.networkHandle, net["handle"])
            assertEquals("wifi", net["transport"])
            assertEquals("not_validated", net["httpdns_bypass"])

            // Validation completes without a callback: the re-read picks it up.
            shadowOf(connectivity).setNetworkCapabilities(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
            scheduler.advance(1_000)
            net = lineKit.networkJson()
            assertEquals(true, net["validated"])
            assertNull(net["httpdns_bypass"])
            val count = forwarded.size
            scheduler.advance(60_000)
            assertEquals("re-reads stop once validated", count, forwarded.size)
            assertEquals(0, scheduler.pending)
        }
    }

    @Test
    fun `on API 26+ onAvailable alone never reads the platform`() {
        val scheduler = ManualScheduler()
        attach(scheduler)
        val n = network(601)
        shadowOf(connectivity).setNetworkCapabilities(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        callback().onAvailable(n)
        scheduler.advance(60_000)
        assertEquals(false, lineKit.networkJson()["validated"])
    }

    @Test
    fun `idle connections of a registered client are evicted when the default network changes`() {
        MockWebServer().use { server ->
            server.start(InetAddress.getByName("127.0.0.1"), 0)
            repeat(3) { server.enqueue(MockResponse.Builder().body("ok").build()) }
            val client = OkHttpClient()
            val scheduler = ManualScheduler()
            attach(scheduler).evictIdleConnectionsOnNetworkChange(client)
            fun get() = client.newCall(Request.Builder().url(server.url("/")).build()).execute().use { it.body.string() }
            val wifi = network(700)
            callback().onAvailable(wifi)
            assertEquals("ok", get())
            assertEquals(1, client.connectionPool.idleConnectionCount())

            // Same network, new capabilities: the connection stays.
            callback().onCapabilitiesChanged(wifi, capabilities(listOf(TRANSPORT_WIFI), validated = true))
            scheduler.advance(1_000)
            assertEquals(true, lineKit.networkJson()["validated"])
            assertEquals(1, client.connectionPool.idleConnectionCount())

            // A new default network: idle connections of the old one are closed.
            callback().onAvailable(network(701))
            scheduler.advance(1_000)
            assertEquals(network(701).networkHandle, lineKit.networkJson()["handle"])
            assertEquals(0, client.connectionPool.idleConnectionCount())
            assertEquals("ok", get())
            assertEquals(2, server.requestCount)
        }
    }

    @Test
    fun `detach unregisters, drops the pending forward and ignores later callbacks`() {
        val scheduler = ManualScheduler()
        val m = attach(scheduler)
        val cb = callback()
        val n = network(400)
        cb.onAvailable(n) // forwarded at once
        cb.onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true)) // pending
        m.detach()
        assertTrue(m.isDetached)
        assertTrue(shadowOf(connectivity).networkCallbacks.isEmpty())
        cb.onCapabilitiesChanged(n, capabilities(listOf(TRANSPORT_WIFI), validated = true))
        scheduler.advance(10_000)
        assertEquals(2, forwarded.size)
        assertEquals(n.networkHandle, lineKit.networkJson()["handle"])
        assertEquals(false, lineKit.networkJson()["validated"])
        m.detach() // idempotent
    }

    @Test
    fun `a closed engine does not make the callback throw`() {
        val scheduler = ManualScheduler()
        attach(scheduler)
        lineKit.close()
        val n = network(500)
        callback().onAvailable(n)
        scheduler.advance(1_000)
        assertFalse(forwarded.any { it.handle == n.networkHandle })
        lineKit = testLineKit() // for tearDown
    }
}
