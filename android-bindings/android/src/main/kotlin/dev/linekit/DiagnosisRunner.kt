package dev.linekit

import dev.linekit.ffi.DiagnosisLine
import dev.linekit.ffi.DiagnosisPlan
import dev.linekit.ffi.DiagnosisSession
import dev.linekit.ffi.core.AddressObservation
import dev.linekit.ffi.core.HostObservation
import dev.linekit.ffi.core.Observations
import dev.linekit.ffi.core.ProbeObservation
import okhttp3.Dns
import okhttp3.OkHttpClient
import okhttp3.Request
import java.io.IOException
import java.io.InterruptedIOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Socket
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.Future
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import javax.net.ssl.SNIHostName
import javax.net.ssl.SSLSocket

/**
 * Runs [LineKit.diagnose]: at most one diagnosis at a time (a second caller joins the one
 * running), everything bounded by the caller's timeout.
 *
 * The core plans what to measure (and takes the probes from the global probe budget); this
 * class only measures, in parallel on its own daemon threads: the system resolver per host
 * ([Dns.SYSTEM]), a TCP connect and (for TLS lines) a TLS handshake per line and address
 * (system and HTTPDNS answers), and each line's probe. Sockets and probes use [client], the
 * independent transport's client (never the business client, never Linekit's own `Dns`).
 * Whatever has not finished at the deadline is reported as `timeout`. The core renders the
 * report; failure details cross as codes only, never exception messages.
 */
internal class DiagnosisRunner(private val client: () -> OkHttpClient) {
    private val running = AtomicReference<CompletableFuture<DiagnosisReport>?>(null)

    /**
     * The running diagnosis, or a new one of the session [open] returns (called only when
     * none is running; it may throw, e.g. for an unknown business line).
     */
    fun start(timeoutMs: Long, open: () -> DiagnosisSession): CompletableFuture<DiagnosisReport> {
        while (true) {
            running.get()?.let { return it }
            val future = CompletableFuture<DiagnosisReport>()
            if (!running.compareAndSet(null, future)) continue
            val session = try {
                open()
            } catch (t: Throwable) {
                running.compareAndSet(future, null)
                future.completeExceptionally(t)
                throw t
            }
            Thread({
                try {
                    future.complete(measure(session, timeoutMs.coerceAtLeast(1)))
                } catch (t: Throwable) {
                    future.completeExceptionally(t)
                } finally {
                    running.compareAndSet(future, null)
                    session.destroy()
                }
            }, "linekit-diagnosis").apply { isDaemon = true }.start()
            return future
        }
    }

    /** Waits for [future] a little past its own deadline; unwraps its failure. */
    fun await(future: CompletableFuture<DiagnosisReport>, timeoutMs: Long): DiagnosisReport = try {
        future.get(timeoutMs + GRACE_MS, TimeUnit.MILLISECONDS)
    } catch (e: ExecutionException) {
        when (val cause = e.cause) {
            is dev.linekit.ffi.LineKitException -> throw LineKitException.of(cause)
            null -> throw e
            else -> throw cause
        }
    }

    private fun measure(session: DiagnosisSession, timeoutMs: Long): DiagnosisReport {
        val start = System.nanoTime()
        val deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
        val plan = session.plan()
        if (!plan.networkAvailable) {
            val text = session.report(Observations(emptyList(), emptyList(), emptyList(), 0u, false))
            return DiagnosisReport(text.json, text.text)
        }
        val threads = AtomicInteger()
        val pool = Executors.newCachedThreadPool { r ->
            Thread(r, "linekit-diagnosis-${threads.incrementAndGet()}").apply { isDaemon = true }
        }
        try {
            return run(session, plan, pool, start, deadline)
        } finally {
            pool.shutdownNow()
        }
    }

    private fun run(
        session: DiagnosisSession,
        plan: DiagnosisPlan,
        pool: ExecutorService,
        start: Long,
        deadline: Long,
    ): DiagnosisReport {
        val http = client()
        var timedOut = false
        // Each probe's timeout is its own or the time left to the deadline, whichever is
        // shorter; a probe that timed out on the second was cut by the deadline, even if it
        // noticed a moment before it.
        val cutByDeadline = AtomicBoolean(false)
        val probes = plan.lines.filter { it.plan.probeAllowed }.map { line ->
            line to pool.submit<ProbeObservation> {
                val left = left(deadline)
                probe(http, line, minOf(left, plan.probeTimeoutMs.toLong())).also {
                    if (it.error == TIMEOUT && left <= plan.probeTimeoutMs.toLong()) cutByDeadline.set(true)
                }
            }
        }
        val resolved = plan.hosts.filter { !it.literal }.associate { h ->
            h.host to pool.submit<HostObservation> { resolve(h.host) }
        }
        val checks = mutableListOf<Pair<AtomicReference<AddressObservation>, Future<AddressObservation>>>()
        val answers = mutableListOf<HostObservation>()
        for (h in plan.hosts) {
            val addresses = if (h.literal) {
                listOf(h.host)
            } else {
                val answer = collect(resolved.getValue(h.host), deadline) { why ->
                    timedOut = timedOut || why == TIMEOUT
                    HostObservation(h.host, emptyList(), why, null)
                }
                answers += answer
                (answer.addresses + h.httpdns).distinct()
            }
            for (line in plan.lines.filter { it.plan.host == h.host }) {
                for (addr in addresses.take(MAX_ADDRESSES)) {
                    val progress = AtomicReference(AddressObservation(line.key, addr, null, TIMEOUT, null, null))
                    checks += progress to pool.submit<AddressObservation> { connect(http, line, addr, deadline, progress) }
                }
            }
        }
        val addressChecks = checks.map { (progress, f) ->
            collect(f, deadline) { why ->
                timedOut = timedOut || why == TIMEOUT
                // What was measured before the deadline (a connect that succeeded stays).
                val known = progress.get()
                if (why == TIMEOUT) known else known.copy(tcpError = why.takeIf { known.tcpMs == null }, tlsError = why)
            }
        }
        val probeChecks = probes.map { (line, f) ->
            collect(f, deadline) { why ->
                timedOut = timedOut || why == TIMEOUT
                ProbeObservation(line.key, null, null, why)
            }
        }
        // Whatever ran into the deadline was cut by it, even if it noticed on its own.
        timedOut = timedOut || cutByDeadline.get() || System.nanoTime() >= deadline
        val elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
        val text = session.report(
            Observations(answers, addressChecks, probeChecks, elapsed.toULong(), timedOut),
        )
        return DiagnosisReport(text.json, text.text)
    }

