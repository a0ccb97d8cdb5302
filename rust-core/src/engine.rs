//! The `LineKit` facade: answers the per-request questions (`route`, `report`, `lookup`)
//! and the control-plane ones (`update_config`, `on_network_changed`, `set_downgrade`,
//! `state`) over a set of services, each owning its state and its locks.
//!
//! **Services.** Each lives in its own file, and its locks are taken only there (the line
//! pools, which live in the topology, are locked through `routing::lock_pool` by every
//! flow that records into or reads one):
//!
//! | service | file | owns | from the config |
//! |---|---|---|---|
//! | routing | `routing` | the [`Topology`] in force (pools, host index, convergence), the trace sampler, the kill switch | the whole topology |
//! | prober | `detect` | the detect scheduler and the probe budget | `thresholds` |
//! | HTTPDNS | `httpdns` | the [`DnsCache`](crate::dns::DnsCache), the network monitor, refresh rounds and provider back-off | `httpdns` |
//! | remote channel | `remote_config` | the publication lock, fetch rounds, ETags, expiry, the last good store | `remote` |
//! | requests | `requests` | the [`Transport`], the in-flight table and the consent flag | — |
//! | persistence | `persist` | the state file | — |
//! | tracing | `trace_order` | the sink and the stamping of events | — |
//! | warmer | `warm` | nothing of its own: the conditions and sending of warm connections (see [`crate::line::warm`]) | each business line's `warm_connections` |
//!
//! They share a context: the clock, the install seed, the [`Runtime`], the callback gate
//! (`gate`) and the storage directory with the flag [`LineKit::clear_data`] sets (module
//! `consent`), which persistence and the remote channel's last good store both obey. A flow that crosses services (a probe result, an HTTPDNS answer, a
//! config fetch) is a method of the engine's inner state in the file of the service it
//! belongs to (the request path, `route` and `report`, is here), and reaches the other
//! services through their methods.
//!
//! **Publishing a config** is one path, at start-up and for every accepted remote
//! document. The config is validated once (by the source chain at start-up, by
//! [`crate::config::accept::check_remote`] for an offer), its topology is built off to the
//! side (carrying line statistics over by line id), and then, under the remote channel's
//! publication lock, each service applies it in this order:
//!
//! 1. the prober takes the detect thresholds and the probe budget;
//! 2. HTTPDNS takes the cache settings and the providers;
//! 3. routing puts the topology in force in one store (from here `route` uses it);
//! 4. the remote channel persists an accepted document as the last good one, takes its
//!    source and says whether a first fetch round is due.
//!
//! The background services go before routing, so whatever the new topology's first
//! requests trigger already runs with the new settings; the remote channel goes last, as
//! it works from the config in force. Then the first fetch round is scheduled and the
//! expiry watch armed (at start-up after the start event). Two publications never
//! interleave.
//!
//! **Lock order.** A thread takes locks only in increasing rank (module `lock_order`,
//! whose check panics on an inversion in debug and test builds):
//!
//! | rank | lock | service | held for |
//! |---|---|---|---|
//! | 1 | publication | remote channel | a whole publication or offer: acceptance, topology build, the applies, its trace event |
//! | 2 | network monitor | HTTPDNS | publishing a network change to the cache; storing an answer checked against the network key |
//! | 3 | a line pool | routing | one pool's statistics (never two pools at once) |
//! | 4 | detect scheduler | prober | one scheduling decision |
//! | 5 | refresh | HTTPDNS | the refresh queue, rounds and provider back-off |
//! | 6 | in-flight table | requests | adding or removing one request |
//! | 7 | fetch state | remote channel | rounds, ETags, outcomes, expiry |
//! | 8 | state file | persistence | the disk read or write |
//! | 9 | trace order | tracing | stamping one event and the sink's call |
//!
//! The topology also locks its pools itself, at their rank: while routing (holding nothing
//! else) and while a new topology carries statistics over (under the publication lock).
//! The locks private to other modules, the DNS cache's writer and the runtime's timer
//! queue, are leaves: taken after any of these, never held across a call out. The sink
//! runs under the trace lock, so it must not call back into the engine. The callback gate
//! is not a lock: entering it never blocks, and [`LineKit::close`] waits on it holding
//! nothing.
//!
//! Background work (detect probes, revive checks, HTTPDNS refresh, fetch rounds, state
//! flushes) runs on the engine's [`Runtime`] and reaches the network only through the
//! [`Transport`]; with no transport the engine never probes. Every request the engine
//! starts has its own deadline timer, so a transport that never answers cannot keep a
//! business line "in flight" forever. [`LineKit::close`] stops the runtime, drops in-flight
//! requests and returns once no engine callback is running; no trace event is emitted
//! after it returns.

