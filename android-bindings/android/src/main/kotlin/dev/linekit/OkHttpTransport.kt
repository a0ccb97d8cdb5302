package dev.linekit

import dev.linekit.ffi.HttpHeader
import dev.linekit.ffi.HttpTransport
import dev.linekit.ffi.TransportCompletion
import dev.linekit.ffi.TransportOutcome
import dev.linekit.ffi.TransportRequest
import dev.linekit.ffi.core.RequestKind
import dev.linekit.ffi.core.TransportError
import okhttp3.Call
import okhttp3.Callback
import okhttp3.ConnectionPool
import okhttp3.Dispatcher
import okhttp3.Dns
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okio.Buffer
import java.io.IOException
import java.net.InetAddress
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.SynchronousQueue
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
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
 * retried, each call's `callTimeout` is the request's deadline and bodies are read up to
 * the core's limit for the request's kind (64 KiB, 256 KiB for config fetches; a longer one
 * fails as too large); response headers (a probe's version header, the config's `ETag`) go
 * back with the body. Failures are named by [FailureClassifier], like every other failure.
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
    private val calls = ConcurrentHashMap<Long, Call>()
    private val cancelled: MutableSet<Long> = ConcurrentHashMap.newKeySet()
    private val closed = AtomicBoolean(false)

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
            .build()
    }

    /** The transport's own client (exposed for tests and diagnostics; do not share it). */
    val client: OkHttpClient get() = lazyClient.value

    /** Whether [client] has been built (for tests). */
    internal val clientBuilt: Boolean get() = lazyClient.isInitialized()

    override fun start(request: TransportRequest, completion: TransportCompletion) {
        try {
            if (closed.get()) {
                finish(request.id, completion, TransportOutcome.Failed(TransportError.Cancelled))
                return
            }
            val b = Request.Builder().url(request.url).method(request.method, null)
            for (h in request.headers) b.addHeader(h.name, h.value)
            val call = client.newCall(b.build())
            call.timeout().timeout(request.timeoutMs.coerceAtLeast(1), TimeUnit.MILLISECONDS)
            val id = request.id
            calls[id] = call
            call.enqueue(object : Callback {
                override fun onResponse(call: Call, response: Response) {
                    val outcome = try {
                        response.use { read(it, maxBody(request.kind)) }
                    } catch (e: IOException) {
                        failure(call, e)
                    }
                    finish(id, completion, outcome)
                }

                override fun onFailure(call: Call, e: IOException) {
                    finish(id, completion, failure(call, e))
                }
            })
        } catch (e: Exception) {
            // A malformed URL or a rejected call: answer instead of letting it reach the runtime.
            calls.remove(request.id)
            finish(request.id, completion, TransportOutcome.Failed(TransportError.Other(e.javaClass.simpleName)))
        }
    }

    override fun cancel(id: Long) {
        val call = calls[id] ?: return
        cancelled.add(id)
        call.cancel()
    }

    /** Calls in flight (for tests). */
    val inFlight: Int get() = calls.size

    /** Cancels every call in flight and stops the dispatcher threads and pooled connections. Idempotent. */
    override fun close() {
        if (!closed.compareAndSet(false, true)) return
        cancelled.addAll(calls.keys)
        if (lazyClient.isInitialized()) client.dispatcher.cancelAll()
        executor.shutdownNow()
        if (lazyClient.isInitialized()) client.connectionPool.evictAll()
    }

    private fun finish(id: Long, completion: TransportCompletion, outcome: TransportOutcome) {
        calls.remove(id)
        // A call the engine cancelled (its deadline passed, or it is closing) already has
        // its answer there: "cancelled" must not race the engine's own timeout result.
        val answered = cancelled.remove(id) || closed.get()
        try {
            if (!answered) completion.complete(outcome)
        } catch (_: Exception) {
            // The engine was closed and freed: nobody waits for this answer.
        } finally {
            completion.destroy()
        }
    }

    private fun read(response: Response, maxBody: Long): TransportOutcome {
        val source = response.body.source()
        val buffer = Buffer()
        while (buffer.size <= maxBody && source.read(buffer, 8192) != -1L) {
            // Read up to one byte past the limit.
        }
        if (buffer.size > maxBody) return TransportOutcome.Failed(TransportError.TooLarge)
        return TransportOutcome.Response(response.code, buffer.readByteArray(), headersOf(response))
    }

    /** Config fetches may carry a larger (signed) document than probes and HTTPDNS answers. */
    private fun maxBody(kind: RequestKind): Long = dev.linekit.ffi.transportMaxBodyBytes(kind)

    private fun failure(call: Call, e: IOException): TransportOutcome {
        val outcome = FailureClassifier.classify(e, call.isCanceled(), connected = null)
        return TransportOutcome.Failed(
            when (outcome) {
                AttemptOutcome.DNS_FAILURE -> TransportError.Dns
                AttemptOutcome.TLS_FAILURE -> TransportError.Tls
                AttemptOutcome.CONNECT_REFUSED -> TransportError.ConnectRefused
                AttemptOutcome.CONNECT_TIMEOUT -> TransportError.ConnectTimeout
                // The call timeout (the request's deadline) cancels the call; calls the engine
                // cancelled itself are never answered (see finish).
                AttemptOutcome.READ_TIMEOUT, AttemptOutcome.CANCELLED -> TransportError.Timeout
                AttemptOutcome.LOCAL_NETWORK -> TransportError.LocalNetwork
                else -> TransportError.Other(outcome.wireName)
            },
        )
    }

    /** The first [MAX_HEADERS] response headers, each value cut to [MAX_HEADER_VALUE] chars. */
    private fun headersOf(response: Response): List<HttpHeader> {
        val h = response.headers
        return (0 until minOf(h.size, MAX_HEADERS)).map { i -> HttpHeader(h.name(i), h.value(i).take(MAX_HEADER_VALUE)) }
    }

    /** Fixed addresses for bootstrap names, the system resolver for the rest. */
    private class BootstrapDns(private val fixed: Map<String, List<InetAddress>>) : Dns {
        override fun lookup(hostname: String): List<InetAddress> =
            fixed[hostname.lowercase()]?.takeIf { it.isNotEmpty() } ?: Dns.SYSTEM.lookup(hostname)
    }

    private companion object {
        const val MAX_HEADERS = 64
        const val MAX_HEADER_VALUE = 1024
    }
}
