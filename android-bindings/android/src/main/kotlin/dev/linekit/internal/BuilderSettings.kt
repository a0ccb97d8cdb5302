package dev.linekit.internal

import okhttp3.Dns
import okhttp3.EventListener
import okhttp3.OkHttpClient
import java.lang.reflect.Method

/**
 * Reads the `Dns` and event listener factory an [OkHttpClient.Builder] holds, which
 * [dev.linekit.LineKitOkHttp.install] keeps as delegates.
 *
 * OkHttp keeps both builder fields `internal`: the JVM getters are public but carry the
 * module's suffix (`getDns$okhttp`), so Kotlin cannot name them. They are found once,
 * by name and return type, and called reflectively; the consumer R8 rules keep them.
 * Building a client to read the two values instead costs a TLS context and trust
 * manager per install (see BENCHMARKS.md); that is done only if an OkHttp without those
 * getters is on the classpath, so installing keeps working there.
 */
internal object BuilderSettings {
    /** The two values read off a builder. */
    class Settings(val dns: Dns, val eventListenerFactory: EventListener.Factory)

    private val dnsGetter: Method? = getter("getDns\$okhttp", Dns::class.java)
    private val factoryGetter: Method? = getter("getEventListenerFactory\$okhttp", EventListener.Factory::class.java)

    /** Whether the builder's getters were found, so that [read] builds no client. */
    val readsDirectly: Boolean get() = dnsGetter != null && factoryGetter != null

    /** The `Dns` and event listener factory [builder] holds now. */
    fun read(builder: OkHttpClient.Builder): Settings {
        val dns = dnsGetter
        val factory = factoryGetter
        if (dns != null && factory != null) {
            return Settings(dns.invoke(builder) as Dns, factory.invoke(builder) as EventListener.Factory)
        }
        val client = builder.build()
        return Settings(client.dns, client.eventListenerFactory)
    }

    private fun getter(name: String, type: Class<*>): Method? = try {
        OkHttpClient.Builder::class.java.getMethod(name).takeIf { it.returnType == type && it.parameterCount == 0 }
    } catch (_: NoSuchMethodException) {
        null
    } catch (_: SecurityException) {
        null
    }
}