use crate::clock::Clock;
use crate::config::source::{ConfigSource, LastGoodStore};
use crate::config::Config;
use crate::detect::Trigger;
use crate::dns::{ConnectError, Lookup};
use crate::line::headers;
use crate::line::pool::PoolSnapshot;
use crate::line::rollout::RolloutMode;
use crate::line::{Outcome, Protocol, Timings, WsEvent};
use crate::net::NetworkState;
use crate::runtime::{Runtime, Task};
use crate::trace::redact::host_group;
use crate::trace::{
    AttemptTrace, RouteTrace, TraceBody, TraceEvent, TraceLine, TraceNetwork, TraceSink, WouldTrace,
};
use crate::transport::Transport;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use crate::line::router::{RouteDecision, RouteRequest, Topology, Would};
pub use builder::{BuildError, LineKitBuilder};
pub use httpdns::DnsRecordState;
pub use state::{
    ConfigFetch, ConfigState, EngineState, HttpDnsState, NetworkView, ProviderBackoff,
    SkippedSource,
};

mod builder;
mod consent;
mod detect;
mod diagnose;
mod gate;
mod httpdns;
mod lock_order;
mod requests;
mod routing;
mod state;

mod persist;
pub use persist::FLUSH_DELAY_MS;
mod trace_order;
mod warm;

mod remote_config;
pub use remote_config::FIRST_RETRY_MS;

use detect::Prober;
use gate::Gate;
use httpdns::HttpDns;
use lock_order::Guard;
use remote_config::RemoteChannel;
use requests::Requests;
use routing::{lock_pool, Routing, State};
use trace_order::Tracer;

/// The outcome of one attempt, reported after it finished.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// Business line of the attempt (from the decision).
    pub biz: Option<&'a str>,
    /// Pool of the attempt.
    pub protocol: Protocol,
    /// Line id (from the decision).
    pub line: Option<&'a str>,
    /// Host the attempt went to, when the line id is not known.
    pub host: Option<&'a str>,
    /// What happened.
    pub outcome: Outcome,
    /// HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// Total cost in milliseconds.
    pub cost_ms: u64,
    /// Phase times (DNS, connect, TLS, first byte).
    pub timings: Timings,
    /// Value of the business line's `version_header` on the response, if any (raw: the
    /// engine bounds and checks it).
    pub version: Option<&'a str>,
}

impl<'a> Report<'a> {
    /// A report of `outcome` on `line` of business line `biz` (HTTP pool), costing `cost_ms`.
    pub fn new(biz: &'a str, line: &'a str, outcome: Outcome, cost_ms: u64) -> Self {
        Report {
            biz: Some(biz),
            protocol: Protocol::Http,
            line: Some(line),
            host: None,
            outcome,
            status: None,
            cost_ms,
            timings: Timings::default(),
            version: None,
        }
    }
}

/// Result of offering a new remote config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigUpdate {
    /// Whether it replaced the current config.
    pub applied: bool,
    /// The version now in force.
    pub version: u64,
    /// Why it was rejected.
    pub error: Option<String>,
}

/// How the engine's background runtime runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuntimeMode {
    /// A `linekit-runtime` thread runs timers on the real clock (production).
    #[default]
    Threaded,
    /// No thread: the owner calls [`LineKit::run_due`] after moving a manual clock
    /// (tests and `linekit replay`).
    Manual,
}

/// The services and the context they share.
struct Inner {
    clock: Arc<dyn Clock>,
    seed: u64,
    runtime: Runtime,
    /// Transport completions, deadline timers and trace emission run inside it.
    gate: Gate,
    tracer: Tracer,
    routing: Routing,
    requests: Requests,
    prober: Prober,
    httpdns: HttpDns,
    remote: RemoteChannel,
    /// The state file, when a storage directory is set.
    persist: Option<persist::Persistence>,
    /// The storage directory, when one is usable (the state file, the last good config
    /// and the install seed live there).
    storage_dir: Option<PathBuf>,
    /// [`LineKit::clear_data`] ran: nothing more is written to the storage directory.
    cleared: AtomicBool,
}

