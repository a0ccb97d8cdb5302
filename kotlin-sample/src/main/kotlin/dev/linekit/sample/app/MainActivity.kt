package dev.linekit.sample.app

import android.app.Activity
import android.content.Intent
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import android.widget.Button
import android.widget.LinearLayout
import android.widget.ScrollView
import android.widget.TextView
import dev.linekit.android.NetworkSnapshot
import okhttp3.Request
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors

/**
 * One screen over the process's engine ([SampleApp]): buttons to send a request, to
 * detect (probe) every business line's lines and to diagnose the network path (the report
 * is shown and can be shared), the current network, each pool's ranked lines
 * (breaker state, window counts, latency) from `lineKit.state()`, and the last routing
 * decisions. Nothing here owns the engine: rotating or leaving the screen keeps it.
 */
class MainActivity : Activity() {
    private val app: SampleApp get() = application as SampleApp
    private val main = Handler(Looper.getMainLooper())
    private lateinit var io: ExecutorService
    private lateinit var networkView: TextView
    private lateinit var linesView: TextView
    private lateinit var decisionsView: TextView
    private val refreshEverySecond = object : Runnable {
        override fun run() {
            refresh()
            main.postDelayed(this, 1_000)
        }
    }

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        io = Executors.newSingleThreadExecutor()
        val column = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        networkView = TextView(this)
        linesView = TextView(this)
        decisionsView = TextView(this)
        column.addView(Button(this).apply { text = "Send request"; setOnClickListener { send() } })
        column.addView(Button(this).apply { text = "Detect lines"; setOnClickListener { detect() } })
        column.addView(Button(this).apply { text = "Diagnose"; setOnClickListener { diagnose() } })
        column.addView(networkView)
        column.addView(TextView(this).apply { text = "Ranked lines" })
        column.addView(linesView)
        column.addView(TextView(this).apply { text = "Last decisions" })
        column.addView(decisionsView)
        setContentView(ScrollView(this).apply { addView(column) })
    }

    override fun onStart() {
        super.onStart()
        main.post(refreshEverySecond)
    }

    override fun onStop() {
        main.removeCallbacks(refreshEverySecond)
        super.onStop()
    }

    private fun send() = io.execute {
        try {
            app.client.newCall(Request.Builder().url("https://api.linekit.test/line/ping").build()).execute().close()
        } catch (_: java.io.IOException) {
            // The attempt (and its outcome) is in the decisions list.
        }
        main.post(::refresh)
    }

    /** Probes every business line now (single-flight and the probe budget still apply). */
    private fun detect() = io.execute {
        val bizLines = app.lineKit.state().pools.keys.map { it.substringBefore('/') }.toSortedSet()
        val started = bizLines.filter { app.lineKit.detect(it) }
        main.post {
            decisionsView.text = "detect started for ${started.joinToString().ifEmpty { "none (cooldown or budget)" }}"
            refresh()
        }
    }

    /**
     * Runs a network diagnosis (the callback variant: this is the main thread), shows its
     * readable text and offers to share it with support.
     */
    private fun diagnose() = app.lineKit.diagnose(null, 10_000) { report ->
        main.post {
            decisionsView.text = report.text
            val share = Intent(Intent.ACTION_SEND).setType("text/plain").putExtra(Intent.EXTRA_TEXT, report.text)
            startActivity(Intent.createChooser(share, "Share diagnosis"))
        }
    }

    private fun refresh() {
        showNetwork(app.monitor.network)
        val state = app.lineKit.state()
        linesView.text = buildString {
            append("config v${state.version} (${state.source.wireName})\n")
            for ((key, pool) in state.pools.toSortedMap()) {
                append(key).append('\n')
                pool.lines.forEachIndexed { i, l ->
                    append("  ${i + 1}. ${l.id} ${l.breaker.wireName} ok=${l.successes} failed=${l.failures}")
                    l.avgLatencyMs?.let { append(" ${it}ms") }
                    l.lastError?.let { append(" last=${it.wireName}") }
                    append('\n')
                }
            }
        }
        decisionsView.text = app.lastDecisions.joinToString("\n").ifEmpty { "no request yet" }
    }

    private fun showNetwork(n: NetworkSnapshot) {
        val aware = app.monitor.networkAwarenessError?.let { " (no network awareness: $it)" } ?: ""
        networkView.text = "Network: handle=${n.handle} validated=${n.validated} vpn=${n.vpn} " +
            "privateDns=${n.privateDns} proxy=${n.proxy} transport=${n.transport ?: "?"}$aware"
    }

    override fun onDestroy() {
        io.shutdown()
        super.onDestroy()
    }
}
