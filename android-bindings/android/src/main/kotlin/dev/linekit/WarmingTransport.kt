package dev.linekit

import dev.linekit.ffi.HttpTransport
import dev.linekit.ffi.TransportCompletion
import dev.linekit.ffi.TransportRequest
import dev.linekit.ffi.core.RequestKind
import okhttp3.Call
import okhttp3.OkHttpClient
import okhttp3.internal.connection.RealCall

/**
 * The business client whose connection pool warms fill: the client of the last call
 * [LineKitInterceptor] saw (see `docs/architecture.md#warm-connections`).
 *
 * A warm is worth something only when it leaves a connection the business requests reuse,
 * so it must be made on the business client's pool, with the same `Address` (the same
 * `Dns` — Linekit's —, TLS settings, proxy and protocols). The client it is made on is
 * derived from the business client by `newBuilder()`, which shares that pool and keeps
 * every part of the address, without the app's interceptors (a warm is no app request:
 * no signing, no logging, no Linekit routing) and without the app's event listener (the
 * app's metrics and Linekit's reports never see it; a listener of Linekit's own only notes
 * whether the connection came from the pool, for [TransportCalls]' resend of a stale
 * one). An app with several clients warms the pool
 * of the one it used last.
 *
 * [seen] costs one type check and one volatile read per call once the client is known.
 */
internal class BusinessPool {
    @Volatile
    private var source: OkHttpClient? = null

    @Volatile
    private var derived: OkHttpClient? = null

    /**
     * Notes the client of [call]. Returns true the first time a client is seen at all: the
     * engine may warm from then on.
     */
    fun seen(call: Call): Boolean {
        val client = (call as? RealCall)?.client ?: return false
        if (client === source) return false
        return adopt(client)
    }

    @Synchronized
    private fun adopt(client: OkHttpClient): Boolean {
        if (client === source) return false
        val first = source == null
        source = client
        derived = null
        return first
    }

    /** The client warms go on: [source] without interceptors or the app's event listener; null before any call. */
    fun warmClient(): OkHttpClient? {
        derived?.let { return it }
        val business = source ?: return null
        val warm = business.newBuilder()
            .apply {
                interceptors().clear()
                networkInterceptors().clear()
            }
            .eventListenerFactory(TransportCalls.listenerFactory)
            .followRedirects(false)
            .followSslRedirects(false)
            .build()
        synchronized(this) { if (source === business) derived = warm }
        return warm
    }
}

/**
 * The transport [LineKit] hands the engine: a request of kind `WARM` goes on the business
 * client's pool ([BusinessPool.warmClient]), every other request (probes, HTTPDNS
 * queries, config fetches) to the app's transport [inner], unchanged. The engine sends
 * warms only after the interceptor has seen the business client, and a warm's answer is
 * traced, never counted on its line, so a warm that cannot be sent fails at once.
 */
internal class WarmingTransport(
    private val inner: HttpTransport,
    private val pool: BusinessPool,
) : HttpTransport, AutoCloseable {
    private val warms = TransportCalls()

    override fun start(request: TransportRequest, completion: TransportCompletion) {
        if (request.kind == RequestKind.WARM) {
            warms.start(request, completion, unavailable = "no business client") { pool.warmClient() }
        } else {
            inner.start(request, completion)
        }
    }

    override fun cancel(id: Long) {
        if (!warms.cancel(id)) inner.cancel(id)
    }

    /** Warms in flight (for tests). */
    val warmsInFlight: Int get() = warms.inFlight

    /** Cancels the warms in flight; [inner] stays its owner's to close. Idempotent. */
    override fun close() {
        warms.close()
    }
}
