package dev.linekit

import org.junit.jupiter.api.Test
import okhttp3.Headers.Companion.headersOf
import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import java.io.IOException
import java.net.ConnectException
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit

/** The interceptor against local servers, through the real liblinekit.so. */
class LineKitInterceptorTest {
    private val a = LineServer("a")
    private val b = LineServer("b")
    private val direct = LineServer("direct")
    private val attempts = ConcurrentLinkedQueue<Attempt>()
    private val opened = mutableListOf<AutoCloseable>()

    private fun kit(config: String = spotConfig(a, b)): LineKit =
        LineKit.Builder()
            .configJson(config)
            
            .onAttempt { attempts.add(it) }
            .build()
            .also { opened.add(it) }

    private fun client(kit: LineKit): OkHttpClient = OkHttpClient.Builder().lineKit(kit).build()

    @AfterEach
    fun tearDown() {
        opened.forEach { it.close() }
        listOf(a, b, direct).forEach { it.close() }
    }

    @Test
    fun `a line that is the request's own origin sends the request with its URL object`() {
        val config = """
            {"version":1,"allow_cleartext":true,
             "biz_lines":{"own":{"match":["127.0.0.1"],"http":[{"id":"a","url":"${a.origin}"}]}}}
        """.trimIndent()
        val kit = kit(config)
        val base = Request.Builder().url("${a.origin}/p?q=1").build()
        val same = kit.router.route(base.url.toString(), "GET", null, false, emptyList())!!
        assertEquals(listOf<Any?>("a", true), listOf(same.line, same.sameUrl))
        val tag = RouteTag(same.reason, same.biz, same.line, 0, emptyList())
        assertSame(base.url, LineKitInterceptor.rewrite(base, same, tag).url, "no URL is rebuilt")
        // The same line for a URL that differs from its origin's text (the scheme in
        // capitals) is rebuilt onto the origin.
        val written = Request.Builder().url("http://127.0.0.1:${a.port}/p").build()
        val moved = kit.router.route("HTTP://127.0.0.1:${a.port}/p", "GET", null, false, emptyList())!!
        assertEquals(listOf<Any?>("a", false), listOf(moved.line, moved.sameUrl))
        assertEquals(written.url, LineKitInterceptor.rewrite(written, moved, tag).url)
        client(kit).newCall(base).execute().use { assertEquals(200, it.code) }
        assertEquals("/p?q=1", a.received.last().target)
    }

    @Test
    fun `a converged host gets the unified line and its path prefix`() {
        val config = """
            {"version":1,"allow_cleartext":true,
             "biz_lines":{"cdn":{"http":[{"id":"a","url":"${a.origin}"}]}},
             "merge_hosts":[{"host":"image.linekit.test","biz":"cdn","path_prefix":"/image","rate":1.0}]}
        """.trimIndent()
        val client = client(kit(config))
        val request = Request.Builder().url("http://image.linekit.test/a%2Fb/c.png?w=1&q=a+b").build()
        client.newCall(request).execute().use { response ->
            assertEquals(200, response.code)
            assertEquals(RouteReason.MERGED, response.request.tag(RouteTag::class)!!.reason)
        }
        assertEquals("/image/a%2Fb/c.png?w=1&q=a+b", a.received.last().target)
    }

    @Test
    fun `rewritten requests keep path, query, method, body and headers byte for byte`() {
        val kit = kit()
        val client = client(kit)
        val target = "/v1/orders/a%2Fb;m=1/%E2%9C%93?q=a%20b&x=%E2%9C%93&empty=&dup=1&dup=2&plus=a+b"
        val body = ByteArray(256) { it.toByte() }
        for (method in listOf("POST", "PUT", "PATCH", "DELETE", "GET")) {
            val requestBody = if (method == "GET") null else body.toRequestBody("application/octet-stream".toMediaType())
            val request = Request.Builder()
                .url("http://api.linekit.test$target")
                .method(method, requestBody)
                .header("X-Custom", "Value  with\tspaces")
                .addHeader("Accept", "text/plain")
                .addHeader("Accept", "application/json")
                .header("Authorization", "Bearer t0k3n")
                .header(LineHeaders.BIZ, "spot")
                .header("x-line-debug", "1")
                .header("X-LINE-Trace", "2")
                .build()
            client.newCall(request).execute().use { response ->
                assertEquals(200, response.code, method)
                assertEquals("a", response.body.string())
                val tag = response.request.tag(RouteTag::class)!!
                assertEquals("a", tag.line)
                assertEquals("spot", tag.biz)
            }
            val got = a.received.last()
            assertEquals(method, got.method)
            assertEquals(target, got.target)
            assertEquals("Value  with\tspaces", got.headers["X-Custom"])
            assertEquals(listOf("text/plain", "application/json"), got.headers.values("Accept"))
            assertEquals("Bearer t0k3n", got.headers["Authorization"])
            if (method == "GET") assertEquals(0L, got.bodySize) else assertArrayEquals(body, got.body!!.toByteArray())
        }
        assertEquals(5, a.received.size)
        assertTrue(b.received.isEmpty())
    }

