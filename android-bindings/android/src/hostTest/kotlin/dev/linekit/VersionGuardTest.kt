package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import java.net.InetAddress
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * The deployment-version guard end to end: local lines answer requests and probes with
 * differing `X-Deployment-Version` headers; the fingerprints reach the engine through the
 * transport (probes) and the interceptor (reported attempts), show in `state()`, steer
 * `strict` routing and flag [RouteTag.versionMismatch] and the `onVersionMismatch` callback.
 */
class VersionGuardTest {
    /** A line answering everything, probes included, with [version] in the header. */
    private class VersionedLine(val name: String, @Volatile var version: String) : AutoCloseable {
        private val server = MockWebServer()

        @Volatile
        var status = 200

        init {
            server.dispatcher = object : Dispatcher() {
                override fun dispatch(request: RecordedRequest): MockResponse = MockResponse.Builder()
                    .code(if (request.method == "HEAD") 200 else status)
                    .addHeader(HEADER, version)
                    .body(name)
                    .build()
            }
            server.serverSocketFactory = NoDelayServerSocketFactory()
            server.start(InetAddress.getByName("127.0.0.1"), 0)
        }

        val origin: String get() = "http://127.0.0.1:${server.port}"

        override fun close() = server.close()
    }

    private val primary = VersionedLine("primary", "v2")
    private val old = VersionedLine("old", "v1")
    private val same = VersionedLine("same", "v2")
    private val mismatches = ConcurrentLinkedQueue<RouteTag>()
    private val opened = mutableListOf<AutoCloseable>()

    @AfterEach
    fun tearDown() {
        opened.forEach { it.close() }
        listOf(primary, old, same).forEach { it.close() }
    }

    /** `old` weighs most, so plain ranking prefers it once every line is known. */
    private fun kit(policy: String): LineKit {
        val lines = listOf(primary to 150, old to 200, same to 100)
            .joinToString(",") { (l, w) -> """{"id":"${l.name}","url":"${l.origin}","weight":$w}""" }
        val config = """
            {"version":1,"allow_cleartext":true,
             "thresholds":{"startup_detect_delay_ms":1,"detect_jitter_ms":0,"max_retries":1},
             "biz_lines":{"spot":{"match":["api.linekit.test"],
               "version_header":"$HEADER","version_policy":"$policy","http":[$lines]}}}
        """.trimIndent()
        return LineKit.Builder()
            .configJson(config)
            .onVersionMismatch { mismatches.add(it) }
            .build()
            .also { opened.add(it) }
    }

    private fun knowsEveryVersion(kit: LineKit): Boolean = eventually {
        val s = kit.stateJson()
        listOf("primary" to primary, "old" to old, "same" to same).all { (id, line) ->
            Regex("\"id\":\"$id\"[^}]*\"version\":\"${Regex.escape(line.version.take(64))}\"").containsMatchIn(s)
        }
    }

    private fun get(client: OkHttpClient): Pair<String, RouteTag> =
        client.newCall(Request.Builder().url("http://api.linekit.test/v1/ticker").build()).execute().use {
            it.body.string() to it.request.tag(RouteTag::class)!!
        }

    @Test
    fun `strict skips the older backup while a same-version line is usable, then flags the older one`() {
        val kit = kit("strict")
        assertTrue(knowsEveryVersion(kit), kit.stateJson())
        val client = OkHttpClient.Builder().lineKit(kit).build()

        val (first, tag) = get(client)
        assertEquals("primary", first, "the heavier v1 line is skipped: ${kit.stateJson()}")
        assertFalse(tag.versionMismatch)

        primary.status = 503
        val (retried, retryTag) = get(client)
        assertEquals("same", retried, "the retry skips the v1 line too")
        assertFalse(retryTag.versionMismatch)
        assertTrue(mismatches.isEmpty(), "$mismatches")

        same.status = 503
        val (last, lastTag) = get(client)
        assertEquals("old", last, "no v2 line is usable: the v1 line serves, flagged")
        assertTrue(lastTag.versionMismatch)
        assertEquals(listOf("old"), mismatches.map { it.line }.distinct())
    }

    @Test
    fun `report keeps the ranking's choice and flags it`() {
        val kit = kit("report")
        assertTrue(knowsEveryVersion(kit), kit.stateJson())
        val client = OkHttpClient.Builder().lineKit(kit).build()
        val (body, tag) = get(client)
        assertEquals("old", body)
        assertTrue(tag.versionMismatch)
        assertEquals(1, mismatches.size)
        assertEquals("old", mismatches.single().line)
    }

    @Test
    fun `a fingerprint reported with an attempt replaces the probed one and huge values are cut`() {
        val kit = kit("report")
        assertTrue(knowsEveryVersion(kit), kit.stateJson())
        old.version = "v9-" + "x".repeat(10_000)
        val client = OkHttpClient.Builder().lineKit(kit).build()
        assertEquals("old", get(client).first)
        assertTrue(knowsEveryVersion(kit), kit.stateJson())
        assertTrue(kit.stateJson().contains("\"version\":\"v9-" + "x".repeat(61) + "\""), kit.stateJson())
    }

    private companion object {
        const val HEADER = "X-Deployment-Version"
    }
}
