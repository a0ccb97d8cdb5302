package dev.linekit

import okhttp3.Dns
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.net.UnknownHostException

class BootstrapDnsTest {
    private val config = """
        {"version": 1,
         "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}},
         "httpdns": {"hosts": ["*.example.com"],
                     "bootstrap": {"api.example.com": ["198.51.100.7", "2001:db8::7"]}}}
    """.trimIndent()

    private fun ip(vararg b: Int) = InetAddress.getByAddress(ByteArray(b.size) { b[it].toByte() })

    private fun dns(answer: (String) -> List<InetAddress>) = Dns { answer(it) }

    @Test
    fun `bootstrap addresses are used when the system resolver fails`() {
        LineKit.Builder().configJson(config).build().use { kit ->
            val got = kit.dns(dns { throw UnknownHostException(it) }).lookup("api.example.com")
            assertEquals(listOf("2001:db8:0:0:0:0:0:7", "198.51.100.7"), got.map { it.hostAddress })
            assertEquals("api.example.com", got[0].hostName)
        }
    }

    @Test
    fun `bootstrap addresses replace an answer of only policy-rejected addresses`() {
        LineKit.Builder().configJson(config).build().use { kit ->
            val got = kit.dns(dns { listOf(ip(10, 0, 0, 1)) }).lookup("api.example.com")
            assertEquals("198.51.100.7", got[1].hostAddress)
        }
    }

    @Test
    fun `a usable system answer and unlisted hosts never use bootstrap addresses`() {
        LineKit.Builder().configJson(config).build().use { kit ->
            val public = listOf(ip(93, 184, 216, 34))
            assertEquals(public, kit.dns(dns { public }).lookup("api.example.com"))
            assertThrows(UnknownHostException::class.java) {
                kit.dns(dns { throw UnknownHostException(it) }).lookup("other.example.com")
            }
        }
    }
}