/// How a config came to be published.
enum Publication<'a> {
    /// The start-up config, from the source chain.
    Startup,
    /// An accepted remote document (its text becomes the last good config).
    Accepted(&'a str),
}

/// The engine. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct LineKit {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LineKit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineKit")
            .field("version", &self.config().version)
            .field("source", &self.inner.remote.startup_source())
            .finish_non_exhaustive()
    }
}

struct Parts {
    config: Config,
    source: ConfigSource,
    clock: Arc<dyn Clock>,
    sink: Arc<dyn TraceSink>,
    seed: u64,
    last_good: Option<LastGoodStore>,
    /// The rotations from the app's own trust to the start-up config's.
    chain: Vec<String>,
    /// The version no remote config may go below.
    floor: u64,
    storage_dir: Option<PathBuf>,
    transport: Option<Arc<dyn Transport>>,
    mode: RuntimeMode,
    /// Config sources skipped at start-up, with why.
    skipped: Vec<(ConfigSource, String)>,
    trace_all: bool,
    /// Own requests wait for [`LineKit::grant_consent`].
    require_consent: bool,
}

impl LineKit {
    /// An engine over a validated config with an explicit clock, sink and install seed; no
    /// transport (never probes) and a manual runtime.
    pub fn new(
        config: Config,
        clock: Arc<dyn Clock>,
        sink: Arc<dyn TraceSink>,
        seed: u64,
    ) -> Result<Self> {
        crate::config::validate::validate(&config)?;
        Self::assemble(Parts {
            config,
            source: ConfigSource::Remote,
            clock,
            sink,
            seed,
            last_good: None,
            chain: Vec::new(),
            floor: 0,
            storage_dir: None,
            transport: None,
            mode: RuntimeMode::Manual,
            skipped: Vec::new(),
            trace_all: false,
            require_consent: false,
        })
    }

    fn assemble(p: Parts) -> Result<Self> {
        let state = State::build(Arc::new(p.config), p.seed, None).or_else(|e| {
            log::warn!("linekit: config could not be built into pools ({e}); routing nothing");
            State::build(Arc::new(Config::default()), p.seed, None)
        })?;
        let now = p.clock.now_ms();
        let runtime = match p.mode {
            RuntimeMode::Manual => Runtime::manual(p.clock.clone()),
            RuntimeMode::Threaded => Runtime::threaded(p.clock.clone()).map_err(|e| {
                Error::InvalidArgument(format!("cannot start the runtime thread: {e}"))
            })?,
        };
        // Every service starts unconfigured (routing: on the empty config); the start-up
        // config reaches them through `publish`, as every later one does.
        let kit = LineKit {
            inner: Arc::new(Inner {
                routing: Routing::new(State::build(Arc::new(Config::default()), p.seed, None)?),
                tracer: Tracer::new(p.sink, p.seed, p.trace_all),
                requests: Requests::new(p.transport, !p.require_consent),
                prober: Prober::new(p.seed, now),
                httpdns: HttpDns::new(p.seed),
                remote: RemoteChannel::new(
                    p.source,
                    p.skipped,
                    p.last_good.map(|store| (store, p.chain)),
                    p.floor,
                    p.seed,
                    now,
                ),
                persist: p.storage_dir.as_deref().map(persist::Persistence::new),
                storage_dir: p.storage_dir,
                cleared: AtomicBool::new(false),
                gate: Gate::default(),
                clock: p.clock,
                seed: p.seed,
                runtime,
            }),
        };
        let inner = &kit.inner;
        let startup_delay = state.topology.config.thresholds.startup_detect_delay_ms;
        let first_round = inner.publish(&inner.remote.serialise(), state, Publication::Startup);
        inner.emit_start(now);
        inner.start_fetching(first_round, startup_delay);
        inner.schedule_load();
        if inner.requests.has_transport() {
            inner.trigger_every_biz(Trigger::Startup);
            Inner::schedule_revive(inner);
            inner.pre_resolve();
        }
        Ok(kit)
    }

    /// A builder.
    pub fn builder() -> LineKitBuilder {
        LineKitBuilder::new()
    }

