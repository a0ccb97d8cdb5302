package dev.linekit

import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.Random
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/** WebSocket routing, quality reports and reconnects against local upgrade servers, through the real liblinekit.so. */
class LineKitWebSocketTest {
    private val http = listOf(LineServer("ha"), LineServer("hb"))
    private val wsA = WsLineServer("wa")
    private val wsB = WsLineServer("wb")
    private val opened = mutableListOf<AutoCloseable>()
    private val reports = LinkedBlockingQueue<WsConnectionReport>()

    private fun kit(config: String = spotWsConfig(http, listOf(wsA, wsB))): LineKit =
        // No transport: probes would take the hand-made servers' held connections.
        LineKit.Builder().configJson(config).transport(null).build().also { opened.add(it) }

    private fun client(kit: LineKit): OkHttpClient = OkHttpClient.Builder().lineKit(kit).build()

    private fun sockets(kit: LineKit, clock: WsClock = WsClock.SYSTEM) =
        LineKitWebSocket(kit, client(kit), { reports.add(it) }, clock)

    private fun nextReport(): WsConnectionReport = checkNotNull(reports.poll(5, TimeUnit.SECONDS)) { "no report" }

    /**
     * Opens one socket while line `wa` behaves as [mode] and checks that its report names `wa`,
     * [code] and [closeClass]; returns the engine and that report.
     */
    private fun firstSocketClosed(mode: WsMode, code: Int, closeClass: WsCloseClass): Pair<LineKit, WsConnectionReport> {
        wsA.mode = mode
        val kit = kit()
        sockets(kit).newWebSocket(stream, Recorder())
        val r = nextReport()
        assertEquals("wa", r.line)
        assertEquals(code, r.closeCode)
        assertEquals(closeClass, r.closeClass)
        return kit to r
    }

    private val stream = Request.Builder().url("ws://api.linekit.test/stream").build()

    /** Records the callbacks the app's listener sees. */
    private class Recorder : WebSocketListener() {
        val opens = LinkedBlockingQueue<Response>()
        val messages = LinkedBlockingQueue<String>()
        val failures = LinkedBlockingQueue<Throwable>()

        override fun onOpen(webSocket: WebSocket, response: Response) {
            opens.add(response)
        }

        override fun onMessage(webSocket: WebSocket, text: String) {
            messages.add(text)
        }

        override fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) {
            failures.add(t)
        }

