package dev.linekit

import dev.linekit.ffi.HttpTransport
import dev.linekit.ffi.NativeLineKit
import dev.linekit.ffi.NetworkInfo
import dev.linekit.ffi.bindEngine
import dev.linekit.internal.ConfigProblem
import dev.linekit.internal.ControlPlane
import dev.linekit.internal.JniResolver
import dev.linekit.internal.NativeFast
import dev.linekit.internal.NativeHandle
import dev.linekit.internal.NativeStart
import dev.linekit.internal.StartFailure
import dev.linekit.internal.StartFlags
import dev.linekit.internal.Resolver
import dev.linekit.internal.Router
import java.io.File

/**
 * What the engine calls to perform probes and HTTPDNS queries ([OkHttpTransport] by
 * default): `start(request, completion)` must return at once and call
 * `completion.complete(outcome)` exactly once, later, from any thread; `cancel(id)` is
 * best effort. Implementations must catch their own exceptions.
 */
typealias LineKitTransport = dev.linekit.ffi.HttpTransport

/**
 * One Linekit engine: owns the line pools of every business line and answers, for each
 * request, which CDN line to use. Plug it into OkHttp with
 * `OkHttpClient.Builder().lineKit(lineKit)` (Java: `LineKitOkHttp.install(builder, lineKit)`).
 *
 * The engine is started, and requests are routed, over the direct JNI path alone: the
 * per-request and per-connection calls ([LineKitInterceptor], [LineKitDns],
 * [LineKitEventListener]) have no other path. Control-plane calls ([updateConfig],
 * [onNetworkChanged], [state]) go through the generated UniFFI bindings, which bind on a
 * Linekit thread right after [Builder.build] (or on the first control-plane call, if it
 * comes first), never inside [Builder.build]. Thread-safe. Close it when done: afterwards
 * requests pass through unchanged (private headers still removed).
 */