    /// The config in force.
    pub fn config(&self) -> Arc<Config> {
        self.inner.routing.config()
    }

    /// Which source the start-up config came from.
    pub fn config_source(&self) -> ConfigSource {
        self.inner.remote.startup_source()
    }

    /// The clock the engine runs on.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// Whether the kill switch is on (config flag or [`LineKit::set_downgrade`]).
    pub fn downgrade(&self) -> bool {
        self.inner.routing.manual_downgrade() || self.inner.routing.load().topology.config.downgrade
    }

    /// Routes one request.
    pub fn route(&self, req: &RouteRequest<'_>) -> RouteDecision {
        let inner = &self.inner;
        let state = inner.routing.load();
        let now = inner.clock.now_ms();
        let decision = state
            .topology
            .route(req, now, inner.routing.manual_downgrade());
        if inner.sampled(&state, now) {
            inner.emit(route_event(req, &decision, now, self.downgrade()));
        }
        decision
    }

    /// Routes a request given as URL, method and all its headers (private `X-Line-*`
    /// headers are read here); returns the decision and the headers to send. `protocol`
    /// `None` infers the pool from the request: a WebSocket handshake (`Upgrade:
    /// websocket`, or a `ws://` / `wss://` URL) uses the business line's `ws` pool,
    /// anything else `http`. `mode` is the rollout mode of the call's first attempt, which a
    /// retry passes back (see [`RouteRequest::mode`]); `None` for a first attempt.
    pub fn route_with_headers<N: AsRef<str>, V: AsRef<str>>(
        &self,
        url: &str,
        method: &str,
        headers: &[(N, V)],
        protocol: Option<Protocol>,
        exclude: &[&str],
        mode: Option<RolloutMode>,
    ) -> (RouteDecision, Vec<(String, String)>) {
        let protocol =
            protocol.unwrap_or_else(|| crate::line::upgrade::infer_protocol(url, headers));
        let private = headers::LineHeaders::parse(headers);
        let req = RouteRequest {
            mode,
            ..RouteRequest::with_headers(url, method, &private, protocol, exclude)
        };
        let decision = self.route(&req);
        let sent = headers
            .iter()
            .filter(|(n, _)| !headers::is_private(n.as_ref()))
            .map(|(n, v)| (n.as_ref().to_string(), v.as_ref().to_string()))
            .collect();
        (decision, sent)
    }

    /// Records the outcome of one attempt. Unknown business lines or lines are ignored
    /// (the report may belong to a config that was just replaced), and so are business
    /// lines whose rollout mode is `off` (their requests are left alone). Slow requests, a
    /// line reaching `failure_threshold` consecutive faults and WebSocket handshake
    /// failures trigger a detect of the business line.
    pub fn report(&self, report: &Report<'_>) {
        let inner = &self.inner;
        let state = inner.routing.load();
        let now = inner.clock.now_ms();
        let topo = &state.topology;
        let biz = match (report.biz, report.host) {
            (Some(name), _) => topo.biz_entry(name),
            (None, Some(host)) => topo.biz.iter().find(|b| {
                b.pool(report.protocol)
                    .is_some_and(|p| lock_pool(p).index_of_host(host).is_some())
            }),
            (None, None) => None,
        };
        let Some(biz) = biz.filter(|b| b.mode != RolloutMode::Off) else {
            return;
        };
        let Some(pool) = biz.pool(report.protocol) else {
            return;
        };
        let (line_id, faults, breaker_change, index, warm) = {
            let mut pool = lock_pool(pool);
            let index = match (report.line, report.host) {
                (Some(id), _) => pool.index_of(id),
                (None, Some(host)) => pool.index_of_host(host),
                (None, None) => None,
            };
            let Some(index) = index else { return };
            let before = pool.lines()[index].breaker.state(now);
            pool.finish_request(now, index, report.outcome, report.cost_ms);
            pool.record(now, index, report.outcome, report.status, report.cost_ms);
            if let Some(v) = report
                .version
                .and_then(crate::line::version::sanitize_value)
            {
                pool.observe_version(index, v);
            }
            // Only an answer that may change where traffic goes next asks for a warm: one
            // from another line than the serving one, a line fault, a slow answer.
            let moving = index != pool.current()
                || report.outcome.is_line_fault(report.status)
                || (report.outcome == Outcome::Ok
                    && report.cost_ms > topo.config.thresholds.slow_request_ms);
            let warm = if moving {
                inner.want_warm(&mut pool, biz, &topo.config, now)
            } else {
                None
            };
            let line = &pool.lines()[index];
            let change = trace_order::breaker_change(before, &line.breaker, now);
            (
                line.id.clone(),
                line.consecutive_faults,
                change,
                index,
                warm,
            )
        };
        if let Some(wanted) = warm {
            inner.send_warm(&biz.name, wanted, now);
        }
        if !report.outcome.is_ignored() {
            inner.mark_dirty();
        }
        if inner.requests.has_transport() && !report.outcome.is_ignored() {
            let t = &topo.config.thresholds;
            let trigger =
                if report.protocol == Protocol::Ws && report.outcome.is_line_fault(report.status) {
                    Some(Trigger::WsHandshakeFailure)
                } else if faults >= t.failure_threshold {
                    Some(Trigger::ConsecutiveFailures)
                } else if report.outcome == Outcome::Ok && report.cost_ms > t.slow_request_ms {
                    Some(Trigger::SlowRequest)
                } else {
                    None
                };
            if let Some(trigger) = trigger {
                // With a known fast line to move to, the move needs no probe: the detect
                // is not urgent and keeps the long jitter. (Asked only when a detect is
                // triggered: it reads every line's window, too much for every report.)
                let urgent =
                    trigger.is_urgent() && !lock_pool(pool).knows_fast_line_besides(index, now);
                inner.trigger_as(&biz.name, trigger, urgent);
            }
        }
        if inner.sampled(&state, now) {
            inner.emit(report_event(report, &biz.name, &line_id, now));
            if let Some(change) = breaker_change {
                inner.emit(change.event(&biz.name, report.protocol, &line_id, now));
            }
        }
    }

