package dev.linekit

import okhttp3.HttpUrl.Companion.toHttpUrl
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.io.IOException
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue
import javax.net.ssl.SSLHandshakeException

/** The control plane (UniFFI) and small pieces of the Kotlin surface. */
class LineKitApiTest : TwoLineServers() {

    @Test
    fun `updateConfig applies newer versions and rejects older ones with a reason`() {
        LineKit.Builder().configJson(spotConfig(a, b, version = 3)).build().use { kit ->
            val applied = kit.updateConfig(spotConfig(b, a, version = 4))
            assertEquals(ConfigUpdate(true, 4, null), applied)
            val older = kit.updateConfig(spotConfig(a, version = 2))
            assertFalse(older.applied)
            assertEquals(4, older.version)
            assertTrue(older.error!!.isNotEmpty())
            val garbage = kit.updateConfig("{nope")
            assertFalse(garbage.applied)
        }
    }

    @Test
    fun `stateJson is JSON with pools and the network`() {
        LineKit.Builder().configJson(spotConfig(a, b)).build().use { kit ->
            kit.onNetworkChanged(7, validated = true, vpn = true, privateDns = PrivateDnsMode.STRICT, transport = "wifi")
            kit.setDowngrade(true)
            val state = kit.stateJson()
            assertTrue(state.contains("\"spot/http\""), state)
            assertTrue(state.contains("\"handle\":7"), state)
            assertTrue(state.contains("\"downgrade\":true"), state)
        }
    }

    @Test
    fun `trace sink receives redacted JSON events`() {
        val events = ConcurrentLinkedQueue<String>()
        LineKit.Builder()
            .configJson(spotConfig(a, b, sampleRate = 1.0))
            .traceSink { events.add(it) }
            .build().use { kit ->
                val client = OkHttpClient.Builder().lineKit(kit).build()
                client.newCall(Request.Builder().url("http://api.linekit.test/secret?token=abc").build()).execute().close()
            }
        assertTrue(events.any { it.contains("\"kind\":\"route\"") }, events.toString())
        assertTrue(events.any { it.contains("\"kind\":\"report\"") }, events.toString())
        assertTrue(events.none { it.contains("token") || it.contains("/secret") }, events.toString())
    }

    @Test
    fun `a storage dir keeps the last good remote config`() {
        val dir: File = Files.createTempDirectory("linekit").toFile()
        try {
            LineKit.Builder().configJson(spotConfig(a, version = 1)).storageDir(dir).build().use { kit ->
                assertTrue(kit.updateConfig(spotConfig(a, b, version = 9)).applied)
            }
            LineKit.Builder().configJson("{broken").fallbackOnInvalidConfig().storageDir(dir).build().use { kit ->
                assertTrue(kit.stateJson().contains("\"version\":9"), kit.stateJson())
            }
        } finally {
            dir.deleteRecursively()
        }
    }

    @Test
    fun `a wrong sealed key is an error or a fallback, never a crash`() {
        val kit = runCatching {
            LineKit.Builder().sealedConfig("bm90IHNlYWxlZA==".toByteArray(), ByteArray(32)).build()
        }
        kit.onSuccess { it.close() }
        kit.onFailure { assertTrue(it is LineKitException, it.toString()) }
    }

    @Test
    fun `one classifier names every failure, before and after the request was sent`() {
        fun kind(e: Throwable, connected: Boolean? = false, cancelled: Boolean = false) =
            FailureClassifier.classify(e, cancelled, connected)
        assertEquals(AttemptOutcome.DNS_FAILURE, kind(UnknownHostException("x")))
        assertEquals(AttemptOutcome.TLS_FAILURE, kind(SSLHandshakeException("x")))
        assertEquals(AttemptOutcome.CONNECT_REFUSED, kind(ConnectException("x")))
        assertEquals(AttemptOutcome.CONNECT_REFUSED, kind(NoRouteToHostException("x")))
        assertEquals(AttemptOutcome.CONNECT_REFUSED, kind(java.net.SocketException("Connection reset")))
        assertEquals(AttemptOutcome.CONNECT_TIMEOUT, kind(SocketTimeoutException("x")))
        assertEquals(AttemptOutcome.READ_TIMEOUT, kind(SocketTimeoutException("timeout"), connected = true))
        assertEquals(AttemptOutcome.CONNECTION_RESET, kind(java.net.SocketException("Connection reset"), connected = true))
        assertEquals(AttemptOutcome.CONNECTION_RESET, kind(IOException("broken pipe"), connected = true))
        assertEquals(AttemptOutcome.TRUNCATED, kind(java.net.ProtocolException("unexpected end of stream"), connected = true))
        assertEquals(
            AttemptOutcome.TRUNCATED,
            kind(IOException("unexpected end of stream on http://x/...", java.io.EOFException("\\n not found")), connected = true),
        )
        assertEquals(AttemptOutcome.TRUNCATED, kind(java.io.EOFException("x"), connected = true))
        // Without a known phase (WebSockets) the exception alone decides.
        assertEquals(AttemptOutcome.CONNECT_TIMEOUT, kind(SocketTimeoutException("Connect timed out"), connected = null))
        assertEquals(AttemptOutcome.READ_TIMEOUT, kind(SocketTimeoutException("timeout"), connected = null))
        assertEquals(AttemptOutcome.CANCELLED, kind(java.io.InterruptedIOException("timeout"), connected = true))
        assertEquals(AttemptOutcome.CANCELLED, kind(ConnectException("x"), cancelled = true))
    }

