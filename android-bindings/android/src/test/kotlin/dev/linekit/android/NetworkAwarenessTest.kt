package dev.linekit.android

import android.Manifest
import android.app.Application
import android.net.ConnectivityManager
import android.net.Network
import android.net.NetworkCapabilities
import android.net.NetworkCapabilities.TRANSPORT_WIFI
import dev.linekit.LineKit
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Before
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import org.robolectric.annotation.Implementation
import org.robolectric.annotation.Implements
import org.robolectric.shadows.ShadowConnectivityManager
import org.robolectric.shadows.ShadowLog

/** The Android 11 platform bug: registering the default-network callback throws. */
@Implements(ConnectivityManager::class)
class ThrowingRegisterConnectivityManager : ShadowConnectivityManager() {
    @Implementation
    override fun registerDefaultNetworkCallback(networkCallback: ConnectivityManager.NetworkCallback) {
        throw SecurityException("Package android does not belong to 10123")
    }
}

/** The same bug in `getNetworkCapabilities`. */
@Implements(ConnectivityManager::class)
class ThrowingCapabilitiesConnectivityManager : ShadowConnectivityManager() {
    @Implementation
    override fun getNetworkCapabilities(network: Network?): NetworkCapabilities? {
        throw SecurityException("Package android does not belong to 10123")
    }
}

/**
 * Some Android 11 builds throw `SecurityException` from the connectivity APIs although the
 * permission is granted: attach survives it, says so once, and Linekit keeps routing with
 * HTTPDNS bypassed.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34])
class NetworkAwarenessTest {
    private lateinit var app: Application
    private lateinit var lineKit: LineKit
    private var monitor: LineKitAndroid? = null

    @Before
    fun setUp() {
        app = RuntimeEnvironment.getApplication()
        shadowOf(app).grantPermissions(Manifest.permission.ACCESS_NETWORK_STATE)
        val connectivity = app.getSystemService(ConnectivityManager::class.java)
        @Suppress("DEPRECATION") // Robolectric picks its active network by legacy NetworkInfo type.
        shadowOf(connectivity).setActiveNetworkInfo(connectivity.getNetworkInfo(ConnectivityManager.TYPE_WIFI))
        shadowOf(connectivity).setNetworkCapabilities(
            connectivity.activeNetwork,
            capabilities(listOf(TRANSPORT_WIFI), validated = true),
        )
        ShadowLog.clear()
        lineKit = testLineKit()
    }

    @After
    fun tearDown() {
        monitor?.detach()
        lineKit.close()
    }

    private fun attachAndCheck() {
        val scheduler = ManualScheduler()
        val m = LineKitAndroid.attach(app, lineKit, scheduler).also { monitor = it }
        assertTrue(m.networkAwarenessError is SecurityException)
        // No network awareness: the core knows no network and bypasses HTTPDNS ...
        val net = lineKit.networkJson()
        assertEquals(0L, net["handle"])
        assertEquals("no_network", net["httpdns_bypass"])
        // ... while routing across lines is unaffected.
        val decision = lineKit.route("http://api.linekit.test/v1/x")
        assertEquals("a", decision.line)
        assertEquals("http://127.0.0.1:1/v1/x", decision.url)
        scheduler.advance(60_000)
        m.detach()
        val reports = ShadowLog.getLogsForTag(LineKitAndroid.TAG).filter { it.msg.contains("without network awareness") }
        assertEquals("reported once", 1, reports.size)
        assertTrue(reports.single().msg.contains("SecurityException"))
    }

    @Test
    @Config(shadows = [ThrowingRegisterConnectivityManager::class])
    fun `a SecurityException from registerDefaultNetworkCallback leaves Linekit working without network awareness`() {
        attachAndCheck()
    }

    @Test
    @Config(shadows = [ThrowingCapabilitiesConnectivityManager::class])
    fun `a SecurityException from getNetworkCapabilities leaves Linekit working without network awareness`() {
        attachAndCheck()
    }

    @Test
    fun `without the platform bug the monitor is network aware`() {
        val m = LineKitAndroid.attach(app, lineKit, ManualScheduler()).also { monitor = it }
        assertNull(m.networkAwarenessError)
        assertTrue(lineKit.networkJson()["handle"] != 0L)
        assertTrue(ShadowLog.getLogsForTag(LineKitAndroid.TAG).none { it.msg.contains("without network awareness") })
    }
}