    /// Records a WebSocket lifecycle event on line `line` of business line `biz`'s `ws`
    /// pool (see [`crate::line::ws`] for what counts). A handshake failure or an early
    /// abnormal close is a line fault and triggers a detect of the business line.
    pub fn report_ws(&self, biz: &str, line: &str, event: WsEvent) {
        let stable_ms = self
            .inner
            .routing
            .load()
            .topology
            .config
            .thresholds
            .ws_stable_ms;
        let Some((outcome, status, cost_ms)) = event.to_outcome(stable_ms) else {
            return;
        };
        self.report(&Report {
            protocol: Protocol::Ws,
            status,
            ..Report::new(biz, line, outcome, cost_ms)
        });
    }

    /// Asks for a detect of business line `biz` now (skipping the cooldown, not the
    /// single-flight rule or the probe budget). Returns whether one was scheduled.
    pub fn detect(&self, biz: &str) -> bool {
        let Some(name) = self
            .inner
            .routing
            .load()
            .topology
            .biz_entry(biz)
            .map(|b| b.name.clone())
        else {
            return false;
        };
        self.inner.trigger(&name, Trigger::Manual)
    }

    /// The platform reported a new default network (or a change of the current one).
    /// The DNS cache switches to it (records never cross networks; HTTPDNS is bypassed
    /// where [`crate::net::HttpDnsBypass`] says so). A network that becomes validated
    /// triggers a detect of every business line; a network on which HTTPDNS becomes usable
    /// (validated, no VPN, proxy or strict Private DNS) gets the pre-resolve list.
    pub fn on_network_changed(&self, network: NetworkState) {
        let inner = &self.inner;
        inner.emit_network(&network);
        let change = inner.httpdns.network_changed(network);
        if change.httpdns_usable {
            inner.pre_resolve();
        }
        if change.became_validated && inner.requests.has_transport() {
            inner.trigger_every_biz(Trigger::NetworkValidated);
            inner.remote_on_network_validated();
        }
    }

    /// The addresses to use for `host` (a pure snapshot read; see [`DnsCache::lookup`](crate::dns::DnsCache::lookup)).
    /// `source: system` means the caller must use the platform resolver. When a refresh
    /// is due (a miss for an HTTPDNS host, or a record past `refresh_at`) it is queued for
    /// the runtime without waiting; concurrent lookups coalesce into one query.
    pub fn lookup(&self, host: &str) -> Lookup {
        let now = self.inner.clock.now_ms();
        let answer = self.inner.httpdns.cache().lookup(host, now);
        if answer.refresh_due {
            self.inner.request_refresh(host, now);
        }
        self.arm_expiry(answer.memo_until_ms);
        answer
    }