    @Test
    fun `the diagnosis names socket failures with the classifier's outcomes`() {
        val connecting = mapOf<Throwable, String>(
            ConnectException("x") to "connect_refused",
            NoRouteToHostException("x") to "no_route",
            SocketTimeoutException("x") to "connect_timeout",
            java.net.SocketException("Connection reset") to "connect_refused",
        )
        val handshaking = mapOf<Throwable, String>(
            SSLHandshakeException("secret detail") to "tls_failure (SSLHandshakeException)",
            SocketTimeoutException("x") to "tls_timeout",
            java.net.SocketException("Connection reset") to "connection_reset",
            java.io.EOFException("x") to "truncated",
        )
        for ((e, code) in connecting) assertEquals(code, FailureClassifier.diagnosisCode(e, connecting = true), "$e")
        for ((e, code) in handshaking) assertEquals(code, FailureClassifier.diagnosisCode(e, connecting = false), "$e")
    }

    @Test
    fun `every generated enum matches the loaded library, variant by variant and in code order`() {
        val native = dev.linekit.internal.NativeFast.vocabulary().lines().filter { it.isNotEmpty() }
            .map { it.split('\t') }
            .groupBy({ it[0] }, { it[2] })
        val kotlin = mapOf(
            "outcome" to AttemptOutcome.entries.map { it.wireName to it.code },
            "reason" to RouteReason.entries.map { it.wireName to it.code },
            "close_cause" to WsDropCause.entries.map { it.wireName to it.code },
            "private_dns" to PrivateDnsMode.entries.map { it.wireName to it.code },
            "rollout mode" to RolloutMode.entries.map { it.wireName to it.code },
            "breaker" to BreakerState.entries.map { it.wireName to it.code },
            "config_source" to ConfigSource.entries.map { it.wireName to it.code },
            "httpdns_bypass" to HttpDnsBypass.entries.map { it.wireName to it.code },
            "connect_error" to dev.linekit.internal.ConnectFailureKind.entries.map { it.wireName to it.code },
            "http_method" to dev.linekit.internal.HttpMethods.NAMES.map { it to dev.linekit.internal.HttpMethods.codeOf(it) },
        )
        assertEquals(native.keys, kotlin.keys, "every vocabulary that crosses into Kotlin is checked")
        for ((kind, entries) in kotlin) {
            assertEquals(native[kind], entries.map { it.first }, "$kind: names in code order")
            assertEquals(entries.indices.toList(), entries.map { it.second }, "$kind: codes are positions")
        }
        // The replay vocabulary keeps its names and gains the read-side kinds.
        for (name in listOf("ok", "http_4xx", "http_5xx", "connect_timeout", "connect_refused", "dns_failure",
            "tls_failure", "read_timeout", "connection_reset", "truncated", "local_network", "cancelled")) {
            assertTrue(AttemptOutcome.fromWireName(name) != null, name)
        }
    }

    @Test
    fun `every generated record matches the loaded library, field by field`() {
        val native = dev.linekit.internal.NativeFast.records().lines().filter { it.isNotEmpty() }
            .map { it.split('\t') }
            .groupBy({ it[0] }, { it.drop(1).joinToString(":") })
        val kotlin = dev.linekit.internal.JniRecords.LAYOUTS
        assertEquals(native.keys, kotlin.keys, "every record the library declares is generated, and no other")
        for ((name, layout) in kotlin) assertEquals(native[name], layout.toList(), "$name: fields, places and widths")
    }

