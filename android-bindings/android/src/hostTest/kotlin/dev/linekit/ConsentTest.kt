package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.net.InetAddress
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The consent gate through the real `.so`: built with `requireConsent()`, Linekit sends
 * nothing of its own (no probe, HTTPDNS query or config fetch) while the app's own calls
 * go through; `grantConsent()` starts what `build()` would have started; `clearData()`
 * empties the storage directory. The timers are set so that, without the gate, every kind
 * of own request comes within the first second (the control case proves it).
 */
class ConsentTest {
    /** Own requests, in arrival order, as `probe`, `httpdns` or `config`. */
    private val own = LinkedBlockingQueue<String>()

    /** The app's own requests line `a` served. */
    private val appRequests = AtomicInteger()

    /** Line `a`: answers probes (`HEAD /line/ping`) and the app's calls. */
    private val line = MockWebServer().apply {
        dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                if (request.method == "HEAD" && request.url.encodedPath == "/line/ping") {
                    own.add("probe")
                } else {
                    appRequests.incrementAndGet()
                }
                return MockResponse.Builder().code(200).body("a").build()
            }
        }
        start(InetAddress.getByName("127.0.0.1"), 0)
    }

    private val dns = MockWebServer().apply {
        dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                own.add("httpdns")
                val host = request.url.queryParameter("name") ?: ""
                val body = """{"Status":0,"Answer":[{"name":"$host.","type":1,"TTL":60,"data":"127.0.0.1"}]}"""
                return MockResponse.Builder().code(200).setHeader("Content-Type", "application/dns-json").body(body).build()
            }
        }
        start(InetAddress.getByName("127.0.0.1"), 0)
    }

    private val cfg = MockWebServer().apply {
        dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                own.add("config")
                return MockResponse.Builder().code(304).build()
            }
        }
        start(InetAddress.getByName("127.0.0.1"), 0)
    }

    @TempDir
    lateinit var storage: File

    @AfterEach
    fun tearDown() {
        line.close()
        dns.close()
        cfg.close()
    }

    /** Start-up detect after 100 ms, pre-resolve at once, first fetch round after 100 ms. */
    private fun config(): String = """
        {"version":1,"allow_cleartext":true,
         "thresholds":{"startup_detect_delay_ms":100,"detect_jitter_ms":0,"timeout_ms":2000},
         "httpdns":{"hosts":["*.linekit.test"],"allow_private":["*.linekit.test"],"pre_resolve":["pre.linekit.test"],
           "providers":[{"id":"doh","format":"doh-json","url":"http://127.0.0.1:${dns.port}/resolve"}]},
         "remote":{"urls":["http://127.0.0.1:${cfg.port}/lk.json"],"interval_s":60,"jitter_s":0,"timeout_ms":2000},
         "biz_lines":{"spot":{"match":["spot.linekit.test"],"detect_path":"/line/ping","http":[{"id":"a","url":"http://127.0.0.1:${line.port}"}]}}}
    """.trimIndent()

    private fun build(requireConsent: Boolean): LineKit {
        val b = LineKit.Builder().configJson(config()).storageDir(storage)
        if (requireConsent) b.requireConsent()
        return b.build().also { it.onNetworkChanged(1, validated = true) }
    }

    /** The kinds of own request that arrive within [ms] from now (returns once all three did). */
    private fun ownWithin(ms: Long): Set<String> {
        val seen = mutableSetOf<String>()
        val end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms)
        while (seen.size < 3) {
            val left = end - System.nanoTime()
            if (left <= 0) break
            own.poll(left, TimeUnit.NANOSECONDS)?.let { seen.add(it) }
        }
        return seen
    }

    /** The app's own calls: one routed onto line `a`, one resolved through [LineKitDns]. */
    private fun appCalls(kit: LineKit) {
        val client = OkHttpClient.Builder().lineKit(kit, CountingDns()).build()
        for (host in listOf("spot.linekit.test", "api.linekit.test")) {
            client.newCall(Request.Builder().url("http://$host:${line.port}/x").build()).execute().use {
                assertEquals(200, it.code, host)
                assertEquals("a", it.body.string())
            }
        }
    }

    @Test
    fun `without requireConsent probes, HTTPDNS and the config fetch start within a second`() {
        build(requireConsent = false).use { kit ->
            assertTrue(kit.consentGranted)
            assertEquals(setOf("probe", "httpdns", "config"), ownWithin(1_000))
        }
    }

    @Test
    fun `with requireConsent nothing of Linekit's own is sent until grantConsent, and clearData empties the storage`() {
        build(requireConsent = true).use { kit ->
            assertFalse(kit.consentGranted)
            appCalls(kit)
            assertEquals(2, appRequests.get())
            val refused = assertThrows(LineKitException.InvalidArgument::class.java) { kit.diagnose("spot") }
            assertTrue(refused.message!!.contains("consent required"), refused.message)
            // An explicit detect request sends nothing either.
            kit.detect("spot")

            // The observation window: ten times what the ungated engine needs.
            assertNull(own.poll(10, TimeUnit.SECONDS), "an own request was sent before consent")
            appCalls(kit)
            assertEquals(4, appRequests.get())

            kit.grantConsent()
            assertTrue(kit.consentGranted)
            assertEquals(setOf("probe", "httpdns", "config"), ownWithin(5_000))

            assertTrue(storage.list()!!.isNotEmpty(), "the install seed is stored")
            kit.clearData()
            assertEquals(emptyList<String>(), storage.list()!!.toList())
        }
    }
}
