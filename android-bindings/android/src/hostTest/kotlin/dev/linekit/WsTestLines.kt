package dev.linekit

import mockwebserver3.Dispatcher
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.RecordedRequest
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import okio.buffer
import java.net.InetAddress
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/** What a [WsLineServer] does with an upgrade request. */
enum class WsMode {
    /** 101, then sends `hello from NAME` and stays open. */
    UPGRADE,

    /** Answers `200 OK` with a body, like a CDN that does not carry WebSockets. */
    REFUSE,

    /** 101, then drops the TCP connection at once (the client sees a 1006 drop). */
    DROP,

    /** 101, then holds the connection until [WsLineServer.dropHeld] drops it (a 1006 drop). */
    HOLD,

    /** 101, then closes normally with 1000. */
    CLOSE_NORMAL,
}

/** One local server playing a `ws` line, through MockWebServer's WebSocket upgrades. */
class WsLineServer(val name: String, @Volatile var mode: WsMode = WsMode.UPGRADE) : AutoCloseable {
    private val server = MockWebServer()

    /** Status [WsMode.REFUSE] answers with. */
    @Volatile
    var refuseStatus: Int = 200

    /** Upgrade requests received. */
    val received = ConcurrentLinkedQueue<RecordedRequest>()

    /** Server sides of the sockets opened, in order. */
    val sockets = LinkedBlockingQueue<WebSocket>()

    init {
        server.dispatcher = object : Dispatcher() {
            override fun dispatch(request: RecordedRequest): MockResponse {
                AllRecorded.requests.add(request)
                received.add(request)
                return when (mode) {
                    WsMode.REFUSE -> MockResponse.Builder().code(refuseStatus).body("no websockets on $name").build()
                    WsMode.UPGRADE -> upgrade { ws -> ws.send("hello from $name") }
                    WsMode.DROP -> rawUpgrade(request) { socket -> socket.cancel() }
                    WsMode.HOLD -> rawUpgrade(request) { socket ->
                        val commands = LinkedBlockingQueue<String>()
                        val out = socket.sink.buffer()
                        held.add(commands)
                        heldArrivals.release()
                        while (true) {
                            val text = commands.poll(10, TimeUnit.SECONDS) ?: break
                            if (text == DROP) break
                            // One unmasked text frame (server to client), payload < 126 bytes.
                            val payload = text.encodeToByteArray()
                            out.write(byteArrayOf(0x81.toByte(), payload.size.toByte()) + payload)
                            out.flush()
                        }
                        socket.cancel()
                    }
                    WsMode.CLOSE_NORMAL -> upgrade { ws -> ws.close(1000, "bye") }
                }
            }
        }
        server.start(InetAddress.getByName("127.0.0.1"), 0)
    }

    /** Command queues of the connections held open by [WsMode.HOLD], oldest first. */
    private val held = LinkedBlockingQueue<LinkedBlockingQueue<String>>()

    /** One permit per connection in [held]: the client may see `onOpen` before the server
     * thread has registered the connection, so callers wait for it here. */
    private val heldArrivals = java.util.concurrent.Semaphore(0)

    /** Sends [text] on the oldest held connection (keeps holding it). */
    fun sendHeld(text: String) {
        check(heldArrivals.tryAcquire(5, TimeUnit.SECONDS)) { "$name: no held connection" }
        heldArrivals.release()
        checkNotNull(held.peek()) { "$name: no held connection" }.add(text)
    }

    /** Drops the oldest held connection without a close frame. */
    fun dropHeld() {
        check(heldArrivals.tryAcquire(5, TimeUnit.SECONDS)) { "$name: no held connection" }
        checkNotNull(held.poll()) { "$name: no held connection" }.add(DROP)
    }

    /** A hand-made 101 answer whose connection [handler] then owns (to drop it without a close frame). */
    private fun rawUpgrade(request: RecordedRequest, handler: (okio.Socket) -> Unit): MockResponse {
        val key = request.headers["Sec-WebSocket-Key"].orEmpty()
        val accept = okio.ByteString.Companion.run { (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encodeUtf8().sha1().base64() }
        return MockResponse.Builder()
            .code(101)
            .addHeader("Upgrade", "websocket")
            .addHeader("Connection", "Upgrade")
            .addHeader("Sec-WebSocket-Accept", accept)
            .socketHandler(
                object : mockwebserver3.SocketHandler {
                    override fun handle(socket: okio.Socket) = handler(socket)
                },
            )
            .build()
    }

    private fun upgrade(onOpen: (WebSocket) -> Unit): MockResponse =
        MockResponse.Builder().webSocketUpgrade(
            object : WebSocketListener() {
                override fun onOpen(webSocket: WebSocket, response: Response) {
                    sockets.add(webSocket)
                    onOpen(webSocket)
                }

                override fun onClosing(webSocket: WebSocket, code: Int, reason: String) {
                    webSocket.close(1000, null)
                }
            },
        ).build()

    /** The port. */
    val port: Int get() = server.port

    /** `ws://127.0.0.1:PORT`. */
    val origin: String get() = "ws://127.0.0.1:$port"

    /** The server side of the next socket opened. */
    fun nextSocket(): WebSocket = checkNotNull(sockets.poll(5, TimeUnit.SECONDS)) { "$name: no socket opened" }

    override fun close() {
        server.close()
    }

    private companion object {
        const val DROP = "\u0000drop"
    }
}

/** Config JSON: business line `spot` (`api.linekit.test`, `localhost`) with [http] and [ws] lines. */
fun spotWsConfig(http: List<LineServer>, ws: List<WsLineServer>, maxRetries: Int = 1): String {
    val h = http.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }
    val w = ws.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }
    val wsPart = if (ws.isEmpty()) "" else ""","ws":[$w]"""
    return """
        {"version":1,"allow_cleartext":true,
         "thresholds":{"max_retries":$maxRetries},
         "trace":{"sample_rate":0.0},
         "biz_lines":{"spot":{"match":["api.linekit.test","localhost"],"http":[$h]$wsPart}}}
    """.trimIndent()
}

/** The ranked lines of pool [key] (`"spot/ws"`) in a state snapshot. */
fun poolLines(state: LineKitState, key: String): List<LineState> =
    checkNotNull(state.pools[key]) { "no pool $key in state" }.lines

/** Runs scheduled tasks only when the test says so, remembering every delay asked for. */
class VirtualScheduler : WsScheduler {
    private val tasks = LinkedBlockingQueue<Pair<Long, Runnable>>()

    /** Every delay scheduled, in order. */
    val delays = java.util.concurrent.CopyOnWriteArrayList<Long>()

    override fun schedule(delayMs: Long, task: Runnable): WsScheduler.Cancellable {
        val entry = delayMs to task
        delays.add(delayMs)
        tasks.add(entry)
        return WsScheduler.Cancellable { tasks.remove(entry) }
    }

    /** Waits for the next scheduled task and runs it; returns its delay. */
    fun runNext(): Long {
        val (delay, task) = checkNotNull(tasks.poll(5, TimeUnit.SECONDS)) { "nothing was scheduled" }
        task.run()
        return delay
    }

    /** Tasks waiting. */
    val pending: Int get() = tasks.size
}
