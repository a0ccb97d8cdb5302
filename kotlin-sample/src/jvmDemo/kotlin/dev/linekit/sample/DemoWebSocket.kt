package dev.linekit.sample

import dev.linekit.LineKit
import dev.linekit.LineKitWebSocket
import dev.linekit.ReconnectPolicy
import dev.linekit.ReconnectingWebSocket
import dev.linekit.WsConnectionReport
import dev.linekit.WsFailureKind
import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import java.net.InetAddress
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference

/**
 * One local WebSocket server playing a `ws` line: it upgrades and pushes a tick every
 * 100 ms, until [breakUpgrades] makes it close its sockets (1001, going away) and answer
 * later upgrades with `200 OK`, like a CDN that lost WebSocket support.
 */
class DemoWsLine(val name: String) {
    private val server = MockWebServer()
    private val open = CopyOnWriteArrayList<WebSocket>()
    private val ticker = Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "ws-$name").apply { isDaemon = true } }

    @Volatile
    private var refusing = false

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse =
                if (refusing) {
                    MockResponse.Builder().code(200).body("no websockets here").build()
                } else {
                    MockResponse.Builder().webSocketUpgrade(
                        object : WebSocketListener() {
                            override fun onOpen(webSocket: WebSocket, response: Response) {
                                open.add(webSocket)
                            }

                            override fun onClosing(webSocket: WebSocket, code: Int, reason: String) {
                                open.remove(webSocket)
                                webSocket.close(1000, null)
                            }

                            override fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) {
                                open.remove(webSocket)
                            }
                        },
                    ).build()
                }
        }
        server.start(InetAddress.getByName("127.0.0.1"), 0)
        ticker.scheduleAtFixedRate({ open.forEach { it.send("tick from $name") } }, 100, 100, TimeUnit.MILLISECONDS)
    }

    /** `ws://127.0.0.1:PORT`. */
    val origin: String get() = "ws://127.0.0.1:${server.port}"

    /** Closes open sockets (1001) and refuses upgrades from now on. */
    fun breakUpgrades() {
        refusing = true
        open.forEach { it.close(1001, "going away") }
    }

    /** Stops the server. */
    fun stop() {
        ticker.shutdownNow()
        server.close()
    }
}

/**
 * The demo's push stream: one [ReconnectingWebSocket] on business line `spot`, counting
 * the ticks it receives per line and the connections that ended.
 */
class WsStream(kit: LineKit, client: OkHttpClient) {
    /** Ticks received, by line. */
    val ticksBy = ConcurrentHashMap<String, AtomicInteger>()

    /** Connections opened, by line. */
    val opensBy = ConcurrentHashMap<String, AtomicInteger>()

    /** Upgrades refused (HTTP status instead of 101). */
    val refused = AtomicInteger()

    /** The line the stream is on now. */
    val line = AtomicReference("-")

    private val ended = AtomicInteger()
    private val socket: ReconnectingWebSocket

    init {
        val factory = LineKitWebSocket(kit, client, { r -> onReport(r) })
        socket = factory.connect(
            Request.Builder().url("wss://api.example.test/ticks").build(),
            object : WebSocketListener() {
                override fun onOpen(webSocket: WebSocket, response: Response) {
                    val l = response.request.tag(dev.linekit.RouteTag::class)?.line ?: "?"
                    line.set(l)
                    opensBy.computeIfAbsent(l) { AtomicInteger() }.incrementAndGet()
                }

                override fun onMessage(webSocket: WebSocket, text: String) {
                    ticksBy.computeIfAbsent(line.get()) { AtomicInteger() }.incrementAndGet()
                }
            },
            ReconnectPolicy(initialDelayMs = 200, maxDelayMs = 2_000),
        )
    }

    private fun onReport(r: WsConnectionReport) {
        ended.incrementAndGet()
        if (r.failure == WsFailureKind.HANDSHAKE_STATUS) refused.incrementAndGet()
        val what = when {
            r.failure == WsFailureKind.HANDSHAKE_STATUS -> "upgrade refused with HTTP ${r.handshakeStatus}"
            r.closeCode != null -> "closed ${r.closeCode} (${r.closeClass}) after ${r.durationMs} ms"
            else -> "failed: ${r.failure}"
        }
        println("     ws: ${r.line} $what")
        line.set("-")
    }

    /** Total ticks received. */
    fun ticks(): Int = ticksBy.values.sumOf { it.get() }

    /** Stops the stream. */
    fun close() = socket.close()
}
