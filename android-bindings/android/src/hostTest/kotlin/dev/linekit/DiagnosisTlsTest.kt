package dev.linekit

import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import java.nio.file.Files
import java.nio.file.Path
import java.security.KeyStore

/**
 * The diagnosis report's TLS step against TLS lines: per line and address, the handshake
 * time when the certificate is good, and a failure named by kind when it is expired, for
 * another host or self-signed.
 *
 * The diagnosis measures through the engine's own transport, which trusts the platform's
 * CAs, as probes do: on a JVM, the trust store named by `javax.net.ssl.trustStore` (on
 * Android, the app's network security config). This class points that property at a
 * store holding the test CA only for the duration of each test, the way a JVM app that
 * serves its lines under a private CA would set it.
 */
class DiagnosisTlsTest {
    private val opened = mutableListOf<AutoCloseable>()
    private var store: Path? = null
    private val saved = TRUST_PROPERTIES.associateWith { System.getProperty(it) }

    @BeforeEach
    fun trustTheTestCa() {
        val ks = KeyStore.getInstance("PKCS12")
        ks.load(null, null)
        ks.setCertificateEntry("linekit-test-ca", TestCa.root.certificate)
        val path = Files.createTempFile("linekit-test-ca", ".p12")
        Files.newOutputStream(path).use { ks.store(it, PASSWORD.toCharArray()) }
        store = path
        System.setProperty("javax.net.ssl.trustStore", path.toString())
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12")
        System.setProperty("javax.net.ssl.trustStorePassword", PASSWORD)
    }

    @AfterEach
    fun restore() {
        opened.reversed().forEach { it.close() }
        for ((name, value) in saved) {
            if (value == null) System.clearProperty(name) else System.setProperty(name, value)
        }
        store?.let { Files.deleteIfExists(it) }
    }

    /** A line on `localhost` (which the system resolver knows) presenting [cert]. */
    private fun line(name: String, cert: okhttp3.tls.HeldCertificate): TlsLine =
        TlsLine(name, "localhost", cert).also { opened.add(it) }

    @Test
    fun `the TLS step times a good handshake and names each certificate failure`() {
        val good = line("good", TestCa.leaf("localhost"))
        val expired = line("expired", TestCa.expired("localhost"))
        val wrongHost = line("wronghost", TestCa.leaf("other.linekit.test"))
        val selfSigned = line("selfsigned", TestCa.selfSigned("localhost"))
        val lines = listOf(good, expired, wrongHost, selfSigned)
        val http = lines.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }
        val kit = diagnosisKit(http)
            .also { opened.add(it) }
        val report = kit.diagnose("spot", 5_000)

        val ok = reportLine(report.json, "spot/good")
        assertTrue(ok.contains("\"result\":\"ok\""), ok)
        assertTrue(Regex("\"tls_ms\":\\d+").containsMatchIn(ok), ok)
        assertFalse(ok.contains("tls_error"), ok)
        assertTrue(ok.contains("\"status\":200"), "the probe went over TLS too: $ok")
        assertEquals(1, good.received.size, "one probe reached the good line")

        for ((key, error) in listOf(
            "spot/expired" to "tls_failure (SSLHandshakeException)",
            "spot/wronghost" to "tls_failure (hostname_mismatch)",
            "spot/selfsigned" to "tls_failure (SSLHandshakeException)",
        )) {
            val bad = reportLine(report.json, key)
            assertTrue(bad.contains("\"result\":\"tls_failed\""), bad)
            assertTrue(Regex("\"tcp_ms\":\\d+").containsMatchIn(bad), "TCP connected: $bad")
            assertTrue(bad.contains("\"tls_error\":\"$error\""), bad)
            assertFalse(bad.contains("tls_ms"), bad)
            assertTrue(bad.contains("\"probe\":{\"error\":\"tls_failure\""), bad)
        }
        assertTrue(listOf(expired, wrongHost, selfSigned).all { it.received.isEmpty() }, "nothing sent to a bad line")
        assertTrue(report.text.contains("spot/good [http] localhost:${good.port} tls: ok: probe HTTP 200"), report.text)
        assertTrue(report.json.contains("\"timed_out\":false"), report.json)
    }

    private companion object {
        const val PASSWORD = "linekit-test"
        val TRUST_PROPERTIES = listOf("javax.net.ssl.trustStore", "javax.net.ssl.trustStoreType", "javax.net.ssl.trustStorePassword")
    }
}