    @Test
    fun `private headers follow the core's rule - the first occurrence wins`() {
        val client = client(kit())
        val request = Request.Builder()
            .url("http://localhost:${direct.port}/biz")
            .addHeader("x-line-biz", "spot")
            .addHeader(LineHeaders.BIZ, "nope")
            .addHeader(LineHeaders.KEEP_ORIGINAL_HOST, "false")
            .build()
        client.newCall(request).execute().use { response ->
            assertEquals("a", response.body.string())
            assertEquals("spot", response.request.tag(RouteTag::class)!!.biz)
        }
        assertTrue(direct.received.isEmpty())
    }

    @Test
    fun `keep original host header leaves the request alone`() {
        val client = client(kit())
        val request = Request.Builder()
            .url("http://localhost:${direct.port}/pay?id=1")
            .header(LineHeaders.KEEP_ORIGINAL_HOST, "true")
            .build()
        client.newCall(request).execute().use { response ->
            assertEquals("direct", response.body.string())
            assertEquals(RouteReason.KEEP_ORIGINAL, response.request.tag(RouteTag::class)?.reason)
            assertEquals("localhost", response.request.url.host)
        }
        // Without the header the same managed host goes to the line.
        client.newCall(Request.Builder().url("http://localhost:${direct.port}/pay?id=1").build()).execute().use {
            assertEquals("a", it.body.string())
        }
        assertEquals("/pay?id=1", direct.received.single().target)
    }

    @Test
    fun `fixed host header pins the request to an origin the config knows`() {
        // `direct` is a line of another business line: its origin may be pinned to.
        val config = """
            {"version":1,"allow_cleartext":true,
             "biz_lines":{"spot":{"match":["api.linekit.test","localhost"],"http":[{"id":"a","url":"${a.origin}"}]},
                          "direct":{"http":[{"id":"d","url":"${direct.origin}"}]}}}
        """.trimIndent()
        val client = client(kit(config))
        val request = Request.Builder()
            .url("http://api.linekit.test/quote?s=BTC")
            .header(LineHeaders.FIXED_HOST, direct.origin)
            .build()
        client.newCall(request).execute().use { response ->
            assertEquals("direct", response.body.string())
            val tag = response.request.tag(RouteTag::class)!!
            assertEquals(RouteReason.FIXED_HOST, tag.reason)
            assertNull(tag.line)
        }
        assertEquals("/quote?s=BTC", direct.received.single().target)
    }

    @Test
    fun `a fixed host the config does not know is ignored and credentials stay on the routed line`() {
        val client = client(kit())
        for (unknown in listOf(direct.origin, "http://[::1]:22", "http://evil.test")) {
            val request = Request.Builder()
                .url("http://api.linekit.test/quote?s=BTC")
                .header(LineHeaders.FIXED_HOST, unknown)
                .header("Authorization", "Bearer t0k3n")
                .build()
            client.newCall(request).execute().use { response ->
                assertEquals("a", response.body.string(), unknown)
                val tag = response.request.tag(RouteTag::class)!!
                assertEquals(RouteReason.FIXED_HOST_REFUSED, tag.reason, unknown)
                assertEquals("a", tag.line)
            }
        }
        assertTrue(direct.received.isEmpty())
        assertEquals(3, a.received.size)
    }

    @Test
    fun `an invalid fixed host leaves the request unchanged`() {
        val client = client(kit())
        for (bad in listOf("not a url", "ftp://x.test", "http://127.0.0.1:0", "http://h.test/with/path")) {
            val url = "http://localhost:${direct.port}/x?bad=1"
            val request = Request.Builder().url(url).header(LineHeaders.FIXED_HOST, bad).build()
            client.newCall(request).execute().use { response ->
                assertEquals("direct", response.body.string(), bad)
                assertEquals(RouteReason.FIXED_HOST_INVALID, response.request.tag(RouteTag::class)?.reason, bad)
                assertEquals(url, response.request.url.toString())
            }
        }
        assertEquals(4, direct.received.size)
    }

    @Test
    fun `primary shut down - 100 GETs succeed via the second line and traffic stays there`() {
        val client = client(kit())
        a.close()
        repeat(100) { i ->
            client.newCall(Request.Builder().url("http://api.linekit.test/t?i=$i").build()).execute().use {
                assertEquals(200, it.code)
                assertEquals("b", it.body.string())
            }
        }
        assertEquals(100, b.received.size)
        val list = attempts.toList()
        // One failed attempt on a (refused), then every attempt on b.
        assertEquals(101, list.size)
        assertEquals("a", list[0].route.line)
        assertEquals(AttemptOutcome.CONNECT_REFUSED, list[0].outcome)
        assertTrue(list.drop(1).all { it.route.line == "b" && it.outcome == AttemptOutcome.OK })
        assertEquals(listOf("a"), list[1].route.excluded)
        assertTrue(list.drop(2).all { it.route.attempt == 0 }, "later calls start on b")
    }

