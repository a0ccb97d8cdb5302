package dev.linekit

import dev.linekit.ffi.HttpHeader
import dev.linekit.ffi.TransportCompletion
import dev.linekit.ffi.TransportOutcome
import dev.linekit.ffi.TransportRequest
import dev.linekit.ffi.core.RequestKind
import dev.linekit.ffi.core.TransportError
import okhttp3.Call
import okhttp3.Callback
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okio.Buffer
import java.io.IOException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

/**
 * The engine's requests in flight on OkHttp clients, and the one way they are sent and
 * answered: the shared half of [OkHttpTransport] (probes, HTTPDNS queries, config
 * fetches on its own client) and [WarmingTransport] (warms on the business client).
 *
 * [start] enqueues the call and returns at once; the call's `callTimeout` is the
 * request's deadline, the body is read up to the core's limit for the request's kind (a
 * longer one fails as too large), the first [MAX_HEADERS] response headers go back with
 * it, and a failure is named by [FailureClassifier]. A request the engine cancelled, or
 * one still in flight at [close], is never answered: the engine has its answer already.
 *
 * A call whose connection came from the pool and broke before the response began went
 * stale while idle ([AttemptOutcome.STALE_CONNECTION]: a server's keep-alive timeout, a
 * network change): it says nothing of the line, so it is sent again, on a new connection
 * or the next pooled one, as often as [StaleResend] allows within the request's deadline. Every
 * request here (probe, HTTPDNS query, config fetch, warm) reads and may be sent twice.
 * The clients carry [listenerFactory], whose listener tells a reused connection apart.
 */
internal class TransportCalls {
    private val calls = ConcurrentHashMap<Long, Call>()
    private val cancelled: MutableSet<Long> = ConcurrentHashMap.newKeySet()
    private val closed = AtomicBoolean(false)

    /** Calls in flight. */
    val inFlight: Int get() = calls.size

    /**
     * Sends [request] on the client [client] gives (called only when the request is
     * sent), answering [completion] once; a client that is null, or a request OkHttp
     * rejects, fails at once with [unavailable] or the exception's name.
     */
    fun start(
        request: TransportRequest,
        completion: TransportCompletion,
        unavailable: String = "no client",
        client: () -> OkHttpClient?,
    ) {
        try {
            if (closed.get()) {
                finish(request.id, completion, TransportOutcome.Failed(TransportError.Cancelled))
                return
            }
            val on = client() ?: run {
                finish(request.id, completion, TransportOutcome.Failed(TransportError.Other(unavailable)))
                return
            }
            val b = Request.Builder().url(request.url).method(request.method, null)
            for (h in request.headers) b.addHeader(h.name, h.value)
            val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.timeoutMs.coerceAtLeast(1))
            send(request, completion, on, on.newCall(b.build()), deadline, resends = 0, budget = -1)
        } catch (e: Exception) {
            // A malformed URL or a rejected call: answer instead of letting it reach the runtime.
            calls.remove(request.id)
            finish(request.id, completion, TransportOutcome.Failed(TransportError.Other(e.javaClass.simpleName)))
        }
    }

    /**
     * Enqueues [call] (on [client]) for [request], with what is left of its [deadline] as its
     * timeout; [budget] is the request's [StaleResend.budget] once it met a stale connection
     * (-1 before).
     */
    private fun send(
        request: TransportRequest,
        completion: TransportCompletion,
        client: OkHttpClient,
        call: Call,
        deadline: Long,
        resends: Int,
        budget: Int,
    ) {
        val id = request.id
        call.timeout().timeout((deadline - System.nanoTime()).coerceAtLeast(1), TimeUnit.NANOSECONDS)
        calls[id] = call
        // A cancel that looked up the call this one replaces: never send it.
        if (id in cancelled || closed.get()) {
            call.cancel()
            finish(id, completion, TransportOutcome.Failed(TransportError.Cancelled))
            return
        }
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
                val allowed = if (stale(call, e)) budget.takeIf { it >= 0 } ?: StaleResend.budget(client) else 0
                if (resends < allowed && System.nanoTime() < deadline) {
                    send(request, completion, client, call.clone(), deadline, resends + 1, allowed)
                } else {
                    finish(id, completion, failure(call, e))
                }
            }
        })
    }

    /** Whether [call] failed with [e] on a pooled connection that went stale. */
    private fun stale(call: Call, e: IOException): Boolean {
        val listener = call.tag(LineKitEventListener::class) ?: return false
        return FailureClassifier.classify(e, call.isCanceled(), listener.connected, listener.reusedBeforeResponse) ==
            AttemptOutcome.STALE_CONNECTION
    }

    /** Cancels request [id] if it is one of these calls; returns whether it was. */
    fun cancel(id: Long): Boolean {
        val call = calls[id] ?: return false
        cancelled.add(id)
        call.cancel()
        return true
    }

    /**
     * Stops answering and cancels every call in flight (they count as cancelled: never
     * answered). Returns whether this was the first close.
     */
    fun close(): Boolean {
        if (!closed.compareAndSet(false, true)) return false
        cancelled.addAll(calls.keys)
        calls.values.forEach { it.cancel() }
        return true
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

    companion object {
        private const val MAX_HEADERS = 64
        private const val MAX_HEADER_VALUE = 1024


        /** The event listeners of the clients these calls go on: Linekit's, reporting nothing, noting reuse. */
        val listenerFactory: okhttp3.EventListener.Factory = LineKitEventListener.Factory()
    }
}
