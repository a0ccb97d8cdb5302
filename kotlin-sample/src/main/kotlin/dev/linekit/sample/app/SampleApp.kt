package dev.linekit.sample.app

import android.app.Application
import dev.linekit.Attempt
import dev.linekit.LineKit
import dev.linekit.android.LineKitAndroid
import dev.linekit.android.defaultStorage
import dev.linekit.android.sealedConfigAsset
import dev.linekit.lineKit
import okhttp3.OkHttpClient
import java.util.ArrayDeque

/**
 * The one [LineKit] of the process, built when the process starts and shared by every
 * screen: line statistics, breakers and HTTPDNS records live in the engine, so an engine per
 * Activity would forget them on every rotation. The network monitor and the business client
 * live here too, and never close: the process ends with them.
 */
class SampleApp : Application() {
    /** The engine. */
    lateinit var lineKit: LineKit
        private set

    /** The business client (Linekit installed), following the default network. */
    lateinit var client: OkHttpClient
        private set

    /** Feeds the default network to [lineKit]. */
    lateinit var monitor: LineKitAndroid
        private set

    private val attempts = ArrayDeque<String>()

    /** The most recent routing decisions, newest first (at most [MAX_DECISIONS]). */
    val lastDecisions: List<String> get() = synchronized(attempts) { attempts.toList() }

    override fun onCreate() {
        super.onCreate()
        lineKit = LineKit.Builder()
            // The key ships in the app: sealing hides hosts from a casual look, nothing more.
            .sealedConfigAsset(this, "linekit.sealed", ByteArray(32) { it.toByte() })
            .defaultStorage(this)
            .onAttempt(::record)
            .build()
        client = OkHttpClient.Builder().lineKit(lineKit).build()
        monitor = LineKitAndroid.attach(this, lineKit).evictIdleConnectionsOnNetworkChange(client)
    }

    private fun record(a: Attempt) {
        val r = a.route
        val line = "${r.biz ?: "-"}/${r.line ?: "-"} ${r.reason} attempt=${r.attempt} " +
            "${a.outcome.name.lowercase()} ${a.status ?: ""} ${a.timings.totalMs} ms"
        synchronized(attempts) {
            attempts.addFirst(line)
            while (attempts.size > MAX_DECISIONS) attempts.removeLast()
        }
    }

    companion object {
        /** How many decisions [lastDecisions] keeps. */
        const val MAX_DECISIONS: Int = 20
    }
}
