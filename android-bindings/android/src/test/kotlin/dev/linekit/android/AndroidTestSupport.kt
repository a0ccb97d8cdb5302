package dev.linekit.android

import android.net.LinkProperties
import android.net.Network
import android.net.NetworkCapabilities
import android.os.Build
import dev.linekit.LineKit
import org.robolectric.util.ReflectionHelpers
import org.robolectric.shadows.ShadowNetwork
import org.robolectric.shadows.ShadowNetworkCapabilities
import org.robolectric.Shadows.shadowOf
import java.util.concurrent.atomic.AtomicLong

/** A one-line config (version [version]) for a business line on `api.linekit.test`. */
fun testConfig(version: Int = 1): String = """
    {"version":$version,"allow_cleartext":true,
     "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"a","url":"http://127.0.0.1:1"}]}}}
""".trimIndent()

/** An engine on [testConfig], UniFFI path only (the tests here exercise the control plane). */
fun testLineKit(): LineKit = LineKit.Builder().configJson(testConfig()).build()

/** The engine's `network` object, parsed just enough for assertions. */
fun LineKit.networkJson(): Map<String, Any?> = parseFlatObject(
    Regex("\"network\":(\\{[^}]*\\})").find(stateJson())?.groupValues?.get(1) ?: error("no network in state"),
)

/** Parses a flat JSON object of strings, numbers, booleans and nulls. */
fun parseFlatObject(json: String): Map<String, Any?> {
    val out = LinkedHashMap<String, Any?>()
    Regex("\"([a-z_]+)\":(\"[^\"]*\"|-?[0-9]+|true|false|null)").findAll(json).forEach { m ->
        val raw = m.groupValues[2]
        out[m.groupValues[1]] = when {
            raw.startsWith("\"") -> raw.trim('"')
            raw == "true" -> true
            raw == "false" -> false
            raw == "null" -> null
            else -> raw.toLong()
        }
    }
    return out
}

/** A Robolectric network with net id [netId]. */
fun network(netId: Int): Network = ShadowNetwork.newInstance(netId)

/** Capabilities with the given transports and capabilities. */
fun capabilities(transports: List<Int>, validated: Boolean): NetworkCapabilities {
    val caps = ShadowNetworkCapabilities.newInstance()
    val shadow = shadowOf(caps)
    transports.forEach { shadow.addTransportType(it) }
    shadow.addCapability(NetworkCapabilities.NET_CAPABILITY_INTERNET)
    if (validated) shadow.addCapability(NetworkCapabilities.NET_CAPABILITY_VALIDATED)
    return caps
}

/**
 * Link properties with Private DNS set through the framework's hidden setters (apps cannot
 * call them; the platform fills them in), so the test compiles against the public SDK too.
 */
fun linkProperties(privateDnsActive: Boolean = false, privateDnsServer: String? = null): LinkProperties {
    val link = LinkProperties()
    LinkProperties::class.java.getMethod("setUsePrivateDns", Boolean::class.javaPrimitiveType)
        .invoke(link, privateDnsActive)
    LinkProperties::class.java.getMethod("setPrivateDnsServerName", String::class.java)
        .invoke(link, privateDnsServer)
    return link
}

/** A scheduler on a manual clock: tasks run when [advance] passes their time. */
class ManualScheduler : Scheduler {
    private class Task(val at: Long, val task: Runnable) {
        var cancelled = false
    }

    private val now = AtomicLong()
    private val tasks = ArrayList<Task>()

    /** Tasks scheduled and neither run nor cancelled. */
    val pending: Int get() = synchronized(tasks) { tasks.count { !it.cancelled } }

    override fun schedule(delayMs: Long, task: Runnable): Cancellable {
        val t = Task(now.get() + delayMs, task)
        synchronized(tasks) { tasks.add(t) }
        return Cancellable { t.cancelled = true }
    }

    /** Moves the clock forward by [ms], running every task that falls due, in time order. */
    fun advance(ms: Long) {
        val target = now.get() + ms
        while (true) {
            val next = synchronized(tasks) {
                tasks.removeAll { it.cancelled }
                tasks.filter { it.at <= target }.minByOrNull { it.at }?.also { tasks.remove(it) }
            } ?: break
            now.set(next.at)
            next.task.run()
        }
        now.set(target)
    }
}

/** Runs [block] with `Build.VERSION.SDK_INT` set to [sdk] (code paths for old platforms). */
fun <T> withSdkInt(sdk: Int, block: () -> T): T {
    val real = Build.VERSION.SDK_INT
    ReflectionHelpers.setStaticField(Build.VERSION::class.java, "SDK_INT", sdk)
    try {
        return block()
    } finally {
        ReflectionHelpers.setStaticField(Build.VERSION::class.java, "SDK_INT", real)
    }
}
