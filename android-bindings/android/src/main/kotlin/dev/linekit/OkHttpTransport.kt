package dev.linekit

import dev.linekit.ffi.HttpTransport
import dev.linekit.ffi.TransportCompletion
import dev.linekit.ffi.TransportRequest
import okhttp3.ConnectionPool
import okhttp3.Dispatcher
import okhttp3.Dns
import okhttp3.OkHttpClient
import java.net.InetAddress
import java.util.concurrent.SynchronousQueue
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The HTTP client the engine uses for detect probes and HTTPDNS queries (see `docs/architecture.md#transport`): the
 * default transport of [LineKit.Builder].
 *
 * It owns an independent [OkHttpClient] — its own [Dispatcher] (threads named
 * `linekit-transport-N` in thread group `linekit-transport`, at most [maxRequests] calls
 * at once) and [ConnectionPool],
 * [Dns.SYSTEM] or a fixed bootstrap list for HTTPDNS endpoints, never the business
 * client's interceptors, event listener or Linekit's own `Dns` (which would make the
 * resolver depend on itself). Redirects are not followed, failed connections are not
 * retried (but a pooled connection that went stale is, [TransportCalls]), each call's
 * `callTimeout` is the request's deadline and bodies are read up to
 * the core's limit for the request's kind (64 KiB, 256 KiB for config fetches; a longer one
 * fails as too large); response headers (a probe's version header, the config's `ETag`) go
 * back with the body. Failures are named by [FailureClassifier], like every other failure
 * ([TransportCalls]). Warms never come here: [LineKit] sends them on the business client
 * ([WarmingTransport]).
 *
 * [start] only enqueues the call and returns: the engine's runtime thread never waits for
 * the network. The result goes back through the request's [TransportCompletion].
 * [close] cancels every call in flight and stops the dispatcher's threads.
 *
 * @param bootstrap fixed addresses for host names (e.g. HTTPDNS endpoints given by name),
 *   used instead of the system resolver for exactly those names.
 * @param maxRequests concurrent requests (probes and queries are few and short).
 */
class OkHttpTransport @JvmOverloads constructor(
    bootstrap: Map<String, List<InetAddress>> = emptyMap(),
    maxRequests: Int = 8,
) : HttpTransport, AutoCloseable {
    private val threads = AtomicInteger()
    private val group = ThreadGroup("linekit-transport")
    private val executor = ThreadPoolExecutor(0, Int.MAX_VALUE, 30, TimeUnit.SECONDS, SynchronousQueue()) { r ->
        Thread(group, r, "linekit-transport-${threads.incrementAndGet()}").apply { isDaemon = true }
    }
    private val calls = TransportCalls()

    /**
     * Built on first use (the first probe, HTTPDNS query or config fetch), not in the
     * constructor: [LineKit.Builder.build] then never pays OkHttp's class initialisation on
     * the caller's thread (app start-up), and an engine that never probes never builds it.
     */
    private val lazyClient = lazy {
        OkHttpClient.Builder()
            .dispatcher(Dispatcher(executor).apply {
                this.maxRequests = maxRequests
                maxRequestsPerHost = maxRequests
            })
            .connectionPool(ConnectionPool(2, 30, TimeUnit.SECONDS))
            .dns(BootstrapDns(bootstrap.mapKeys { it.key.lowercase() }))
            .followRedirects(false)
            .followSslRedirects(false)
            .retryOnConnectionFailure(false)
            .eventListenerFactory(TransportCalls.listenerFactory)
            .build()
    }

    /** The transport's own client (exposed for tests and diagnostics; do not share it). */
    val client: OkHttpClient get() = lazyClient.value

    /** Whether [client] has been built (for tests). */
    internal val clientBuilt: Boolean get() = lazyClient.isInitialized()

    override fun start(request: TransportRequest, completion: TransportCompletion) {
        calls.start(request, completion) { client }
    }

    override fun cancel(id: Long) {
        calls.cancel(id)
    }

    /** Calls in flight (for tests). */
    val inFlight: Int get() = calls.inFlight

    /** Cancels every call in flight and stops the dispatcher threads and pooled connections. Idempotent. */
    override fun close() {
        if (!calls.close()) return
        if (lazyClient.isInitialized()) client.dispatcher.cancelAll()
        executor.shutdownNow()
        if (lazyClient.isInitialized()) client.connectionPool.evictAll()
    }

    /** Fixed addresses for bootstrap names, the system resolver for the rest. */
    private class BootstrapDns(private val fixed: Map<String, List<InetAddress>>) : Dns {
        override fun lookup(hostname: String): List<InetAddress> =
            fixed[hostname.lowercase()]?.takeIf { it.isNotEmpty() } ?: Dns.SYSTEM.lookup(hostname)
    }
}
