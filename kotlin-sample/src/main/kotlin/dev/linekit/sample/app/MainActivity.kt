package dev.linekit.sample.app

import android.app.Activity
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import android.widget.Button
import android.widget.LinearLayout
import android.widget.ScrollView
import android.widget.TextView
import dev.linekit.LineKit
import dev.linekit.android.LineKitAndroid
import dev.linekit.android.NetworkSnapshot
import dev.linekit.android.defaultStorage
import dev.linekit.android.sealedConfigAsset
import dev.linekit.lineKit
import okhttp3.OkHttpClient
import okhttp3.Request
import org.json.JSONObject
import java.util.ArrayDeque
import java.util.concurrent.Executors

/**
 * One screen: every business line's ranked lines (breaker state, latency) from
 * `lineKit.state()`, the current network as forwarded by [LineKitAndroid], the latest trace
 * events, and buttons that send a request or force a detect (a config re-offer).
 */
class MainActivity : Activity() {
    private val io = Executors.newSingleThreadExecutor()
    private val main = Handler(Looper.getMainLooper())
    private val traces = ArrayDeque<String>()
    private lateinit var lineKit: LineKit
    private lateinit var monitor: LineKitAndroid
    private lateinit var client: OkHttpClient
    private lateinit var stateView: TextView
    private lateinit var networkView: TextView
    private lateinit var traceView: TextView

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        lineKit = LineKit.Builder()
            // The key ships in the app: sealing hides hosts from a casual look, nothing more.
            .sealedConfigAsset(this, "linekit.sealed", ByteArray(32) { it.toByte() })
            .defaultStorage(this)
            .traceSink { json -> main.post { addTrace(json) } }
            .build()
        client = OkHttpClient.Builder().lineKit(lineKit).build()
        monitor = LineKitAndroid.attach(this, lineKit, onNetwork = ::showNetwork)

        val column = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        networkView = TextView(this)
        stateView = TextView(this)
        traceView = TextView(this)
        column.addView(Button(this).apply { text = "Send request"; setOnClickListener { send() } })
        column.addView(Button(this).apply { text = "Detect lines"; setOnClickListener { detect() } })
        listOf(networkView, stateView, traceView).forEach(column::addView)
        setContentView(ScrollView(this).apply { addView(column) })
        showNetwork(monitor.network)
        refresh()
    }

    private fun send() = io.execute {
        val line = try {
            client.newCall(Request.Builder().url("https://api.linekit.test/line/ping").build()).execute()
                .use { "HTTP ${it.code} via ${it.request.url.host}" }
        } catch (e: java.io.IOException) {
            "failed: ${e.javaClass.simpleName}"
        }
        main.post { addTrace(line); refresh() }
    }

    /** Re-offering the config in force is refused (same version) but the state refreshes. */
    private fun detect() = io.execute {
        lineKit.setDowngrade(false)
        main.post(::refresh)
    }

    private fun showNetwork(n: NetworkSnapshot) {
        networkView.text = "Network: handle=${n.handle} validated=${n.validated} vpn=${n.vpn} " +
            "privateDns=${n.privateDns} proxy=${n.proxy} transport=${n.transport ?: "?"}"
    }

    private fun refresh() {
        val state = JSONObject(lineKit.state())
        val pools = state.getJSONObject("pools")
        stateView.text = buildString {
            append("Config v${state.getLong("version")} (${state.getString("source")})\n")
            for (key in pools.keys()) append("$key: ${pools.get(key)}\n")
        }
    }

    private fun addTrace(line: String) {
        traces.addFirst(line)
        while (traces.size > 20) traces.removeLast()
        traceView.text = traces.joinToString("\n")
    }

    override fun onDestroy() {
        monitor.detach()
        lineKit.close()
        io.shutdown()
        super.onDestroy()
    }
}
