package dev.linekit.sample

import com.sun.net.httpserver.HttpServer
import dev.linekit.LineKit
import dev.linekit.RouteTag
import dev.linekit.TraceFileSink
import dev.linekit.lineKit
import okhttp3.OkHttpClient
import okhttp3.Request
import java.io.File
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.concurrent.thread

/**
 * One local HTTP server playing a CDN line. It can be taken down (its port then refuses
 * connections), made to answer 503, and brought back on the same port.
 */
class DemoLine(val name: String) {
    private val loopback = InetAddress.getByName("127.0.0.1")
    private var server: HttpServer? = null

    /** Status answered while up. */
    @Volatile
    var status = 200

    /** The port, fixed at the first start. */
    val port: Int

    init {
        port = start(0)
    }

    /** `http://127.0.0.1:PORT`. */
    val origin: String get() = "http://127.0.0.1:$port"

    private fun start(port: Int): Int {
        val s = HttpServer.create(InetSocketAddress(loopback, port), 128)
        s.createContext("/") { exchange ->
            exchange.requestBody.readAllBytes()
            val body = name.toByteArray()
            exchange.responseHeaders.add("X-Served-By", name)
            if (exchange.requestMethod == "HEAD") {
                exchange.sendResponseHeaders(status, -1) // probes: no body
                exchange.close()
                return@createContext
            }
            exchange.sendResponseHeaders(status, body.size.toLong())
            exchange.responseBody.use { it.write(body) }
        }
        s.executor = java.util.concurrent.Executors.newFixedThreadPool(4) { r -> Thread(r, "line-$name").apply { isDaemon = true } }
        s.start()
        server = s
        return s.address.port
    }

    /** Stops listening: connections are refused from now on. */
    fun down() {
        server?.stop(0)
        server = null
    }

    /** Listens again on the same port. */
    fun up() {
        if (server == null) start(port)
    }
}

private fun percentile(sorted: LongArray, p: Double): Double =
    if (sorted.isEmpty()) 0.0 else sorted[((sorted.size - 1) * p).toInt()] / 1_000_000.0

/** Percent of [part] in [whole], or 0. */
private fun percent(part: Int, whole: Int): Int = if (whole == 0) 0 else part * 100 / whole

/**
 * Runs the demo: 28 s of GETs while the primary goes down (5 s), the serving backup answers
 * 503 (9 s), the primary comes back (13 s) — and, through revive probes sent by the default
 * `OkHttpTransport` (HEAD /line/ping on each line), traffic returns to the primary, the
 * preferred (heavier) line, once its breaker let a trial through and its failures left the
 * 4 s window. Short windows and cooldowns (`window_ms`, `open_cooldown_ms`,
 * `revive_interval_ms`, `detect_cooldown_ms`, `switch_interval_ms`) keep the demo under half a
 * minute. Every event is traced to `target/demo/trace.jsonl` (system property
 * `linekit.demo.out` moves it); the demo prints the `linekit replay --from-trace` command that
 * draws it as a timeline.
 */