class LineKit private constructor(
    private val rawHandle: Long,
    private val traceSink: dev.linekit.ffi.TraceSink?,
    internal val attemptObserver: AttemptListener?,
    private val ownedTransport: AutoCloseable?,
    internal val versionMismatchListener: VersionMismatchListener?,
    private val transport: HttpTransport?,
) : AutoCloseable {
    private val diagnosisClient = DiagnosisClient(transport)

    /** The business client warms go through ([LineKitInterceptor] notes it on every call). */
    internal val businessPool = BusinessPool()

    /** What the engine sends its requests through: warms on [businessPool], the rest on [transport]. */
    private val engineTransport: WarmingTransport? = transport?.let { WarmingTransport(it, businessPool) }
    private val diagnosis = DiagnosisRunner(diagnosisClient::get)
    /**
     * The engine's explicit open/closed state: every call into the engine enters it, and
     * the last one out after [close] frees the native objects.
     */
    private val handle = NativeHandle(rawHandle) { bound?.close() }

    /** The control plane once bound. */
    @Volatile
    private var bound: NativeLineKit? = null

    /** Whether the control plane is bound (the UniFFI bindings reached this engine). */
    internal val controlPlaneBound: Boolean get() = bound != null

    /**
     * The control plane: the UniFFI object over this engine, bound (and the trace sink and
     * transport handed to the engine) on first use. Only read inside [handle]'s open state.
     */
    private val native: NativeLineKit
        get() = bound ?: ControlPlane.bind {
            bound ?: bindEngine(rawHandle.toULong(), traceSink, engineTransport).also { bound = it }
        }

    /** The per-request door into the engine. */
    internal val router: Router = Router(handle)

    /** The per-connection DNS door into the engine. */
    internal val resolver: Resolver = JniResolver(handle)

    /** The built-in addresses [LineKitDns] falls back to when the system resolver fails too. */
    internal val bootstrap = dev.linekit.internal.BootstrapFallback({ native }, handle)

    private val closing = java.util.concurrent.atomic.AtomicBoolean(false)

    /**
     * `thresholds.ws_stable_ms` last read from the engine (kept for after [close]; read
     * when the control plane binds, 0 if the engine closed before).
     */
    @Volatile
    private var lastWsStableMs: Long = 0

    /** Binds the control plane on the bind thread, unless a call or [close] came first. */
    private fun bindSoon() {
        ControlPlane.prepare {
            try {
                handle.use { lastWsStableMs = native.wsStableMs().toLong() }
            } catch (_: Throwable) {
                // A control-plane call binds again and raises the failure itself.
            }
        }
    }

    /** Whether [close] was called. Control-plane calls afterwards throw `LineKitException.Closed`. */
    val isClosed: Boolean get() = handle.isClosed

    /**
     * Asks the engine where a request would go — what [LineKitInterceptor] does for each
     * attempt. Useful for clients other than OkHttp (and WebSocket handshakes). The
     * header values are read exactly as the interceptor reads `X-Line-*` headers.
     *
     * @param url the logical URL the app built.
     * @param method HTTP method.
     * @param biz `X-Line-Biz`, if any.
     * @param keepOriginal `X-Line-Keep-Original-Host: true`.
     * @param fixedHost `X-Line-Fixed-Host`, if any.
     * @param webSocket route on the business line's `ws` pool.
     * @param exclude line ids already tried by this call.
     * @throws LineKitException.Closed after [close].
     */
    @JvmOverloads
    @Throws(LineKitException::class)
    fun route(
        url: String,
        method: String = "GET",
        biz: String? = null,
        keepOriginal: Boolean = false,
        fixedHost: String? = null,
        webSocket: Boolean = false,
        exclude: List<String> = emptyList(),
    ): RouteDecision {
        val headers = buildList {
            if (biz != null) add(LineHeaders.BIZ to biz)
            if (keepOriginal) add(LineHeaders.KEEP_ORIGINAL_HOST to "true")
            if (fixedHost != null) add(LineHeaders.FIXED_HOST to fixedHost)
        }
        return router.route(url, method, LineHeaders.pack(headers), webSocket, exclude, finalUrl = true, askOnly = true)
            ?: throw LineKitException.Closed(LineKitException.CLOSED)
    }

    /**
     * Offers a remote config (JSON, or a signed envelope when the config has `trust`). It
     * goes through the same checks as a fetched one (signatures, validation, a newer
     * version, expiry); the result says whether it applied, and why not: `error` starts
     * with the reason code (`unsigned`, `bad_signature`, `unknown_key`, `below_threshold`,
     * `expired`, `not_newer`, `malformed`, `oversize`, `invalid`).
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun updateConfig(json: String): ConfigUpdate {
        val u = live { native.updateConfig(json) }
        return ConfigUpdate(u.applied, u.version.toLong(), u.error)
    }

    /**
     * Fetches the remote config now (`remote.urls` in order, through the engine's own
     * transport) unless a fetch round is running. Returns whether one is running (false
     * without `remote` in the config or without a transport).
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun refreshConfig(): Boolean = live { native.refreshConfig() }

    /**
     * Turns the runtime kill switch on or off: every business line uses its first line.
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun setDowngrade(on: Boolean) {
        live { native.setDowngrade(on) }
    }

    /**
     * Tells the engine about the default network (from Android's network callback).
     *
     * @param handle `Network.getNetworkHandle()`, 0 when there is no network.
     * @param validated whether the platform validated internet access.
     * @param vpn whether the network is a VPN.
     * @param privateDns the Private DNS mode.
     * @param proxy whether an HTTP proxy is configured.
     * @param transport `wifi`, `cellular`, `ethernet`, ... if known.
     * @throws LineKitException.Closed after [close].
     */
    @JvmOverloads
    @Throws(LineKitException::class)
    fun onNetworkChanged(
        handle: Long,
        validated: Boolean,
        vpn: Boolean = false,
        privateDns: PrivateDnsMode = PrivateDnsMode.OFF,
        proxy: Boolean = false,
        transport: String? = null,
    ) {
        val info = NetworkInfo(handle.toULong(), validated, vpn, privateDns.code.toUByte(), proxy, transport)
        live { native.onNetworkChanged(info) }
        wsSignals.networkChanged(handle)
    }

    /** Network and background signals that explain WebSocket drops ([LineKitWebSocket]). */
    internal val wsSignals = WsSignals()

    /**
     * Tells Linekit whether the app is in the background. A WebSocket that drops while
     * the app is in the background (or went there since the socket last heard from its
     * server) is not held against its line. On Android call it from a
     * `ProcessLifecycleOwner` observer (`onStart` → `false`, `onStop` → `true`).
     */
    fun markBackground(inBackground: Boolean) {
        wsSignals.markBackground(inBackground)
    }

    /**
     * Reports a WebSocket lifecycle event on a `ws` line and returns the outcome the core
     * attributed to it (null when it says nothing about the line, or the engine is closed).
     */
    internal fun reportWs(biz: String, line: String, event: dev.linekit.ffi.core.WsEvent): AttemptOutcome? =
        opened { native.reportWs(biz, line, event) }?.let { AttemptOutcome.fromCode(it.toInt()) }

    /** The outcome the core would attribute to [event], without recording it. */
    internal fun wsEventOutcome(event: dev.linekit.ffi.core.WsEvent): AttemptOutcome? =
        opened { native.wsEventOutcome(event) }?.let { AttemptOutcome.fromCode(it.toInt()) }

    /** `thresholds.ws_stable_ms` in force (the last value read, once closed). */
    internal fun wsStableMs(): Long {
        opened { native.wsStableMs().toLong() }?.let { lastWsStableMs = it }
        return lastWsStableMs
    }

    /**
     * A snapshot of the engine's state ([LineKitState]): config version and source,
     * downgrade, the network, every pool's ranked lines (breaker, window counts, latency,
     * last error), HTTPDNS (the current network's records with their addresses, provider,
     * TTL and time to refresh/expiry; provider back-off) and the config in force (the
     * sources skipped with why, expiry and each config URL's last fetch outcome).
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun state(): LineKitState = live { LineKitState.of(native.state()) }

    /**
     * [state] as one JSON document (snake_case keys), e.g. for a support ticket or a log.
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun stateJson(): String = live { native.stateJson() }

    /**
     * Probes every line of business line [biz] now (HEAD `detect_path` on each line's
     * fixed origin, through the transport, never through routing). Skips the cooldown but
     * not the single-flight rule or the probe budget. Returns whether a detect was
     * scheduled (false for an unknown business line or when the engine has no transport).
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun detect(biz: String): Boolean = live { native.detect(biz) }

    /**
     * Diagnoses the network path to the lines of business line [biz] (all of them for
     * null), blocking until the [DiagnosisReport] is ready: at most about [timeoutMs].
     * Measures through the independent transport and within the probe budget; a second
     * caller while one runs gets the running one's report.
     *
     * @throws IllegalStateException on the main thread (use the callback variant there).
     * @throws LineKitException.InvalidArgument for an unknown business line.
     * @throws LineKitException.Closed after [close].
     */
    @JvmOverloads
    @Throws(LineKitException::class)
    fun diagnose(biz: String? = null, timeoutMs: Long = 10_000): DiagnosisReport {
        check(!DiagnosisMainThread.isMainThread()) {
            "linekit: diagnose() blocks; call it off the main thread or pass a callback"
        }
        return diagnosis.await(startDiagnosis(biz, timeoutMs), timeoutMs)
    }

    /**
     * Like [diagnose], without blocking: [callback] receives the report on a Linekit
     * thread (safe to call from the main thread).
     *
     * @throws LineKitException.InvalidArgument for an unknown business line.
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun diagnose(biz: String?, timeoutMs: Long, callback: DiagnosisCallback) {
        startDiagnosis(biz, timeoutMs).thenAccept(callback::onReport)
    }

    private fun startDiagnosis(biz: String?, timeoutMs: Long) =
        diagnosis.start(timeoutMs) { live { native.diagnosis(biz) } }

    /**
     * The user accepted the privacy policy: from now on Linekit may send its own requests
     * (the start-up detect, HTTPDNS pre-resolve and first config fetch follow at once).
     * Only needed with [Builder.requireConsent]; idempotent.
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun grantConsent() {
        live { native.grantConsent() }
    }

    /**
     * The user withdrew consent: Linekit starts no probe, HTTPDNS query, config fetch or
     * diagnosis until [grantConsent] (requests already sent finish). The app's own
     * requests are still routed, from what Linekit holds locally.
     *
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun revokeConsent() {
        live { native.revokeConsent() }
    }

    /**
     * Whether Linekit may send its own requests now: always true unless built with
     * [Builder.requireConsent] and [grantConsent] was not called (or was revoked).
     *
     * @throws LineKitException.Closed after [close].
     */
    @get:Throws(LineKitException::class)
    val consentGranted: Boolean get() = live { native.consentGranted() }

    /**
     * Deletes everything Linekit persisted in [Builder.storageDir]: its own files there
     * (last good remote config and the highest version accepted, line stats and HTTPDNS
     * state, the random install id) and temp files of interrupted writes to them. Any
     * other file in the directory, and the directory itself, stays. This engine writes
     * nothing there afterwards; the next one built on the directory starts as a new
     * install.
     *
     * @throws LineKitException.Store when a file cannot be deleted.
     * @throws LineKitException.Closed after [close].
     */
    @Throws(LineKitException::class)
    fun clearData() {
        live { native.clearData() }
    }

    /**
     * A [LineKitDns] over this engine that falls back to [delegate] (the platform resolver
     * by default) whenever the engine has no usable HTTPDNS answer.
     */
    @JvmOverloads
    fun dns(delegate: okhttp3.Dns = okhttp3.Dns.SYSTEM): LineKitDns = LineKitDns(this, delegate)

    /**
     * Runs a control-plane call inside the engine's open state; any call after [close]
     * throws `LineKitException.Closed` (also when [close] raced it: the engine then reports
     * itself closed). The bindings' errors are raised in their public form.
     */
    private inline fun <R> live(block: () -> R): R =
        LineKitException.translating { handle.use { block() } }
            ?: throw LineKitException.Closed(LineKitException.CLOSED)

    /** Like [live], for internal calls that a closed engine just skips (null). */
    private inline fun <R : Any> opened(block: () -> R?): R? = try {
        handle.use { block() }
    } catch (_: dev.linekit.ffi.LineKitException.Closed) {
        null
    }

    /**
     * Stops the engine (timers, probes and HTTPDNS queries in flight are cancelled; the
     * default transport's threads stop) and frees it once no call is in flight. Returns
     * promptly. Idempotent.
     */
    override fun close() {
        if (!closing.compareAndSet(false, true)) return
        handle.use { NativeStart.shutdown(it) }
        bound?.shutdown()
        engineTransport?.close()
        ownedTransport?.close()
        handle.close()
        diagnosisClient.close()
    }

    /**
     * Builds a [LineKit]. Give at least one config source: [configJson] (a remote or plain
     * config) and/or [sealedConfig] (the default shipped in the app). A source that fails
     * to load is skipped down the fallback chain (last good remote config in [storageDir],
     * sealed default, hard-coded line), so [build] fails only on programming errors.
     */
    class Builder {
        private var configJson: String? = null
        private var sealed: String? = null
        private var sealedKey: ByteArray? = null
        private var storageDir: File? = null
        private var traceSink: TraceSink? = null
        private var onAttempt: AttemptListener? = null
        private var onVersionMismatch: VersionMismatchListener? = null
        private var transport: LineKitTransport? = null
        private var defaultTransport: Boolean = true
        private var fallbackOnInvalidConfig: Boolean = false
        private var requireConsent: Boolean = false

        /** A plain JSON config. */
        fun configJson(json: String): Builder = apply { configJson = json }

        /** The sealed config asset (base64 text of AES-256-GCM) and its 32-byte key. */
        fun sealedConfig(bytes: ByteArray, key: ByteArray): Builder = apply {
            sealed = String(bytes, Charsets.UTF_8).trim()
            sealedKey = key.copyOf()
        }

        /**
         * Directory for persisted state (last good remote config, line stats, HTTPDNS, the
         * random install id), such as `File(context.filesDir, "linekit")`. Linekit writes
         * four files there (`docs/architecture.md#consent` names them), and [LineKit.clearData]
         * deletes those alone.
         */
        fun storageDir(dir: File): Builder = apply { storageDir = dir }

        /**
         * Receives sampled trace events as JSON objects (redacted: no URLs or tokens).
         * Called on the request path: must be cheap and must not block.
         */
        fun traceSink(sink: TraceSink): Builder = apply { traceSink = sink }

        /**
         * Observes every attempt reported to the engine (outcome, status, timings), on the
         * calling thread, right after it is reported. Must be cheap.
         */
        fun onAttempt(observer: AttemptListener): Builder = apply { onAttempt = observer }

        /**
         * Called, on the calling thread before the attempt is sent, for every attempt routed
         * onto a line whose deployment fingerprint (`version_header`) differs from the one
         * its business line was served from ([RouteTag.versionMismatch]): the app can switch
         * to a read-only or cached mode. Must be cheap.
         */
        fun onVersionMismatch(listener: VersionMismatchListener): Builder = apply { onVersionMismatch = listener }

        /**
         * The transport for probes and HTTPDNS queries. By default the engine gets a new
         * [OkHttpTransport] that it owns and closes with itself; a transport given here
         * stays the caller's to close. `null` gives the engine no transport: it then never
         * probes nor queries HTTPDNS (lookups always fall back to the system resolver).
         */
        fun transport(transport: LineKitTransport?): Builder = apply {
            this.transport = transport
            defaultTransport = false
        }

        /**
         * Falls back down the chain (last good, sealed, hard-coded) when the app's own
         * config is invalid, instead of [build] throwing [LineKitConfigException];
         * [LineKit.state] then says which source is used and why the others were skipped.
         */
        fun fallbackOnInvalidConfig(): Builder = apply { fallbackOnInvalidConfig = true }

        /**
         * Makes Linekit wait for the user's consent (the privacy policy) before it sends
         * anything of its own: no probe, HTTPDNS query, config fetch or diagnosis until
         * [LineKit.grantConsent]. The app's own requests are never delayed or refused
         * meanwhile: they are routed from the local config (the sealed default, the last
         * good remote config) and the persisted state; lookups fall back to the system
         * resolver. A diagnosis before consent throws `LineKitException.InvalidArgument`.
         */
        fun requireConsent(): Builder = apply { requireConsent = true }

        /**
         * Builds the engine over the JNI path alone, so it is ready to route when this
         * returns; the control-plane bindings (JNA) bind next on a Linekit daemon thread.
         * Linekit never runs JNA's first-use initialisation on two threads at once; if
         * another SDK of the app initialises JNA on its own thread at start-up, call any
         * control-plane method (e.g. [LineKit.consentGranted]) right after [build] and
         * before that SDK starts: it returns once the bindings are ready.
         * @throws LineKitConfigException when the app's own config is invalid (unless
         *   [fallbackOnInvalidConfig]).
         * @throws LineKitException on an unusable argument (half a sealed config, an
         *   unusable storage directory).
         */
        @Throws(LineKitException::class)
        fun build(): LineKit {
            val sink = traceSink?.let { app ->
                object : dev.linekit.ffi.TraceSink {
                    override fun emit(eventJson: String) = app.emit(eventJson)
                }
            }
            val owned = if (defaultTransport) OkHttpTransport() else null
            val chosen: HttpTransport? = owned ?: transport
            // One call over JNI: the core validates each config document once, while it
            // picks the config, and hands back every problem of an invalid own config.
            val failure = arrayOfNulls<Array<String?>>(1)
            val flags = StartFlags.pack(fallbackOnInvalidConfig, requireConsent, sink != null, chosen != null)
            val raw = try {
                NativeStart.start(configJson, sealed, sealedKey, storageDir?.absolutePath, flags, failure)
            } catch (t: Throwable) {
                owned?.close()
                throw t
            }
            if (raw == 0L) {
                owned?.close()
                throw startFailure(failure[0])
            }
            val kit = try {
                LineKit(raw, sink, onAttempt, owned, onVersionMismatch, chosen)
            } catch (t: Throwable) {
                NativeStart.shutdown(raw)
                NativeFast.release(raw)
                owned?.close()
                throw t
            }
            kit.bindSoon()
            return kit
        }

        /** The exception for a start that built no engine ([StartFailure], [ConfigProblem]s). */
        private fun startFailure(failure: Array<String?>?): Exception {
            val count = failure?.getOrNull(StartFailure.PROBLEMS)?.toIntOrNull()
            check(failure != null && count != null && failure.size == StartFailure.SIZE + count * ConfigProblem.SIZE) {
                "linekit: malformed start failure"
            }
            val kind = failure[StartFailure.KIND]
            if (kind != "InvalidAppConfig") {
                return LineKitException.ofKind(kind, failure[StartFailure.MESSAGE] ?: "linekit: start failed")
            }
            return LineKitConfigException(
                List(count) { i ->
                    val at = StartFailure.SIZE + i * ConfigProblem.SIZE
                    ConfigError(
                        failure[at + ConfigProblem.SOURCE].orEmpty(),
                        failure[at + ConfigProblem.PATH].orEmpty(),
                        failure[at + ConfigProblem.ERROR].orEmpty(),
                    )
                },
            )
        }
    }
}

/**
 * Result of [LineKit.updateConfig].
 *
 * @property applied whether the config replaced the one in force.
 * @property version the version now in force.
 * @property error why it was rejected (null when applied).
 */
data class ConfigUpdate(
    val applied: Boolean,
    val version: Long,
    val error: String?,
)