        fun nextOpen(): Response = checkNotNull(opens.poll(5, TimeUnit.SECONDS)) { "not opened" }
    }

    @AfterEach
    fun tearDown() {
        opened.reversed().forEach { it.close() }
        http.forEach { it.close() }
        wsA.close()
        wsB.close()
    }

    @Test
    fun `a line that refuses upgrades is skipped after the first attempt and the reconnect lands on the next line`() {
        wsA.mode = WsMode.REFUSE
        val kit = kit()
        val scheduler = VirtualScheduler()
        val app = Recorder()
        val socket = sockets(kit).connect(stream, app, ReconnectPolicy(initialDelayMs = 100), scheduler, Random(1))
        opened.add(socket)

        val refused = nextReport()
        assertEquals("wa", refused.line)
        assertEquals(WsFailureKind.HANDSHAKE_STATUS, refused.failure)
        assertEquals(200, refused.handshakeStatus)
        assertNull(refused.handshakeMs)
        assertEquals(WsDropCause.REMOTE, refused.cause)
        assertTrue(app.failures.poll(5, TimeUnit.SECONDS) != null, "the app sees the failure")
        // No second attempt inside the interceptor: the reconnect waits for the scheduler.
        assertEquals(1, wsA.received.size)
        assertTrue(wsB.received.isEmpty())
        assertEquals("wb", poolLines(kit.state(), "spot/ws").first().id, "the refusing line is demoted")

        assertEquals(1, scheduler.pending)
        scheduler.runNext()
        val open = app.nextOpen()
        assertEquals("wb", open.request.tag(RouteTag::class)?.line)
        assertEquals("hello from wb", app.messages.poll(5, TimeUnit.SECONDS))
        assertEquals(1, wsA.received.size, "the refusing line is not tried again")
        assertEquals(2, socket.connectionCount)
        val ws = poolLines(kit.state(), "spot/ws")
        assertEquals(listOf("wb", "wa"), ws.map { it.id })
        assertEquals(1L, ws.single { it.id == "wa" }.failures)
        assertEquals(1L, ws.single { it.id == "wb" }.successes)
        assertTrue(socket.send("ping"))
    }

    @Test
    fun `an upgrade is never retried on another line inside the interceptor`() {
        wsA.mode = WsMode.REFUSE
        wsA.refuseStatus = 503 // an HTTP call would be retried on the next line
        val kit = kit(spotWsConfig(http, listOf(wsA, wsB), maxRetries = 2))
        sockets(kit).newWebSocket(stream, Recorder())
        val r = nextReport()
        assertEquals(503, r.handshakeStatus)
        assertEquals(1, wsA.received.size)
        assertTrue(wsB.received.isEmpty(), "no second line inside the call")
    }

    @Test
    fun `an abnormal close right after open demotes the line`() {
        val (kit, r) = firstSocketClosed(WsMode.DROP, 1006, WsCloseClass.ABNORMAL)
        assertEquals(WsFailureKind.CONNECTION_LOST, r.failure)
        assertTrue(r.handshakeMs != null && r.durationMs != null)
        val ws = poolLines(kit.state(), "spot/ws")
        assertEquals(1L, ws.single { it.id == "wa" }.failures, "$ws")
        val app = Recorder()
        sockets(kit).newWebSocket(stream, app)
        assertEquals("wb", app.nextOpen().request.tag(RouteTag::class)?.line, "the next socket moves to the next line")
    }

    @Test
    fun `a 1000 close does not demote the line`() {
        val (kit, r) = firstSocketClosed(WsMode.CLOSE_NORMAL, 1000, WsCloseClass.NORMAL)
        assertNull(r.failure)
        val ws = poolLines(kit.state(), "spot/ws")
        assertEquals(0L, ws.single { it.id == "wa" }.failures, "$ws")
        assertEquals(1L, ws.single { it.id == "wa" }.successes)
        wsA.mode = WsMode.UPGRADE
        val app = Recorder()
        sockets(kit).newWebSocket(stream, app)
        assertEquals("wa", app.nextOpen().request.tag(RouteTag::class)?.line, "the next socket stays on the line")
    }

    @Test
    fun `drops in the background or after a network change do not demote the line`() {
        wsA.mode = WsMode.UPGRADE
        val kit = kit()
        kit.onNetworkChanged(100, validated = true)
        val factory = sockets(kit)

        wsA.mode = WsMode.HOLD
        val app = Recorder()
        factory.newWebSocket(stream, app)
        app.nextOpen()
        kit.markBackground(true)
        wsA.dropHeld()
        val first = nextReport()
        assertEquals(WsDropCause.BACKGROUND, first.cause)
        assertEquals(1006, first.closeCode)
        kit.markBackground(false)

        val app2 = Recorder()
        factory.newWebSocket(stream, app2)
        app2.nextOpen()
        kit.onNetworkChanged(100, validated = false) // same network: not a change
        kit.onNetworkChanged(200, validated = true)
        wsA.dropHeld()
        val second = nextReport()
        assertEquals(WsDropCause.NETWORK_CHANGED, second.cause)
        assertEquals(1006, second.closeCode)
        assertEquals(WsFailureKind.CONNECTION_LOST, second.failure)

        // The same drop with nothing to explain it counts against the line.
        val app3 = Recorder()
        factory.newWebSocket(stream, app3)
        app3.nextOpen()
        assertEquals(0L, poolLines(kit.state(), "spot/ws").single { it.id == "wa" }.failures)
        wsA.dropHeld()
        assertEquals(WsDropCause.REMOTE, nextReport().cause)
        assertEquals(1L, poolLines(kit.state(), "spot/ws").single { it.id == "wa" }.failures)
    }

    @Test
    fun `a socket that heard from its server after a network change is blamed for a later drop`() {
        wsA.mode = WsMode.HOLD
        val kit = kit()
        kit.onNetworkChanged(100, validated = true)
        val app = Recorder()
        sockets(kit).newWebSocket(stream, app)
        app.nextOpen()
        kit.onNetworkChanged(200, validated = true)
        wsA.sendHeld("still here")
        assertEquals("still here", app.messages.poll(5, TimeUnit.SECONDS))
        wsA.dropHeld()
        val r = nextReport()
        assertEquals(WsDropCause.REMOTE, r.cause)
        assertTrue(r.firstMessageMs != null)
        assertEquals(1L, poolLines(kit.state(), "spot/ws").single { it.id == "wa" }.failures)
    }

    @Test
    fun `the app's own close is local and stops reconnecting`() {
        val kit = kit()
        val scheduler = VirtualScheduler()
        val app = Recorder()
        val socket = sockets(kit).connect(stream, app, ReconnectPolicy(), scheduler, Random(1))
        app.nextOpen()
        socket.close()
        val r = nextReport()
        assertEquals(WsDropCause.LOCAL, r.cause)
        assertEquals(1000, r.closeCode)
        assertEquals(0, scheduler.pending)
        assertFalse(socket.send("late"))
    }

    @Test
    fun `http ranking is unaffected by websocket faults and vice versa`() {
        wsA.mode = WsMode.REFUSE
        val kit = kit()
        val client = client(kit)
        val factory = sockets(kit)
        fun get(): String = client.newCall(Request.Builder().url("http://api.linekit.test/v1").build()).execute()
            .use { it.header("X-Served-By")!! }

        factory.newWebSocket(stream, Recorder())
        assertEquals("wa", nextReport().line)
        assertEquals("ha", get(), "a ws fault leaves http on its line")
        assertTrue(poolLines(kit.state(), "spot/http").all { it.failures == 0L })

        http[0].status = 503
        assertEquals("hb", get(), "the http fault fails over inside the call")
        val before = poolLines(kit.state(), "spot/ws")
        wsA.mode = WsMode.UPGRADE
        val app = Recorder()
        factory.newWebSocket(stream, app)
        assertEquals("wb", app.nextOpen().request.tag(RouteTag::class)?.line, "ws ranking is its own")
        val after = poolLines(kit.state(), "spot/ws")
        assertEquals(before.map { it.id to it.failures }, after.map { it.id to it.failures })
        assertEquals(1L, poolLines(kit.state(), "spot/http").single { it.id == "ha" }.failures)
    }

    @Test
    fun `back-off grows, is capped, is jittered and resets after a stable period`() {
        wsA.mode = WsMode.REFUSE
        wsB.mode = WsMode.REFUSE
        val kit = kit()
        val now = AtomicLong(0)
        val factory = sockets(kit) { now.get() }
        val policy = ReconnectPolicy(initialDelayMs = 100, maxDelayMs = 1_000, multiplier = 2.0, jitter = 0.5, stableMs = 60_000)
        val scheduler = VirtualScheduler()
        val app = Recorder()
        val socket = factory.connect(stream, app, policy, scheduler, Random(42))
        opened.add(socket)
        repeat(7) {
            nextReport()
            scheduler.runNext()
        }
        nextReport()
        val delays = scheduler.delays.toList()
        assertEquals(8, delays.size)
        for ((n, d) in delays.withIndex()) {
            val base = minOf(1_000.0, 100.0 * (1 shl n))
            assertTrue(d >= base / 2 && d <= base, "delay $n = $d not in [${base / 2}, $base]")
        }
        for (n in 1 until delays.size) {
            assertTrue(delays[n] >= delays[n - 1] || delays[n - 1] > 500, "grows: $delays")
        }
        assertEquals(8, socket.consecutiveReconnects)
        val unjittered = (0 until 8).map { minOf(1_000L, 100L shl it) }
        assertNotEquals(unjittered, delays, "jittered")
        val other = (0 until 8).map { policy.delayMs(it, Random(7)) }
        assertNotEquals(other, delays, "different installs wait differently")

        // A connection that stays open for the stable period resets the back-off.
        wsA.mode = WsMode.UPGRADE
        wsB.mode = WsMode.UPGRADE
        scheduler.runNext()
        app.nextOpen()
        val server = (wsA.sockets.poll(5, TimeUnit.SECONDS) ?: wsB.nextSocket())
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(61_000))
        server.close(1001, "restart")
        val r = nextReport()
        assertEquals(1001, r.closeCode)
        assertEquals(61_000L, r.durationMs)
        val reset = scheduler.delays.last()
        assertTrue(reset in 50..100, "back to the first delay: $reset")
        assertEquals(1, socket.consecutiveReconnects)
    }

    @Test
    fun `it gives up after maxAttempts consecutive reconnects`() {
        wsA.mode = WsMode.REFUSE
        wsB.mode = WsMode.REFUSE
        val kit = kit()
        val scheduler = VirtualScheduler()
        val socket = sockets(kit).connect(stream, Recorder(), ReconnectPolicy(maxAttempts = 2), scheduler, Random(1))
        nextReport()
        scheduler.runNext()
        nextReport()
        scheduler.runNext()
        nextReport()
        assertTrue(socket.hasGivenUp)
        assertEquals(0, scheduler.pending)
        assertEquals(3, socket.connectionCount)
    }

    @Test
    fun `no private header reaches a server in an upgrade, and a business line without ws lines is left alone`() {
        val kit = kit(spotWsConfig(http, emptyList()))
        val app = Recorder()
        val request = Request.Builder()
            .url("ws://localhost:${wsA.port}/plain")
            .header(LineHeaders.BIZ, "spot")
            .header("x-line-debug", "1")
            .header("X-Other", "kept")
            .build()
        sockets(kit).newWebSocket(request, app)
        val open = app.nextOpen()
        val tag = open.request.tag(RouteTag::class)!!
        assertNull(tag.line)
        assertEquals(RouteReason.UNMANAGED, tag.reason)
        val got = wsA.received.single()
        assertEquals("/plain", got.target)
        assertEquals("localhost:${wsA.port}", got.headers["Host"])
        assertEquals("kept", got.headers["X-Other"])
        assertTrue(got.headers.names().none { LineHeaders.isPrivate(it) }, "${got.headers}")
        assertNull(nextReportOrNull(), "still open: no report yet")

        // Routed upgrades on a ws line lose them too.
        val kit2 = kit()
        val routed = Request.Builder().url("ws://api.linekit.test/s").header(LineHeaders.BIZ, "spot").header("X-LINE-Trace", "2").build()
        val app2 = Recorder()
        sockets(kit2).newWebSocket(routed, app2)
        assertEquals("wa", app2.nextOpen().request.tag(RouteTag::class)?.line)
        assertEquals(2, wsA.received.size)
        for (r in wsA.received) assertTrue(r.headers.names().none { LineHeaders.isPrivate(it) }, "${r.headers}")
    }

    private fun nextReportOrNull(): WsConnectionReport? = reports.poll(100, TimeUnit.MILLISECONDS)

    @Test
    fun `a bare newWebSocket is routed and its handshake reported by the interceptor`() {
        wsA.mode = WsMode.REFUSE
        val kit = kit()
        val app = Recorder()
        client(kit).newWebSocket(stream, app)
        assertTrue(app.failures.poll(5, TimeUnit.SECONDS) != null)
        val ws = poolLines(kit.state(), "spot/ws")
        assertEquals(1L, ws.single { it.id == "wa" }.failures, "$ws")
        val app2 = Recorder()
        client(kit).newWebSocket(stream, app2)
        assertEquals("wb", app2.nextOpen().request.tag(RouteTag::class)?.line)
        assertEquals(1L, poolLines(kit.state(), "spot/ws").single { it.id == "wb" }.successes)
    }
}