fun main() {
    // Small header and body writes would otherwise wait on delayed ACKs (~40 ms each).
    System.setProperty("sun.net.httpserver.nodelay", "true")
    val lines = listOf(DemoLine("primary"), DemoLine("second"), DemoLine("third"))
    val primary = lines[0]
    // A WebSocket line beside each HTTP line (the `ws` pool of the same business line).
    val wsLines = lines.map { DemoWsLine("${it.name}-ws") }
    val config = """
        {"version":1,"allow_cleartext":true,
         "thresholds":{"max_retries":2,"window_ms":4000,"switch_interval_ms":2000,
                       "open_cooldown_ms":500,"revive_interval_ms":1000,"detect_cooldown_ms":1000,
                       "detect_jitter_ms":200,"probe_budget_per_min":120},
         "trace":{"sample_rate":1.0},
         "biz_lines":{"spot":{"match":["api.example.test"],
           "http":[${lines.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}","weight":${if (it === primary) 200 else 100}}""" }}],
           "ws":[${wsLines.joinToString(",") { """{"id":"${it.name}","url":"${it.origin}"}""" }}]}}}
    """.trimIndent()

    val outDir = File(System.getProperty("linekit.demo.out") ?: "target/demo").apply { mkdirs() }
    val traceFile = File(outDir, "trace.jsonl")
    val traces = TraceFileSink(traceFile)
    File(outDir, "policy.json").writeText(config)
    // The what-if the printed command asks: the same day with a breaker that opens at the
    // first fault instead of the third.
    File(outDir, "policy-threshold1.json").writeText(config.replace("\"max_retries\":2", "\"max_retries\":2,\"failure_threshold\":1"))
    val kit = LineKit.Builder().configJson(config).traceSink(traces).build()
    val client = OkHttpClient.Builder()
        .lineKit(kit)
        .callTimeout(5, TimeUnit.SECONDS)
        .build()

    val stream = WsStream(kit, client)
    val running = AtomicBoolean(true)
    val ok = AtomicInteger()
    val failed = AtomicInteger()
    val retried = AtomicInteger()
    val servedBy = ConcurrentHashMap<String, AtomicInteger>()
    val window = AtomicReference(ConcurrentLinkedQueue<Long>())
    val allLatencies = ConcurrentLinkedQueue<Long>()
    val lastError = AtomicReference<String?>(null)

    val workers = (0 until 4).map { w ->
        thread(name = "demo-client-$w") {
            var i = 0
            while (running.get()) {
                val request = Request.Builder().url("http://api.example.test/api/v1/ticker?symbol=BTC&n=${w}_${i++}").build()
                val start = System.nanoTime()
                try {
                    client.newCall(request).execute().use { response ->
                        response.body.string()
                        val took = System.nanoTime() - start
                        if (response.isSuccessful) {
                            ok.incrementAndGet()
                            val line = response.header("X-Served-By") ?: "?"
                            servedBy.computeIfAbsent(line) { AtomicInteger() }.incrementAndGet()
                            if ((response.request.tag(RouteTag::class)?.attempt ?: 0) > 0) retried.incrementAndGet()
                        } else {
                            failed.incrementAndGet()
                            lastError.set("HTTP ${response.code}")
                        }
                        window.get().add(took)
                        allLatencies.add(took)
                    }
                } catch (e: IOException) {
                    failed.incrementAndGet()
                    lastError.set(e.javaClass.simpleName)
                }
                Thread.sleep(4)
            }
        }
    }

    // Which backup line served most in the last second (set by the printer below).
    var busiestBackup = lines[1]
    val downAt = 5
    val backAt = 13
    var failingBackup: DemoLine? = null
    val phases = mapOf<Int, () -> String>(
        downAt to { primary.down(); wsLines[0].breakUpgrades(); "primary DOWN (connection refused; its ws line refuses upgrades)" },
        9 to { failingBackup = busiestBackup; busiestBackup.status = 503; "${busiestBackup.name} (now serving) answers 503" },
        backAt to { primary.up(); "primary BACK" },
    )
    val seconds = 28
    // GETs served per line in each second.
    val perSecond = ArrayList<Map<DemoLine, Int>>()
    println("Linekit demo: 3 lines (primary, second, third) behind api.example.test, 4 clients, ${seconds}s")
    println("              plus a WebSocket stream on the ws lines (primary-ws, second-ws, third-ws)")
    var lastTicks = 0
    var state = "all lines up"
    var primaryAtEnd = 0
    var servedAtEnd = 0
    var lastOk = 0
    var lastFailed = 0
    val lastServed = HashMap<String, Int>()
    for (t in 1..seconds) {
        Thread.sleep(1000)
        val sorted = window.getAndSet(ConcurrentLinkedQueue()).toLongArray().also { it.sort() }
        val okNow = ok.get()
        val failedNow = failed.get()
        val deltas = lines.associateWith { l ->
            val total = servedBy[l.name]?.get() ?: 0
            (total - (lastServed[l.name] ?: 0)).also { lastServed[l.name] = total }
        }
        perSecond.add(deltas)
        busiestBackup = deltas.filterKeys { it !== primary }.maxByOrNull { it.value }?.key ?: busiestBackup
        if (t > seconds - 5) {
            primaryAtEnd += deltas[primary] ?: 0
            servedAtEnd += deltas.values.sum()
        }
        val served = deltas.entries.joinToString(" ") { (l, n) -> "%s=%-4d".format(l.name, n) }
        println(
            "t=%2ds ok=%-4d failed=%-2d served: %s p50=%.2fms p99=%.2fms ws=%s ticks=%-3d [%s]".format(
                t, okNow - lastOk, failedNow - lastFailed, served, percentile(sorted, 0.5), percentile(sorted, 0.99),
                stream.line.get(), stream.ticks() - lastTicks, state,
            ),
        )
        lastTicks = stream.ticks()
        lastOk = okNow
        lastFailed = failedNow
        phases[t]?.let { action ->
            state = action()
            println("---- $state")
        }
    }
    running.set(false)
    workers.forEach { it.join() }
    stream.close()
    val all = allLatencies.toLongArray().also { it.sort() }
    println()
    println("Summary: ${ok.get()} GETs ok, ${failed.get()} failed, ${retried.get()} recovered by an in-call retry")
    println("Served by: " + lines.joinToString(", ") { "${it.name}=${servedBy[it.name]?.get() ?: 0}" })
    println("Latency: p50=%.2fms p99=%.2fms max=%.2fms".format(percentile(all, 0.5), percentile(all, 0.99), percentile(all, 1.0)))
    lastError.get()?.let { println("Last failure: $it") }
    println(
        "WebSocket: ${stream.ticks()} ticks; connections by line: " +
            wsLines.joinToString(", ") { "${it.name}=${stream.opensBy[it.name]?.get() ?: 0}" } +
            "; upgrades refused: ${stream.refused.get()}",
    )
    println("Engine state: ${kit.stateJson()}")
    kit.close()
    traces.close()

    // The story in plain words. Second t covers (t-1, t]; primary "is back" from the first
    // second after its return in which it served most GETs.
    fun primaryShare(second: Int): Int = perSecond.getOrNull(second - 1)?.let { percent(it[primary] ?: 0, it.values.sum()) } ?: 0
    val leftAt = (downAt + 1..seconds).firstOrNull { primaryShare(it) < 50 }
    val returnedAt = (backAt + 1..seconds).firstOrNull { primaryShare(it) > 50 }
    val endShare = percent(primaryAtEnd, servedAtEnd)
    println()
    println("What happened:")
    println("  ${downAt}s  primary went down. ${if (leftAt != null) "By ${leftAt}s traffic had left it;" else "Traffic did not leave it;"} " +
        "failed attempts were retried in the same call on another line (${retried.get()} requests were rescued that way).")
    failingBackup?.let { println("  9s  ${it.name}, then serving, started answering 503; Linekit moved traffic to the remaining healthy line.") }
    if (returnedAt != null) {
        println("  ${backAt}s primary came back. By ${returnedAt}s traffic was back on it (${returnedAt - backAt}s later: its breaker let a trial")
        println("       through and its failures aged out of the 4 s window), and it served $endShare% of the GETs in the last 4 s.")
    } else {
        println("  ${backAt}s primary came back, but traffic had not returned to it by the end (${endShare}% of the GETs in the last 4 s):")
        println("       its failures must age out of the 4 s window and its breaker must let a trial through first.")
    }
    val verdict = when {
        failed.get() == 0 && returnedAt != null -> "every one of the ${ok.get()} GETs succeeded, and traffic went back to the preferred line once it recovered."
        failed.get() == 0 -> "every one of the ${ok.get()} GETs succeeded; the return to the preferred line did not happen within the run."
        else -> "${failed.get()} of ${ok.get() + failed.get()} GETs failed (last failure: ${lastError.get()})."
    }
    println("Result: $verdict")
    val events = traceFile.useLines { it.count() }
    println()
    println("Trace: ${traceFile.path} ($events events${if (traces.droppedEvents > 0) ", ${traces.droppedEvents} dropped" else ""}).")
    println("See it as a timeline, recorded against a breaker that opens at the first fault:")
    val cli = System.getProperty("linekit.cli") ?: "target/debug/linekit"
    println("  $cli replay --from-trace ${traceFile.path} --config ${File(outDir, "policy-threshold1.json").path} --compare --html ${File(outDir, "report.html").path}")
    lines.forEach { it.down() }
    wsLines.forEach { it.stop() }
    client.dispatcher.executorService.shutdown()
    client.connectionPool.evictAll()
    kotlin.system.exitProcess(if (failed.get() == 0) 0 else 1)
}
