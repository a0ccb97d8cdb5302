package dev.linekit

import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.security.KeyPairGenerator
import java.security.PrivateKey
import java.security.Signature
import java.util.Base64
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * The app's own config errors are loud, and the remote config channel from Kotlin:
 * `updateConfig` verifies envelopes signed by the JDK's own Ed25519 (an implementation
 * independent of the core's) with the same reasons, and `refreshConfig` fetches through the
 * engine's transport with `If-None-Match`.
 */
class RemoteConfigTest {
    private val a = LineServer("a")
    private val cfg = MockWebServer()

    @AfterEach
    fun tearDown() {
        a.close()
        cfg.close()
    }

    @Test
    fun `an invalid configJson throws and names its paths`() {
        val bad = """{"version":1,"biz_lines":{"spot":{"http":[{"id":"a","url":"ftp://x"}]}},"trace":{"sample_rate":2}}"""
        val e = assertThrows(LineKitConfigException::class.java) { LineKit.Builder().configJson(bad).build() }
        assertEquals(listOf("biz_lines.spot.http[0].url", "trace.sample_rate"), e.errors.map { it.path })
        assertTrue(e.errors.all { it.source == "remote" })
        assertTrue(e.message!!.contains("trace.sample_rate"), e.message)
    }

    @Test
    fun `fallbackOnInvalidConfig falls back and state says why`() {
        val bad = """{"version":1,"biz_lines":{}}"""
        LineKit.Builder().configJson(bad).fallbackOnInvalidConfig().transport(null).build().use { kit ->
            val state = kit.stateJson()
            assertTrue(state.contains("\"source\":\"hard_coded\""), state)
            assertTrue(state.contains("\"skipped\":[{\"reason\":\"invalid: biz_lines: must name at least one business line\",\"source\":\"remote\"}]"), state)
        }
    }

    private class JdkKey(val id: String) {
        private val pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair()
        private val private: PrivateKey = pair.private

        /** The raw 32-byte public key: the tail of the X.509 encoding. */
        val public: String = Base64.getEncoder().encodeToString(pair.public.encoded.takeLast(32).toByteArray())

        fun sign(bytes: ByteArray): String = Signature.getInstance("Ed25519").run {
            initSign(private)
            update(bytes)
            Base64.getEncoder().encodeToString(sign())
        }
    }

    private fun config(version: Int, key: JdkKey, extra: String = ""): String {
        val http = """{"id":"a","url":"${a.origin}"}"""
        return """{"version":$version,"allow_cleartext":true,"expires_at":4102444800,""" +
            """"trust":{"keys":[{"id":"${key.id}","ed25519":"${key.public}"}],"threshold":1},""" +
            """"biz_lines":{"spot":{"match":["api.linekit.test"],"http":[$http]}}$extra}"""
    }

    private fun envelope(text: String, signer: JdkKey, keyId: String = signer.id): String {
        val bytes = text.toByteArray()
        return """{"signed":"${Base64.getEncoder().encodeToString(bytes)}",""" +
            """"signatures":[{"key_id":"$keyId","sig":"${signer.sign(bytes)}"}]}"""
    }

    @Test
    fun `updateConfig verifies signed envelopes with the core's reasons`() {
        val k1 = JdkKey("k1")
        val other = JdkKey("k1")
        LineKit.Builder().configJson(config(1, k1)).transport(null).build().use { kit ->
            assertTrue(kit.updateConfig(config(2, k1)).error!!.startsWith("unsigned: "))
            assertTrue(kit.updateConfig(envelope(config(2, k1), other)).error!!.startsWith("bad_signature: "))
            assertTrue(kit.updateConfig(envelope(config(2, k1), other, "k9")).error!!.startsWith("unknown_key: "))
            val applied = kit.updateConfig(envelope(config(2, k1), k1))
            assertEquals(ConfigUpdate(true, 2, null), applied)
            val again = kit.updateConfig(envelope(config(2, k1), k1))
            assertFalse(again.applied)
            assertTrue(again.error!!.startsWith("not_newer: "), again.error)
        }
    }

    /** The fetch finishes on a transport thread: wait (bounded) for its mark in the state. */
    private fun awaitState(kit: LineKit, needle: String) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
        while (!kit.stateJson().contains(needle) && System.nanoTime() < deadline) Thread.onSpinWait()
        assertTrue(kit.stateJson().contains(needle), kit.stateJson())
    }

    @Test
    fun `refreshConfig fetches through the transport with the last ETag`() {
        cfg.start(InetAddress.getByName("127.0.0.1"), 0)
        val url = "http://127.0.0.1:${cfg.port}/lk.json"
        val remote = ""","remote":{"urls":["$url"],"interval_s":3600,"jitter_s":0,"timeout_ms":3000}"""
        val plain = { v: Int ->
            """{"version":$v,"allow_cleartext":true,"biz_lines":{"spot":{"match":["api.linekit.test"],""" +
                """"http":[{"id":"a","url":"${a.origin}"}]}}$remote}"""
        }
        val events = LinkedBlockingQueue<String>()
        LineKit.Builder().configJson(plain(1)).traceSink { if (it.contains("\"kind\":\"config\"")) events.add(it) }
            .build().use { kit ->
                cfg.enqueue(MockResponse.Builder().code(200).setHeader("ETag", "\"v2\"").body(plain(2)).build())
                assertTrue(kit.refreshConfig())
                val first = cfg.takeRequest(5, TimeUnit.SECONDS)!!
                assertEquals("GET", first.method)
                assertNull(first.headers["If-None-Match"])
                val applied = events.poll(5, TimeUnit.SECONDS)!!
                assertTrue(applied.contains("applied version 2"), applied)
                awaitState(kit, "\"last_outcome\":\"applied\"")

                cfg.enqueue(MockResponse.Builder().code(304).build())
                assertTrue(kit.refreshConfig())
                val second = cfg.takeRequest(5, TimeUnit.SECONDS)!!
                assertEquals("\"v2\"", second.headers["If-None-Match"])
                // The round ends without a config event: its outcome shows in the state.
                awaitState(kit, "\"last_outcome\":\"not_modified\"")
                assertTrue(kit.stateJson().contains("\"version\":2"))
            }
    }
}