    /// The addresses to use for `host` on network `handle` (a client bound to that
    /// network): the current network's answer, refresh included, when `handle` is the
    /// current one; otherwise that network's own unexpired records, or `system` (see
    /// [`DnsCache::lookup_on`](crate::dns::DnsCache::lookup_on)). Never another network's records.
    pub fn lookup_on(&self, host: &str, handle: u64) -> Lookup {
        let now = self.inner.clock.now_ms();
        let answer = self.inner.httpdns.cache().lookup_on(host, handle, now);
        if answer.refresh_due {
            self.inner.request_refresh(host, now);
        }
        self.arm_expiry(answer.memo_until_ms);
        answer
    }

    /// Makes the DNS generation move when an answer kept until `at` is due (0: not kept).
    fn arm_expiry(&self, at: u64) {
        let cache = self.inner.httpdns.cache();
        if at == 0 || !cache.claim_expiry(at) {
            return;
        }
        let task = self
            .inner
            .task(move |inner| inner.httpdns.cache().expire_kept(at));
        let scheduled = self.inner.runtime.schedule_at(at, task);
        if scheduled.is_none() {
            // Closed: nothing will keep answers any more; release the claim.
            cache.expire_kept(at);
        }
    }

    /// The HTTPDNS cache's generation: bumped after every change a lookup could see, and
    /// by a runtime timer when the first answer handed out with a
    /// [`Lookup::memo_until_ms`] is due, so a caller may keep a lookup answer for as long
    /// as the generation stays the one it read before asking (see
    /// [`DnsCache::generation`](crate::dns::DnsCache::generation)).
    pub fn dns_generation(&self) -> &Arc<std::sync::atomic::AtomicU32> {
        self.inner.httpdns.cache().generation()
    }

    /// The engine's monotonic clock in ms (the clock of [`Lookup::memo_until_ms`]).
    pub fn now_ms(&self) -> u64 {
        self.inner.clock.now_ms()
    }

    /// A connect to `ip` for `host` failed on the current network; attributable failures
    /// quarantine the address (never the last one of a record). Returns whether it did.
    pub fn connect_failed(&self, host: &str, ip: IpAddr, error: ConnectError) -> bool {
        let now = self.inner.clock.now_ms();
        let cache = self.inner.httpdns.cache();
        let quarantined = cache.connect_failed(cache.network().0, host, ip, error, now);
        if quarantined {
            self.inner.mark_dirty();
        }
        quarantined
    }

    /// A connect to `ip` for `host` succeeded on the current network: clears its
    /// quarantine.
    pub fn connect_succeeded(&self, host: &str, ip: IpAddr) {
        let now = self.inner.clock.now_ms();
        let cache = self.inner.httpdns.cache();
        cache.connect_succeeded(cache.network().0, host, ip, now);
    }

    /// A connect to `ip` for `host` succeeded in `connect_ms`: clears its quarantine and
    /// feeds the per-address connect ranking of later lookups.
    pub fn connect_succeeded_ms(&self, host: &str, ip: IpAddr, connect_ms: u64) {
        let now = self.inner.clock.now_ms();
        let cache = self.inner.httpdns.cache();
        cache.connect_succeeded_ms(cache.network().0, host, ip, connect_ms, now);
    }

    /// After [`Self::lookup`] said `system` and the system resolver answered `system`
    /// (empty = it failed): the built-in `httpdns.bootstrap` addresses of `host` when the
    /// system gave nothing the address policy accepts, else `None`.
    pub fn bootstrap_fallback(&self, host: &str, system: &[IpAddr]) -> Option<Arc<[IpAddr]>> {
        self.inner.httpdns.cache().fallback(host, system)
    }

    /// The current network's HTTPDNS records (host, addresses, provider, TTL, time left),
    /// sorted by host.
    pub fn dns_records(&self) -> Vec<DnsRecordState> {
        self.inner.dns_records()
    }

    /// The last network the platform reported.
    pub fn network(&self) -> NetworkState {
        self.inner.httpdns.network().0
    }