    @Test
    fun `a POST without an idempotency key is not replayed, one with a key succeeds on the second line`() {
        val client = client(kit())
        a.close()
        val json = "application/json".toMediaType()
        val plain = Request.Builder().url("http://api.linekit.test/order").post("""{"n":1}""".toRequestBody(json)).build()
        assertThrows(ConnectException::class.java) { client.newCall(plain).execute() }
        assertEquals(1, attempts.size, "not replayed")
        assertTrue(b.received.isEmpty())

        for (key in listOf("Idempotency-Key", "X-Transaction-Id")) {
            val keyed = Request.Builder()
                .url("http://api.linekit.test/order")
                .header(key, "k-123")
                .post("""{"n":2}""".toRequestBody(json))
                .build()
            client.newCall(keyed).execute().use {
                assertEquals(200, it.code)
                assertEquals("b", it.body.string())
            }
        }
        assertEquals(listOf("""{"n":2}""", """{"n":2}"""), b.received.map { it.body!!.utf8() })
    }

    @Test
    fun `a keyed POST is retried on the next line when the first attempt is refused`() {
        val client = client(kit())
        a.close()
        val keyed = Request.Builder()
            .url("http://api.linekit.test/order")
            .header("Idempotency-Key", "k-1")
            .post("x".toRequestBody(null))
            .build()
        client.newCall(keyed).execute().use { assertEquals("b", it.body.string()) }
        assertEquals(listOf("a", "b"), attempts.map { it.route.line })
        assertEquals(1, b.received.size)
    }

    @Test
    fun `503 from the primary moves traffic`() {
        val client = client(kit())
        a.status = 503
        repeat(10) {
            client.newCall(Request.Builder().url("http://api.linekit.test/x").build()).execute().use {
                assertEquals(200, it.code)
                assertEquals("b", it.body.string())
            }
        }
        assertEquals(1, a.received.size, "only the first call tried the primary")
        assertEquals(10, b.received.size)
        assertEquals(AttemptOutcome.HTTP_5XX, attempts.first().outcome)
        assertEquals(503, attempts.first().status)
    }

    @Test
    fun `404 from the primary does not move traffic`() {
        val client = client(kit())
        a.status = 404
        repeat(10) {
            client.newCall(Request.Builder().url("http://api.linekit.test/missing").build()).execute().use {
                assertEquals(404, it.code)
            }
        }
        assertEquals(10, a.received.size)
        assertTrue(b.received.isEmpty())
        assertTrue(attempts.all { it.outcome == AttemptOutcome.HTTP_4XX && it.route.line == "a" })
    }

    @Test
    fun `500 is an application error and is not retried`() {
        val client = client(kit())
        a.status = 500
        client.newCall(Request.Builder().url("http://api.linekit.test/x").build()).execute().use {
            assertEquals(500, it.code)
        }
        assertTrue(b.received.isEmpty())
    }

    @Test
    fun `retries are bounded by max_retries`() {
        val c = LineServer("c")
        try {
            val client = client(kit(spotConfig(a, b, c, maxRetries = 1)))
            a.status = 503
            b.status = 503
            c.status = 503
            client.newCall(Request.Builder().url("http://api.linekit.test/x").build()).execute().use {
                assertEquals(503, it.code)
            }
            assertEquals(2, attempts.size)
            assertEquals(0, c.received.size + minOf(a.received.size, b.received.size) - 1)
        } finally {
            c.close()
        }
    }

    @Test
    fun `call timeout stops the call without a retry`() {
        val client = OkHttpClient.Builder().lineKit(kit()).callTimeout(300, TimeUnit.MILLISECONDS).build()
        val e = assertThrows(IOException::class.java) {
            client.newCall(Request.Builder().url("http://api.linekit.test/slow?delay=3000").build()).execute()
        }
        assertTrue(e is java.io.InterruptedIOException, e.toString())
        assertEquals(1, attempts.size)
        assertEquals(AttemptOutcome.CANCELLED, attempts.single().outcome)
        assertTrue(b.received.isEmpty())
    }

    @Test
    fun `a closed engine passes requests through without private headers`() {
        val kit = kit()
        val client = client(kit)
        kit.close()
        kit.close()
        assertTrue(kit.isClosed)
        val request = Request.Builder()
            .url("http://localhost:${direct.port}/after-close")
            .headers(headersOf(LineHeaders.BIZ, "spot", "X-Other", "1"))
            .build()
        client.newCall(request).execute().use { assertEquals("direct", it.body.string()) }
        assertEquals("1", direct.received.single().headers["X-Other"])
        assertThrows(LineKitException.Closed::class.java) { kit.stateJson() }
    }

    companion object {
        @JvmStatic
        @AfterAll
        fun noPrivateHeaderEverReachedAServer() {
            val all = AllRecorded.requests.toList()
            assertTrue(all.isNotEmpty())
            for (r in all) {
                val leaked = r.headers.names().filter { LineHeaders.isPrivate(it) }
                assertTrue(leaked.isEmpty(), "private headers $leaked reached a server: ${r.requestLine}")
            }
        }
    }
}
