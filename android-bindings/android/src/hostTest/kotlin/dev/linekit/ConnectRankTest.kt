package dev.linekit

import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress

/** Connect times reported through the JNI path reorder the core's next lookup. */
class ConnectRankTest {
    private val dns = HttpDnsServer()

    @AfterEach
    fun tearDown() = dns.close()

    @Test
    fun `a faster connect moves its address ahead within the family`() {
        dns.ips = listOf("127.0.0.2", "127.0.0.3", "127.0.0.1")
        LineKit.Builder().configJson(httpDnsConfig(dns)).build().use { kit ->
            kit.onNetworkChanged(1, validated = true)
            val delegate = CountingDns()
            kit.dns(delegate).lookup("api.linekit.test")
            assertTrue(eventually { kit.stateJson().contains("\"host\":\"api.linekit.test\"") }, kit.stateJson())
            val order = { kit.dns(delegate).lookup("api.linekit.test").map { it.hostAddress } }
            assertEquals(listOf("127.0.0.2", "127.0.0.3", "127.0.0.1"), order())
            kit.resolver.connectSucceeded("api.linekit.test", InetAddress.getByName("127.0.0.2"), 400)
            kit.resolver.connectSucceeded("api.linekit.test", InetAddress.getByName("127.0.0.1"), 3)
            assertEquals(listOf("127.0.0.1", "127.0.0.3", "127.0.0.2"), order(), "fast, untried, slow")
        }
    }
}