    /// Offers a new remote config (JSON text, or a signed envelope). It applies only if it
    /// passes [`crate::config::accept::check_remote`] (signatures when `trust` is set,
    /// validation, a newer version, expiry); an applied config is persisted as the last
    /// good remote config. A rejection's `error` starts with its reason code.
    pub fn update_config(&self, json: &str) -> ConfigUpdate {
        self.inner.offer_config(json)
    }

    /// Starts a fetch round of `remote.urls` now (unless one is running). Returns whether
    /// a round is running (false without `remote` or without a transport).
    pub fn refresh_config(&self) -> bool {
        self.inner.start_round_now()
    }

    /// The config in force and the remote fetches (the `config` of [`LineKit::state`]).
    pub fn config_status(&self) -> ConfigState {
        self.inner.config_state()
    }

    /// Whether the config in force is past its `expires_at` (it still routes).
    pub fn config_expired(&self) -> bool {
        self.inner.is_config_expired()
    }

    /// Turns the runtime kill switch on or off (the config's `downgrade` flag still applies).
    pub fn set_downgrade(&self, on: bool) {
        self.inner.routing.set_manual_downgrade(on);
        self.inner.emit_downgrade(on);
    }

    /// Each business line's rollout mode on this install, by name.
    pub fn rollout_modes(&self) -> BTreeMap<String, RolloutMode> {
        self.biz_modes().into_iter().collect()
    }

    /// Every pool's ranked lines, keyed `"biz/protocol"`.
    pub fn pools(&self) -> BTreeMap<String, PoolSnapshot> {
        self.pool_snapshots().into_iter().collect()
    }

    /// [`Self::rollout_modes`] in config order. [`Self::state`] reads this list, so the
    /// shipped library carries no ordered map for it.
    fn biz_modes(&self) -> Vec<(String, RolloutMode)> {
        let state = self.inner.routing.load();
        state
            .topology
            .biz
            .iter()
            .map(|b| (b.name.to_string(), b.mode))
            .collect()
    }

    /// [`Self::pools`] in config order (see [`Self::biz_modes`]).
    fn pool_snapshots(&self) -> Vec<(String, PoolSnapshot)> {
        let state = self.inner.routing.load();
        let now = self.inner.clock.now_ms();
        let mut out = Vec::new();
        for biz in &state.topology.biz {
            for protocol in [Protocol::Http, Protocol::Ws] {
                if let Some(pool) = biz.pool(protocol) {
                    out.push((
                        format!("{}/{}", biz.name, protocol),
                        lock_pool(pool).snapshot(now),
                    ));
                }
            }
        }
        out
    }

    /// The engine's state (see [`EngineState`]): config version and source, downgrade,
    /// network, each business line's rollout mode, ranked pools, HTTPDNS records and back-off, the config's expiry and
    /// fetches. No payloads.
    pub fn state(&self) -> EngineState {
        EngineState {
            version: self.config().version,
            downgrade: self.downgrade(),
            source: self.inner.remote.startup_source().as_str().to_string(),
            network: network_view(&self.network()),
            rollout: self
                .biz_modes()
                .into_iter()
                .map(|(biz, mode)| (biz, mode.as_str().to_string()))
                .collect(),
            pools: self.pool_snapshots().into_iter().collect(),
            httpdns: HttpDnsState {
                records: self.dns_records(),
                providers: self
                    .inner
                    .provider_backoff()
                    .into_iter()
                    .map(|(id, backoff_ms)| ProviderBackoff { id, backoff_ms })
                    .collect(),
            },
            config: self.inner.config_state(),
        }
    }

    /// [`LineKit::state`] as JSON: `{"config":{..},"downgrade":b,"httpdns":{"providers":
    /// [..],"records":[..]},"network":{..},"pools":{"biz/protocol":[lines..]},"source":..,
    /// "version":N}`, every object's keys sorted.
    pub fn state_json(&self) -> String {
        self.state().to_json()
    }

    /// Runs background tasks that are due (manual runtime mode); returns how many ran.
    pub fn run_due(&self) -> usize {
        self.inner.runtime.run_due()
    }

    /// The earliest pending background deadline (manual runtime mode).
    pub fn next_deadline(&self) -> Option<u64> {
        self.inner.runtime.next_deadline()
    }

    /// Requests started and not finished yet.
    pub fn in_flight(&self) -> usize {
        self.inner.requests.in_flight()
    }

