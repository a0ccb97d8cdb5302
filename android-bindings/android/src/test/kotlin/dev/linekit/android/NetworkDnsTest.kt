package dev.linekit.android

import dev.linekit.LineKit
import dev.linekit.LineKitDns
import dev.linekit.LineKitInterceptor
import dev.linekit.eventually
import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
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
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
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

    /** A resolver that answers 127.0.0.9 for anything and counts its calls. */
    private class FallbackDns : Dns {
        val calls = AtomicInteger()
        override fun lookup(hostname: String): List<InetAddress> {
            calls.incrementAndGet()
            return listOf(InetAddress.getByAddress(hostname, byteArrayOf(127, 0, 0, 9)))
        }
    }

    private fun List<InetAddress>.ips(): List<String> = map { it.hostAddress!! }

    @Test
    fun `clientFor reads the HTTPDNS records of its own network, never the default one's`() {
        val answer = AtomicReference("127.0.0.1")
        MockWebServer().use { provider ->
            provider.dispatcher = object : Dispatcher() {
                override fun dispatch(request: RecordedRequest): MockResponse {
                    val host = request.url.queryParameter("host") ?: ""
                    return MockResponse.Builder()
                        .body("""{"host":"$host","ips":["${answer.get()}"],"ttl":300}""")
                        .build()
                }
            }
            provider.start(InetAddress.getByName("127.0.0.1"), 0)
            val config = """
                {"version":1,"allow_cleartext":true,"thresholds":{"detect_jitter_ms":0},
                 "httpdns":{"hosts":["*.linekit.test"],"allow_private":["*.linekit.test"],
                   "providers":[{"id":"ali","format":"aliyun","url":"http://127.0.0.1:${provider.port}/100000/d"}]},
                 "biz_lines":{"spot":{"match":["spot.linekit.test"],"http":[{"id":"a","url":"http://127.0.0.1:1"}]}}}
            """.trimIndent()
            LineKit.Builder().configJson(config).build().use { kit ->
                val wifi = network(801)
                val cell = network(802)
                val fallback = FallbackDns()
                answer.set("127.0.0.1")
                kit.onNetworkChanged(wifi.networkHandle, validated = true)
                assertTrue(eventually { kit.dns(fallback).lookup(HOST).ips() == listOf("127.0.0.1") })
                answer.set("127.0.0.2")
                kit.onNetworkChanged(cell.networkHandle, validated = true)
                assertTrue(eventually { kit.dns(fallback).lookup(HOST).ips() == listOf("127.0.0.2") })

                // Cellular is the default now; a client bound to Wi-Fi gets Wi-Fi's record.
                val onWifi = kit.clientFor(wifi).dns
                assertEquals(listOf("127.0.0.1"), onWifi.lookup(HOST).ips())
                assertEquals(listOf("127.0.0.2"), kit.clientFor(cell).dns.lookup(HOST).ips())
                // A network with no records of its own falls back to its own resolver.
                val before = fallback.calls.get()
                val unknown = LineKitDns(kit, fallback, network(803).networkHandle)
                assertEquals(listOf("127.0.0.9"), unknown.lookup(HOST).ips())
                assertEquals(before + 1, fallback.calls.get())
            }
        }
    }

    private companion object {
        const val HOST = "api.linekit.test"
    }
}
