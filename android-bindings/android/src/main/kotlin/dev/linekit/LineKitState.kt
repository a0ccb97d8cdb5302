package dev.linekit

/**
 * A snapshot of the engine's state, from [LineKit.state]; [LineKit.stateJson] is the same
 * snapshot as JSON (snake_case keys: `avg_latency_ms` for [LineState.avgLatencyMs]).
 *
 * Declared once, in the core (its engine state): the JSON is that value's serialization
 * and these classes mirror the records generated from it, field for field (a test fails
 * on any difference). No payloads, keys or tokens; line hosts, config URLs and HTTPDNS
 * host names appear as the app's config names them.
 *
 * @property version `version` of the config in force.
 * @property downgrade whether the kill switch is on (the config's `downgrade` or
 *   [LineKit.setDowngrade]).
 * @property source the config source the engine started from.
 * @property network the network the platform last reported ([LineKit.onNetworkChanged]).
 * @property rollout each business line's effective rollout mode on this install (`off`,
 *   `observe` or `on`), by business line.
 * @property pools every pool's lines, best first, keyed `"biz/protocol"` (`"spot/http"`).
 * @property httpdns the current network's HTTPDNS records and the providers' back-off.
 * @property config the config in force: source, expiry and the remote fetches.
 */
data class LineKitState(
    val version: Long,
    val downgrade: Boolean,
    val source: ConfigSource,
    val network: NetworkState,
    val rollout: Map<String, String>,
    val pools: Map<String, PoolState>,
    val httpdns: HttpDnsState,
    val config: ConfigState,
) {
    /**
     * The lines of business line [biz]'s [protocol] pool (`http` or `ws`), best first;
     * empty when there is no such pool.
     */
    @JvmOverloads
    fun lines(biz: String, protocol: String = "http"): List<LineState> = pools["$biz/$protocol"]?.lines.orEmpty()

    internal companion object {
        /** The public form of the record generated from the core's state. */
        fun of(s: dev.linekit.ffi.core.EngineState): LineKitState = LineKitState(
            version = s.version.toLong(),
            downgrade = s.downgrade,
            source = vocabulary(s.source) { ConfigSource.fromWireName(it) },
            network = s.network.let { n ->
                NetworkState(
                    handle = n.handle.toLong(),
                    validated = n.validated,
                    vpn = n.vpn,
                    privateDns = vocabulary(n.privateDns) { PrivateDnsMode.fromWireName(it) },
                    proxy = n.proxy,
                    transport = n.transport,
                    httpdnsBypass = n.httpdnsBypass?.let { b -> vocabulary(b) { HttpDnsBypass.fromWireName(it) } },
                )
            },
            rollout = s.rollout,
            pools = s.pools.mapValues { (_, pool) -> PoolState(pool.lines.map(::line)) },
            httpdns = HttpDnsState(
                records = s.httpdns.records.map { r ->
                    HttpDnsHost(r.host, r.addresses, r.provider, r.ttlS.toLong(), r.refreshInMs.toLong(), r.expiresInMs.toLong())
                },
                providers = s.httpdns.providers.map { HttpDnsProvider(it.id, it.backoffMs.toLong()) },
            ),
            config = s.config.let { c ->
                ConfigState(
                    source = vocabulary(c.source) { ConfigSource.fromWireName(it) },
                    version = c.version.toLong(),
                    expiresAt = c.expiresAt?.toLong(),
                    expired = c.expired,
                    status = c.status,
                    skipped = c.skipped.map { k -> SkippedSource(vocabulary(k.source) { ConfigSource.fromWireName(it) }, k.reason) },
                    fetch = c.fetch.map { ConfigFetch(it.url, it.lastOutcome) },
                )
            },
        )

        private fun line(l: dev.linekit.ffi.core.LineSnapshot) = LineState(
            id = l.id,
            host = l.host,
            breaker = vocabulary(l.breaker) { BreakerState.fromWireName(it) },
            successes = l.successes.toLong(),
            failures = l.failures.toLong(),
            avgLatencyMs = l.avgLatencyMs?.toLong(),
            used = l.used,
            lastError = l.lastError?.let { e -> vocabulary(e) { AttemptOutcome.fromWireName(it) } },
            current = l.current,
            version = l.version,
        )

        /**
         * The generated enum entry of wire name [name]. Both come from the core's one
         * declaration of the vocabulary (and a test compares them with the loaded library),
         * so a miss means generated code out of step with the library.
         */
        private fun <E : Any> vocabulary(name: String, lookup: (String) -> E?): E =
            checkNotNull(lookup(name)) { "linekit: \"$name\" is not in the generated vocabulary; rebuild the bindings" }
    }
}