    /// Stops background work: cancels timers, drops in-flight requests (their late
    /// completions are ignored) and stops the runtime thread. Returns once no engine
    /// callback is running; routing keeps working afterwards (it needs no runtime).
    pub fn close(&self) {
        self.inner.close();
    }

    /// Whether [`LineKit::close`] was called.
    pub fn is_closed(&self) -> bool {
        !self.inner.is_open()
    }
}

impl Drop for LineKit {
    /// Closes the engine. A panic on the way (foreign callbacks are already caught by the
    /// bindings; this is for a bug in the close path itself) is caught here and logged:
    /// the shipped library aborts on a panic that leaves a `drop` (`-Z panic-in-drop=abort`,
    /// scripts/release-flags.sh), and the app must live on.
    fn drop(&mut self) {
        let inner = &self.inner;
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.close())).is_err() {
            log::error!("linekit: closing the engine panicked; dropped anyway");
        }
    }
}

impl Inner {
    /// A runtime task that runs `f` on the engine if the engine still exists then: the
    /// task holds only a weak reference, so a pending timer never keeps a dropped engine
    /// alive.
    fn task(self: &Arc<Self>, f: impl FnOnce(&Arc<Inner>) + Send + 'static) -> Task {
        let weak = Arc::downgrade(self);
        Box::new(move || {
            if let Some(inner) = weak.upgrade() {
                f(&inner);
            }
        })
    }

    fn is_open(&self) -> bool {
        self.gate.is_open()
    }

    /// Puts a validated config's state into force: every service applies it, in the order
    /// of the module docs, under the publication lock (`_serial`). Returns whether a first
    /// fetch round is due.
    fn publish(&self, _serial: &Guard<'_, ()>, state: State, how: Publication<'_>) -> bool {
        let config = state.topology.config.clone();
        self.prober.apply(&config, self.clock.now_ms());
        self.httpdns.apply(&config);
        self.routing.apply(state);
        self.remote.apply(&config, &how, self.may_persist())
    }

    fn close(&self) {
        if !self.gate.close() {
            return;
        }
        self.runtime.close();
        self.flush_on_close();
        self.requests.cancel_all();
    }
}

/// The `network` of [`LineKit::state`]: what a trace says of the network the platform
/// last reported, and why HTTPDNS is bypassed on it (`None` when it is used).
fn network_view(network: &NetworkState) -> NetworkView {
    let described = TraceNetwork::from(network);
    NetworkView {
        httpdns_bypass: crate::net::HttpDnsBypass::reason(network).map(|b| b.as_str().to_string()),
        handle: described.handle,
        validated: described.validated,
        vpn: described.vpn,
        private_dns: described.private_dns,
        proxy: described.proxy,
        transport: described.transport,
    }
}

fn route_event(req: &RouteRequest<'_>, d: &RouteDecision, now: u64, downgrade: bool) -> TraceEvent {
    let host_of = |url: &str| crate::line::SplitUrl::parse(url).map(|u| host_group(u.host));
    TraceEvent::new(
        now,
        TraceBody::Route(RouteTrace {
            biz: d.biz.as_deref().map(str::to_string),
            protocol: d.protocol,
            line: d.line.as_deref().map(str::to_string),
            logical_host: host_of(req.url),
            final_host: match &d.target {
                Some(t) => Some(host_group(&t.host)),
                None => host_of(req.url),
            },
            reason: d.reason,
            downgrade,
            method: Some(req.method.to_string()),
            attempt: Some(req.exclude.len() as u32),
            exclude: (!req.exclude.is_empty())
                .then(|| req.exclude.iter().map(|l| l.to_string()).collect()),
            mode: Some(d.mode),
            would: d.would.as_ref().map(|w| WouldTrace {
                line: w.line.as_deref().map(str::to_string),
                reason: w.reason,
                healthy: w.healthy,
            }),
        }),
    )
}

fn report_event(r: &Report<'_>, biz: &str, line: &str, now: u64) -> TraceEvent {
    TraceEvent::new(
        now,
        TraceBody::Report(AttemptTrace {
            on: TraceLine::new(biz, r.protocol, line),
            outcome: r.outcome,
            status: r.status,
            timings: r.timings,
            total_ms: Some(r.cost_ms),
        }),
    )
}