    /** [future]'s result, or [missing] with `timeout` (deadline passed) or `internal_error`. */
    private fun <T> collect(future: Future<T>, deadline: Long, missing: (String) -> T): T = try {
        future.get(left(deadline).coerceAtLeast(1), TimeUnit.MILLISECONDS)
    } catch (_: TimeoutException) {
        future.cancel(true)
        missing(TIMEOUT)
    } catch (_: ExecutionException) {
        missing("internal_error")
    }

    private fun resolve(host: String): HostObservation {
        val t0 = System.nanoTime()
        return try {
            val list = Dns.SYSTEM.lookup(host).mapNotNull { it.hostAddress }
            HostObservation(host, list, null, ms(t0).toULong())
        } catch (e: UnknownHostException) {
            HostObservation(host, emptyList(), "dns_failure", ms(t0).toULong())
        }
    }

    /** TCP (and TLS) to [addr]; [progress] always holds what is known so far. */
    private fun connect(
        http: OkHttpClient,
        line: DiagnosisLine,
        addr: String,
        deadline: Long,
        progress: AtomicReference<AddressObservation>,
    ): AddressObservation {
        val socket: Socket = http.socketFactory.createSocket()
        try {
            val t0 = System.nanoTime()
            try {
                socket.connect(InetSocketAddress(InetAddress.getByName(addr), line.plan.port.toInt()), timeoutOf(deadline))
            } catch (e: IOException) {
                return AddressObservation(line.key, addr, null, FailureClassifier.diagnosisCode(e, connecting = true), null, null)
            }
            val tcpMs = ms(t0).toULong()
            if (!line.plan.tls) return AddressObservation(line.key, addr, tcpMs, null, null, null)
            progress.set(AddressObservation(line.key, addr, tcpMs, null, null, TIMEOUT))
            val t1 = System.nanoTime()
            return try {
                val ssl = http.sslSocketFactory.createSocket(socket, line.plan.host, line.plan.port.toInt(), true) as SSLSocket
                if (!isIpLiteral(line.plan.host)) {
                    ssl.sslParameters = ssl.sslParameters.apply { serverNames = listOf(SNIHostName(line.plan.host)) }
                }
                ssl.soTimeout = timeoutOf(deadline)
                ssl.startHandshake()
                if (!http.hostnameVerifier.verify(line.plan.host, ssl.session)) {
                    AddressObservation(line.key, addr, tcpMs, null, null, "tls_failure (hostname_mismatch)")
                } else {
                    AddressObservation(line.key, addr, tcpMs, null, ms(t1).toULong(), null)
                }
            } catch (e: IOException) {
                AddressObservation(line.key, addr, tcpMs, null, null, FailureClassifier.diagnosisCode(e, connecting = false))
            }
        } finally {
            try {
                socket.close()
            } catch (_: IOException) {
            }
        }
    }

    private fun probe(http: OkHttpClient, line: DiagnosisLine, timeoutMs: Long): ProbeObservation {
        val t0 = System.nanoTime()
        val call = http.newCall(Request.Builder().url(line.plan.probeUrl).method(line.plan.probeMethod, null).build())
        call.timeout().timeout(timeoutMs.coerceAtLeast(1), TimeUnit.MILLISECONDS)
        return try {
            call.execute().use { ProbeObservation(line.key, it.code.toUShort(), ms(t0).toULong(), null) }
        } catch (e: IOException) {
            val error = if (call.isCanceled() || e is InterruptedIOException && e !is SocketTimeoutException) {
                "timeout"
            } else {
                FailureClassifier.classify(e, call.isCanceled(), connected = false).wireName
            }
            ProbeObservation(line.key, null, ms(t0).toULong(), error)
        }
    }

    private fun left(deadline: Long): Long = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())

    private fun timeoutOf(deadline: Long): Int = left(deadline).coerceIn(1, Int.MAX_VALUE.toLong()).toInt()

    private fun ms(t0: Long): Long = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)

    private fun isIpLiteral(host: String): Boolean = host.contains(':') || host.all { it.isDigit() || it == '.' }

    private companion object {
        const val TIMEOUT = "timeout"

        /** How long [await] waits past the diagnosis' own deadline for its report. */
        const val GRACE_MS = 2_000L

        /** Addresses tried per line (system and HTTPDNS answers together). */
        const val MAX_ADDRESSES = 8
    }
}