    @Test
    fun `answers stay right when the engine's code table starts a new generation`() {
        // More distinct fixed hosts than one generation of the engine's table holds
        // (2,048 targets): the table starts over and Kotlin follows it. Each is listed in
        // `fixed_hosts`, the origins a fixed host may name besides the lines'.
        val listed = (0 until 2_100).joinToString(",") { "\"h$it.test:${1_000 + it}\"" }
        val config = spotConfig(a).trimEnd().removeSuffix("}") + ""","fixed_hosts":[$listed]}"""
        LineKit.Builder().configJson(config).build().use { kit ->
            for (i in 0 until 2_100) {
                val origin = "http://h$i.test:${1_000 + i}"
                val d = kit.route("http://api.linekit.test/p", fixedHost = origin)
                assertEquals(RouteReason.FIXED_HOST, d.reason)
                assertEquals("$origin/p", d.url)
                assertEquals("$origin/", d.target!!.origin.toString())
            }
            val d = kit.route("http://api.linekit.test/x")
            assertEquals(listOf<Any?>("a", "spot", "${a.origin}/x"), listOf(d.line, d.biz, d.url))
        }
    }

    @Test
    fun `route answers carry the core's decision and final URL`() {
        // An IPv6 line behind a converged host's prefix, for a request URL whose rest has no
        // path: the core writes the brackets and a `/` between the prefix and the query.
        val config = """
            {"version":1,"thresholds":{"max_retries":2,"buffer_body_max_bytes":4096},
             "biz_lines":{"spot":{"match":["api.test"],"version_header":"X-Deployment-Version",
             "http":[{"id":"ali","url":"https://[::1]:8443"}]}},
             "merge_hosts":[{"host":"old.test","biz":"spot","path_prefix":"/v1","rate":1.0}]}
        """.trimIndent()
        LineKit.Builder().configJson(config).build().use { kit ->
            val request = "https://old.test?q=1"
            val d = kit.route(request)
            assertEquals(listOf<Any?>(RouteReason.MERGED, "ali", "spot", "https://[::1]:8443/v1/?q=1"), listOf(d.reason, d.line, d.biz, d.url))
            assertEquals("https://[::1]:8443/v1/?q=1", d.target!!.applyTo(request.toHttpUrl()).toString())
            assertEquals(2, d.maxRetries)
            assertEquals(4096L, d.bufferBodyMaxBytes)
            assertFalse(d.versionMismatch)
            assertEquals("X-Deployment-Version", d.versionHeader)
            assertFalse(d.sameUrl)
            assertEquals(0, kit.route(request, "POST").maxRetries, "the core's replay rule")
            // A method outside the coded list travels as text, to the same rule (case-sensitive).
            val custom = kit.route(request, "get")
            assertEquals(listOf<Any?>("ali", 0), listOf(custom.line, custom.maxRetries))
            val u = kit.route("http://x.test/")
            assertEquals(listOf<Any?>(RouteReason.UNMANAGED, "http://x.test/", null, null, null), listOf(u.reason, u.url, u.target, u.line, u.biz))
            assertNull(u.versionHeader)
        }
    }

    @Test
    fun `the core reads every request URL whole, ASCII or not, short or long`() {
        val config = """
            {"version":1,"biz_lines":{"spot":{"match":["api.linekit.test"],
             "http":[{"id":"a","url":"https://spot-a.linekit.test"}]}}}
        """.trimIndent()
        LineKit.Builder().configJson(config).build().use { kit ->
            val origin = "https://api.linekit.test"
            // ASCII read on the stack (up to and at its 1,024 units), text that needs
            // decoding, and a URL longer than the stack buffer.
            val rests = listOf(
                "/v1/ticker?s=BTC",
                "/" + "a".repeat(1024 - origin.length - 1),
                "/ünï/çødé?名前=値",
                "/" + "b".repeat(3000) + "?q=ü",
            )
            for (rest in rests) {
                val d = kit.route(origin + rest)
                assertEquals(listOf<Any?>("a", "https://spot-a.linekit.test$rest"), listOf(d.line, d.url), rest.take(40))
            }
        }
    }

