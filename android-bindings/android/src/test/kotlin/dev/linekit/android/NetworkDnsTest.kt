package dev.linekit.android

import dev.linekit.LineKitDns
import dev.linekit.LineKitInterceptor
import okhttp3.Dns
import org.junit.Assert.assertEquals
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import java.net.InetAddress
import java.net.Socket
import javax.net.SocketFactory

@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34])
class NetworkDnsTest {
    /** A socket factory standing in for the one that binds sockets to the network. */
    private class BoundFactory : SocketFactory() {
        override fun createSocket(): Socket = Socket()
        override fun createSocket(host: String?, port: Int): Socket = throw UnsupportedOperationException()
        override fun createSocket(host: String?, port: Int, localHost: InetAddress?, localPort: Int): Socket =
            throw UnsupportedOperationException()
        override fun createSocket(host: InetAddress?, port: Int): Socket = throw UnsupportedOperationException()
        override fun createSocket(address: InetAddress?, port: Int, localAddress: InetAddress?, localPort: Int): Socket =
            throw UnsupportedOperationException()
    }

    @Test
    fun `the default network uses Dns SYSTEM, a bound one resolves on that network`() {
        assertSame(Dns.SYSTEM, NetworkDns.forNetwork(null))
        val n = network(700)
        val dns = NetworkDns.forNetwork(n)
        assertTrue(dns is NetworkDns)
        assertSame(n, (dns as NetworkDns).network)
        assertEquals("NetworkDns(handle=${n.networkHandle})", dns.toString())
    }

    @Test
    fun `clientFor pairs the network's socket factory with its DNS and installs Linekit`() {
        val n = network(701)
        val factory = BoundFactory()
        shadowOf(n).setSocketFactory(factory)
        testLineKit().use { kit ->
            val client = kit.clientFor(n)
            assertSame(factory, client.socketFactory)
            val dns = client.dns as LineKitDns
            assertSame("the core's fallback resolves on the network", n, (dns.delegate as NetworkDns).network)
            assertTrue(client.interceptors.first() is LineKitInterceptor)
        }
    }
}