/**
 * The network the platform last reported, and whether HTTPDNS is bypassed on it.
 *
 * @property handle `Network.getNetworkHandle()`; 0 = no network.
 * @property validated the platform validated internet access.
 * @property vpn the network is a VPN.
 * @property privateDns the Private DNS mode.
 * @property proxy an HTTP proxy is configured.
 * @property transport `wifi`, `cellular`, ... when known.
 * @property httpdnsBypass why HTTPDNS is bypassed on it (null when HTTPDNS is used).
 */
data class NetworkState(
    val handle: Long,
    val validated: Boolean,
    val vpn: Boolean,
    val privateDns: PrivateDnsMode,
    val proxy: Boolean,
    val transport: String?,
    val httpdnsBypass: HttpDnsBypass?,
)

/**
 * One pool (a business line's `http` or `ws` lines).
 *
 * @property lines its lines in rank order: the one the next request goes to first.
 */
data class PoolState(val lines: List<LineState>)

/**
 * One line of a pool.
 *
 * @property id the line's id.
 * @property host its host (with `:port` when the line names one).
 * @property breaker its circuit breaker.
 * @property successes successes in the sliding window.
 * @property failures failures in the sliding window.
 * @property avgLatencyMs average latency of answered requests in the window, if any.
 * @property used whether the line was ever used.
 * @property lastError the most recent failure, if any.
 * @property current whether it is the pool's sticky current line.
 * @property version the last deployment fingerprint seen (`version_header`), if any.
 */
data class LineState(
    val id: String,
    val host: String,
    val breaker: BreakerState,
    val successes: Long,
    val failures: Long,
    val avgLatencyMs: Long?,
    val used: Boolean,
    val lastError: AttemptOutcome?,
    val current: Boolean,
    val version: String?,
)

/**
 * HTTPDNS on the current network.
 *
 * @property records the records, sorted by host.
 * @property providers each provider's back-off.
 */
data class HttpDnsState(
    val records: List<HttpDnsHost>,
    val providers: List<HttpDnsProvider>,
)

/**
 * The HTTPDNS record of one host on the current network.
 *
 * @property host the host name.
 * @property addresses its addresses, in the order served (before quarantine).
 * @property provider the id of the provider that answered.
 * @property ttlS the effective TTL in seconds.
 * @property refreshInMs milliseconds until a refresh is due (0 when due).
 * @property expiresInMs milliseconds until it stops being served (0 when expired).
 */
data class HttpDnsHost(
    val host: String,
    val addresses: List<String>,
    val provider: String,
    val ttlS: Long,
    val refreshInMs: Long,
    val expiresInMs: Long,
)

/**
 * One HTTPDNS provider's back-off.
 *
 * @property id the provider's id.
 * @property backoffMs milliseconds it stays backed off (0 = usable).
 */
data class HttpDnsProvider(val id: String, val backoffMs: Long)

/**
 * The config in force and the remote fetches.
 *
 * @property source where the config in force came from.
 * @property version its `version`.
 * @property expiresAt its `expires_at` (Unix seconds), if it has one.
 * @property expired whether it is past `expires_at` (it still routes).
 * @property status `ok`, or `config_expired` once past `expires_at`.
 * @property skipped the sources skipped at start-up, in chain order, with why.
 * @property fetch each config URL's last fetch outcome, in `remote.urls` order.
 */
data class ConfigState(
    val source: ConfigSource,
    val version: Long,
    val expiresAt: Long?,
    val expired: Boolean,
    val status: String,
    val skipped: List<SkippedSource>,
    val fetch: List<ConfigFetch>,
)

/**
 * A config source skipped at start-up.
 *
 * @property source the source.
 * @property reason why (the error, without config content or keys).
 */
data class SkippedSource(val source: ConfigSource, val reason: String)

/**
 * The last fetch of one config URL.
 *
 * @property url the URL, as the config lists it.
 * @property lastOutcome what its last fetch gave.
 */
data class ConfigFetch(val url: String, val lastOutcome: String)