    @Test
    fun `route answers, with the ws pool for WebSocket handshakes`() {
        val config = """
            {"version":1,"allow_cleartext":true,"biz_lines":{"spot":{"match":["api.linekit.test"],
             "http":[{"id":"h1","url":"${a.origin}"},{"id":"h2","url":"${b.origin}"}],
             "ws":[{"id":"w1","url":"ws://127.0.0.1:${b.port}"}]}}}
        """.trimIndent()
        run {
            LineKit.Builder().configJson(config).build().use { kit ->
                val http = kit.route("http://api.linekit.test/a?b=1", "GET")
                assertEquals("h1", http.line)
                assertEquals("spot", http.biz)
                assertEquals("${a.origin}/a?b=1", http.url)
                assertEquals("h2", kit.route("http://api.linekit.test/a", exclude = listOf("h1")).line)
                val ws = kit.route("https://api.linekit.test/stream", webSocket = true)
                assertEquals("w1", ws.line)
                assertEquals("${b.origin}/stream", ws.url)
                val handshake = Request.Builder().url("https://api.linekit.test/stream").build()
                assertEquals("${b.origin}/stream", ws.target!!.applyTo(handshake.url).toString())
                assertEquals(RouteReason.UNMANAGED, kit.route("http://other.test/").reason)
                // X-Line-Biz names only a business line whose `match` claims the host.
                val named = kit.route("http://other.test/", biz = "spot")
                assertEquals(listOf<Any?>(null, RouteReason.BIZ_REFUSED), listOf(named.biz, named.reason))
                assertEquals("spot", kit.route("http://api.linekit.test/", biz = "spot").biz)
                kit.close()
                assertThrows(LineKitException.Closed::class.java) { kit.route("http://api.linekit.test/") }
            }
        }
    }

    @Test
    fun `closing while threads route never touches a freed engine`() {
        run {
            repeat(20) {
                val kit = LineKit.Builder().configJson(spotConfig(a, b)).build()
                val start = java.util.concurrent.CountDownLatch(1)
                val routed = java.util.concurrent.atomic.AtomicInteger()
                val workers = (0 until 4).map {
                    Thread {
                        start.await()
                        while (true) {
                            try {
                                kit.route("http://api.linekit.test/x")
                                routed.incrementAndGet()
                            } catch (_: LineKitException.Closed) {
                                break
                            }
                        }
                    }.apply { start() }
                }
                start.countDown()
                Thread.sleep(2)
                kit.close()
                workers.forEach { it.join(5_000) }
                assertTrue(workers.none { it.isAlive })
            }
        }
    }

    @Test
    fun `fast-path misuse raises Java exceptions instead of crashing`() {
        val get = dev.linekit.internal.RouteQuery.pack(0, false, false, 0, false)
        val e = assertThrows(IllegalArgumentException::class.java) {
            dev.linekit.internal.NativeFast.route(0L, "http://x.test/", get, null, null, null, null)
        }
        assertTrue(e.message!!.contains("null native handle"), e.message)
        val status200 = dev.linekit.internal.ReportHead.pack(0, 0, false, 0, true, 200)
        assertThrows(IllegalArgumentException::class.java) {
            dev.linekit.internal.NativeFast.report(0L, status200, 1, -1, -1, -1, -1, null)
        }
        LineKit.Builder().configJson(spotConfig(a)).build().use { kit ->
            // Unknown codes are rejected by the native side, not undefined behaviour.
            val handle = kit.javaClass.getDeclaredField("handle").apply { isAccessible = true }.get(kit)
            val raw = handle!!.javaClass.getDeclaredField("handle").apply { isAccessible = true }.getLong(handle)
            val unknownOutcome = dev.linekit.internal.ReportHead.pack(0, 0, false, 63, false, 0)
            val err = assertThrows(IllegalArgumentException::class.java) {
                dev.linekit.internal.NativeFast.report(raw, unknownOutcome, 1, -1, -1, -1, -1, null)
            }
            assertTrue(err.message!!.contains("unknown outcome"), err.message)
            val other = dev.linekit.internal.RouteQuery.pack(dev.linekit.internal.HttpMethods.OTHER, false, false, 0, false)
            val noMethod = assertThrows(IllegalArgumentException::class.java) {
                dev.linekit.internal.NativeFast.route(raw, "http://x.test/", other, null, null, null, null)
            }
            assertTrue(noMethod.message!!.contains("method"), noMethod.message)
        }
    }

    @Test
    fun `private header names match case-insensitively`() {
        assertTrue(LineHeaders.isPrivate("x-line-biz"))
        assertTrue(LineHeaders.isPrivate("X-LINE-ANYTHING"))
        assertFalse(LineHeaders.isPrivate("X-Lines"))
        assertFalse(LineHeaders.isPrivate("Line"))
    }
}
