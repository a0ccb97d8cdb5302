//! The `LineKit` facade: owns the configuration, the line pools of every business line,
//! the trace sink and the clock, and answers the per-request questions (`route`, `report`)
//! plus the control-plane ones (`update_config`, `set_downgrade`, `state`).
//!
//! Concurrency: the routing [`Topology`] (built from one config) sits behind an
//! `ArcSwap`, so `route` and `report` take no global lock — only the short lock of the
//! one pool they touch. A config update builds a new topology off to the side (carrying
//! line statistics over by id) and publishes it atomically; config updates themselves are
//! serialised by a separate mutex so two updates cannot both "win".
//!
//! Background work (detect probes, revive checks) runs on the engine's [`Runtime`] and
//! reaches the network only through the [`Transport`]; with no transport the engine never
//! probes. Probe results feed the same statistics and breakers as real traffic. Every
//! request the engine starts has its own deadline timer, so a transport that never
//! answers cannot keep a business line "in flight" forever. [`LineKit::close`] stops the
//! runtime, drops in-flight requests and returns once no engine callback is running; no
//! trace event is emitted after it returns.
//!
//! HTTPDNS: the engine owns a [`DnsCache`] (settings from `httpdns`, network from
//! [`LineKit::on_network_changed`]); [`LineKit::lookup`] reads it without blocking and
//! queues refreshes, which the runtime performs through the transport (module `httpdns`).

use crate::clock::Clock;
use crate::config::source::{ConfigSource, LastGoodStore};
use crate::config::Config;
use crate::detect::{DetectScheduler, Trigger};
use crate::dns::refresh::{BackoffPolicy, Refresher};
use crate::dns::{ConnectError, DnsCache, DnsSettings, Lookup};
use crate::line::headers;
use crate::line::pool::PoolSnapshot;
use crate::line::{Outcome, Protocol, Timings, WsEvent};
use crate::net::{NetworkMonitor, NetworkState};
use crate::runtime::{Runtime, Task};
use crate::trace::redact::host_group;
use crate::trace::{Reason, Sampler, TraceEvent, TraceKind, TraceSink};
use crate::transport::Transport;
use crate::{Error, Result};
use arc_swap::ArcSwap;
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub use crate::line::router::{RouteDecision, RouteRequest, Topology};
pub use builder::{BuildError, LineKitBuilder};
pub use httpdns::DnsRecordState;

mod builder;
mod detect;
mod diagnose;
mod httpdns;
mod requests;
use requests::InFlight;

mod persist;
pub use persist::FLUSH_DELAY_MS;
mod trace_order;

mod remote_config;
pub use remote_config::FIRST_RETRY_MS;

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

struct State {
    topology: Topology,
    sampler: Sampler,
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

struct Inner {
    state: ArcSwap<State>,
    update_lock: Mutex<()>,
    manual_downgrade: AtomicBool,
    clock: Arc<dyn Clock>,
    sink: Arc<dyn TraceSink>,
    seed: u64,
    last_good: Option<LastGoodStore>,
    source: ConfigSource,
    runtime: Runtime,
    transport: Option<Arc<dyn Transport>>,
    detect: Mutex<DetectScheduler>,
    network: Mutex<NetworkMonitor>,
    dns: DnsCache,
    refresh: Mutex<Refresher>,
    inflight: Mutex<HashMap<u64, InFlight>>,
    next_request_id: AtomicU64,
    /// `true` while open. Callbacks from transports hold the read side while they work;
    /// `close` takes the write side, so once it returns no callback is running.
    open: RwLock<bool>,
    /// The state file, when a storage directory is set.
    persist: Option<persist::Persistence>,
    /// The remote config channel: source, fetch rounds, expiry.
    remote: Mutex<remote_config::RemoteState>,
    /// Record every window (ignore `trace.sample_rate`).
    trace_all: bool,
    /// Stamps events with their position and keeps `at_ms` non-decreasing in the order
    /// the sink receives them.
    trace_order: Mutex<trace_order::TraceOrder>,
}

/// The engine. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct LineKit {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LineKit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineKit")
            .field("version", &self.config().version)
            .field("source", &self.inner.source)
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
    storage_dir: Option<PathBuf>,
    transport: Option<Arc<dyn Transport>>,
    mode: RuntimeMode,
    /// Config sources skipped at start-up, with why.
    skipped: Vec<(ConfigSource, String)>,
    trace_all: bool,
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
            storage_dir: None,
            transport: None,
            mode: RuntimeMode::Manual,
            skipped: Vec::new(),
            trace_all: false,
        })
    }

    fn assemble(p: Parts) -> Result<Self> {
        let state = Self::make_state(Arc::new(p.config), p.seed, None).or_else(|e| {
            log::warn!("linekit: config could not be built into pools ({e}); routing nothing");
            Self::make_state(Arc::new(Config::default()), p.seed, None)
        })?;
        let now = p.clock.now_ms();
        let runtime = match p.mode {
            RuntimeMode::Manual => Runtime::manual(p.clock.clone()),
            RuntimeMode::Threaded => Runtime::threaded(p.clock.clone()).map_err(|e| {
                Error::InvalidArgument(format!("cannot start the runtime thread: {e}"))
            })?,
        };
        let detect = DetectScheduler::new(&state.topology.config.thresholds, p.seed, now);
        let httpdns_config = &state.topology.config.httpdns;
        let dns = DnsCache::new(dns_settings(httpdns_config), p.seed);
        let mut refresh = Refresher::new(httpdns_config, BackoffPolicy::default());
        refresh.seed_ivs(p.seed);
        let kit = LineKit {
            inner: Arc::new(Inner {
                state: ArcSwap::from_pointee(state),
                update_lock: Mutex::new(()),
                manual_downgrade: AtomicBool::new(false),
                clock: p.clock,
                sink: p.sink,
                seed: p.seed,
                last_good: p.last_good,
                source: p.source,
                runtime,
                transport: p.transport,
                detect: Mutex::new(detect),
                network: Mutex::new(NetworkMonitor::new()),
                dns,
                refresh: Mutex::new(refresh),
                inflight: Mutex::new(HashMap::new()),
                next_request_id: AtomicU64::new(1),
                open: RwLock::new(true),
                persist: p.storage_dir.as_deref().map(persist::Persistence::new),
                remote: Mutex::new(remote_config::RemoteState::new(
                    p.source, p.skipped, p.seed, now,
                )),
                trace_all: p.trace_all,
                trace_order: Mutex::new(trace_order::TraceOrder::new(p.seed)),
            }),
        };
        kit.inner.emit_start(now);
        kit.inner.start_remote();
        kit.inner.schedule_load();
        if kit.inner.transport.is_some() {
            kit.inner.trigger_every_biz(Trigger::Startup);
            Inner::schedule_revive(&kit.inner);
            kit.inner.pre_resolve();
        }
        Ok(kit)
    }

    fn make_state(config: Arc<Config>, seed: u64, previous: Option<&Topology>) -> Result<State> {
        let sampler = Sampler::new(config.trace.sample_rate, seed, config.trace.window_ms);
        Ok(State {
            topology: Topology::new(config, seed, previous)?,
            sampler,
        })
    }

    /// A builder.
    pub fn builder() -> LineKitBuilder {
        LineKitBuilder::new()
    }

    /// The config in force.
    pub fn config(&self) -> Arc<Config> {
        self.inner.state.load().topology.config.clone()
    }

    /// Which source the start-up config came from.
    pub fn config_source(&self) -> ConfigSource {
        self.inner.source
    }

    /// The clock the engine runs on.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// Whether the kill switch is on (config flag or [`LineKit::set_downgrade`]).
    pub fn downgrade(&self) -> bool {
        self.inner.manual_downgrade.load(Ordering::Relaxed)
            || self.inner.state.load().topology.config.downgrade
    }

    /// Routes one request.
    pub fn route(&self, req: &RouteRequest<'_>) -> RouteDecision {
        let inner = &self.inner;
        let state = inner.state.load();
        let now = inner.clock.now_ms();
        let decision =
            state
                .topology
                .route(req, now, inner.manual_downgrade.load(Ordering::Relaxed));
        if inner.sampled(&state, now) {
            inner.emit(route_event(req, &decision, now, self.downgrade()));
        }
        decision
    }

    /// Routes a request given as URL, method and all its headers (private `X-Line-*`
    /// headers are read here); returns the decision and the headers to send.
    pub fn route_with_headers<N: AsRef<str>, V: AsRef<str>>(
        &self,
        url: &str,
        method: &str,
        headers: &[(N, V)],
        protocol: Protocol,
        exclude: &[&str],
    ) -> (RouteDecision, Vec<(String, String)>) {
        let private = headers::LineHeaders::parse(headers);
        let req = RouteRequest {
            url,
            method,
            biz: private.biz,
            keep_original: private.keep_original,
            fixed_host: private.fixed_host,
            protocol,
            exclude,
        };
        let decision = self.route(&req);
        let sent = headers
            .iter()
            .filter(|(n, _)| !headers::is_private(n.as_ref()))
            .map(|(n, v)| (n.as_ref().to_string(), v.as_ref().to_string()))
            .collect();
        (decision, sent)
    }

    /// Like [`LineKit::route_with_headers`], with the pool inferred from the request when
    /// `protocol` is `None`: a WebSocket handshake (`Upgrade: websocket`, or a `ws://` /
    /// `wss://` URL) uses the business line's `ws` pool, anything else `http`.
    pub fn route_inferred<N: AsRef<str>, V: AsRef<str>>(
        &self,
        url: &str,
        method: &str,
        headers: &[(N, V)],
        protocol: Option<Protocol>,
        exclude: &[&str],
    ) -> (RouteDecision, Vec<(String, String)>) {
        let protocol =
            protocol.unwrap_or_else(|| crate::line::upgrade::infer_protocol(url, headers));
        self.route_with_headers(url, method, headers, protocol, exclude)
    }

    /// Records the outcome of one attempt. Unknown business lines or lines are ignored
    /// (the report may belong to a config that was just replaced). Slow requests, a line
    /// reaching `failure_threshold` consecutive faults and WebSocket handshake failures
    /// trigger a detect of the business line.
    pub fn report(&self, report: &Report<'_>) {
        let inner = &self.inner;
        let state = inner.state.load();
        let now = inner.clock.now_ms();
        let topo = &state.topology;
        let biz = match (report.biz, report.host) {
            (Some(name), _) => topo.biz_entry(name),
            (None, Some(host)) => topo.biz.iter().find(|b| {
                b.pool(report.protocol)
                    .is_some_and(|p| p.lock().index_of_host(host).is_some())
            }),
            (None, None) => None,
        };
        let Some(biz) = biz else { return };
        let Some(pool) = biz.pool(report.protocol) else {
            return;
        };
        let (line_id, faults, breaker_change, index) = {
            let mut pool = pool.lock();
            let index = match (report.line, report.host) {
                (Some(id), _) => pool.index_of(id),
                (None, Some(host)) => pool.index_of_host(host),
                (None, None) => None,
            };
            let Some(index) = index else { return };
            let before = pool.lines()[index].breaker.state(now);
            pool.record(now, index, report.outcome, report.status, report.cost_ms);
            if let Some(v) = report
                .version
                .and_then(crate::line::version::sanitize_value)
            {
                pool.observe_version(index, v);
            }
            let line = &pool.lines()[index];
            let change = trace_order::breaker_change(before, &line.breaker, now);
            (line.id.clone(), line.consecutive_faults, change, index)
        };
        if !report.outcome.is_ignored() {
            inner.mark_dirty();
        }
        if inner.transport.is_some() && !report.outcome.is_ignored() {
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
                    trigger.is_urgent() && !pool.lock().knows_fast_line_besides(index, now);
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
            .state
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
            .state
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
        let (became_validated, httpdns_usable) = {
            let mut monitor = inner.network.lock();
            let before = monitor.state().clone();
            let bypass_before = monitor.current().1;
            monitor.on_network_changed(network.clone());
            // Published under the monitor lock: HTTPDNS answers check the network key
            // under the same lock before they are inserted.
            let (key, bypass) = monitor.current();
            inner.dns.set_network(key, bypass);
            (
                network.validated && (!before.validated || before.handle != network.handle),
                // Validated now, and HTTPDNS was unusable before (not validated, VPN,
                // strict Private DNS, proxy) or this is another network.
                bypass.is_none() && (bypass_before.is_some() || before.handle != network.handle),
            )
        };
        if httpdns_usable {
            inner.pre_resolve();
        }
        if became_validated && inner.transport.is_some() {
            inner.trigger_every_biz(Trigger::NetworkValidated);
            inner.remote_on_network_validated();
        }
    }

    /// The addresses to use for `host` (a pure snapshot read; see [`DnsCache::lookup`]).
    /// `source: system` means the caller must use the platform resolver. When a refresh
    /// is due (a miss for an HTTPDNS host, or a record past `refresh_at`) it is queued for
    /// the runtime without waiting; concurrent lookups coalesce into one query.
    pub fn lookup(&self, host: &str) -> Lookup {
        let now = self.inner.clock.now_ms();
        let answer = self.inner.dns.lookup(host, now);
        if answer.refresh_due {
            self.inner.request_refresh(host, now);
        }
        self.arm_expiry(answer.memo_until_ms);
        answer
    }

    /// The addresses to use for `host` on network `handle` (a client bound to that
    /// network): the current network's answer, refresh included, when `handle` is the
    /// current one; otherwise that network's own unexpired records, or `system` (see
    /// [`DnsCache::lookup_on`]). Never another network's records.
    pub fn lookup_on(&self, host: &str, handle: u64) -> Lookup {
        let now = self.inner.clock.now_ms();
        let answer = self.inner.dns.lookup_on(host, handle, now);
        if answer.refresh_due {
            self.inner.request_refresh(host, now);
        }
        self.arm_expiry(answer.memo_until_ms);
        answer
    }

    /// Makes the DNS generation move when an answer kept until `at` is due (0: not kept).
    fn arm_expiry(&self, at: u64) {
        if at == 0 || !self.inner.dns.claim_expiry(at) {
            return;
        }
        let task = self.inner.task(move |inner| inner.dns.expire_kept(at));
        let scheduled = self.inner.runtime.schedule_at(at, task);
        if scheduled.is_none() {
            // Closed: nothing will keep answers any more; release the claim.
            self.inner.dns.expire_kept(at);
        }
    }

    /// The HTTPDNS cache's generation: bumped after every change a lookup could see, and
    /// by a runtime timer when the first answer handed out with a
    /// [`Lookup::memo_until_ms`] is due, so a caller may keep a lookup answer for as long
    /// as the generation stays the one it read before asking (see
    /// [`DnsCache::generation`]).
    pub fn dns_generation(&self) -> &Arc<std::sync::atomic::AtomicU32> {
        self.inner.dns.generation()
    }

    /// The engine's monotonic clock in ms (the clock of [`Lookup::memo_until_ms`]).
    pub fn now_ms(&self) -> u64 {
        self.inner.clock.now_ms()
    }

    /// A connect to `ip` for `host` failed on the current network; attributable failures
    /// quarantine the address (never the last one of a record). Returns whether it did.
    pub fn connect_failed(&self, host: &str, ip: IpAddr, error: ConnectError) -> bool {
        let now = self.inner.clock.now_ms();
        let network = self.inner.dns.network().0;
        let quarantined = self.inner.dns.connect_failed(network, host, ip, error, now);
        if quarantined {
            self.inner.mark_dirty();
        }
        quarantined
    }

    /// A connect to `ip` for `host` succeeded on the current network: clears its
    /// quarantine.
    pub fn connect_succeeded(&self, host: &str, ip: IpAddr) {
        let now = self.inner.clock.now_ms();
        let network = self.inner.dns.network().0;
        self.inner.dns.connect_succeeded(network, host, ip, now);
    }

    /// A connect to `ip` for `host` succeeded in `connect_ms`: clears its quarantine and
    /// feeds the per-address connect ranking of later lookups.
    pub fn connect_succeeded_ms(&self, host: &str, ip: IpAddr, connect_ms: u64) {
        let now = self.inner.clock.now_ms();
        let network = self.inner.dns.network().0;
        self.inner
            .dns
            .connect_succeeded_ms(network, host, ip, connect_ms, now);
    }

    /// After [`Self::lookup`] said `system` and the system resolver answered `system`
    /// (empty = it failed): the built-in `httpdns.bootstrap` addresses of `host` when the
    /// system gave nothing the address policy accepts, else `None`.
    pub fn bootstrap_fallback(&self, host: &str, system: &[IpAddr]) -> Option<Arc<[IpAddr]>> {
        self.inner.dns.fallback(host, system)
    }

    /// The current network's HTTPDNS records (host, addresses, provider, TTL, time left),
    /// sorted by host.
    pub fn dns_records(&self) -> Vec<DnsRecordState> {
        self.inner.dns_records()
    }

    /// The last network the platform reported.
    pub fn network(&self) -> NetworkState {
        self.inner.network.lock().state().clone()
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

    /// The `config` object of [`LineKit::state_json`]: `{source, version, expires_at,
    /// expired, status ("ok" | "config_expired"), skipped: [{source, reason}],
    /// fetch: [{url, last_outcome}]}`.
    pub fn config_status(&self) -> serde_json::Value {
        self.inner.config_state_json()
    }

    /// Whether the config in force is past its `expires_at` (it still routes).
    pub fn config_expired(&self) -> bool {
        self.inner.is_config_expired()
    }

    /// Turns the runtime kill switch on or off (the config's `downgrade` flag still applies).
    pub fn set_downgrade(&self, on: bool) {
        self.inner.manual_downgrade.store(on, Ordering::Relaxed);
        self.inner.emit_downgrade(on);
    }

    /// Every pool's ranked lines, keyed `"biz/protocol"`.
    pub fn pools(&self) -> BTreeMap<String, PoolSnapshot> {
        let state = self.inner.state.load();
        let now = self.inner.clock.now_ms();
        let mut out = BTreeMap::new();
        for biz in &state.topology.biz {
            for protocol in [Protocol::Http, Protocol::Ws] {
                if let Some(pool) = biz.pool(protocol) {
                    out.insert(
                        format!("{}/{}", biz.name, protocol),
                        pool.lock().snapshot(now),
                    );
                }
            }
        }
        out
    }

    /// The engine's state as JSON: `{"version":N,"downgrade":b,"source":..,"network":{handle,
    /// validated,vpn,private_dns,proxy,transport,httpdns_bypass},"pools":{..},
    /// "httpdns":{"records":[{host,addresses,provider,ttl_s,refresh_in_ms,expires_in_ms}],
    /// "providers":[{id,backoff_ms}]}}` (no payloads).
    pub fn state_json(&self) -> String {
        serde_json::json!({
            "version": self.config().version,
            "downgrade": self.downgrade(),
            "source": self.inner.source.as_str(),
            "network": network_json(&self.network()),
            "pools": self.pools(),
            "httpdns": {
                "records": self.dns_records(),
                "providers": self.inner.provider_backoff().into_iter()
                    .map(|(id, ms)| serde_json::json!({ "id": id, "backoff_ms": ms }))
                    .collect::<Vec<_>>(),
            },
            "config": self.inner.config_state_json(),
        })
        .to_string()
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
        self.inner.inflight.lock().len()
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
        *self.open.read()
    }

    /// Emits a trace event unless closed; holds the read side of `open` while the sink
    /// runs so that `close` waits for it.
    fn emit(&self, event: TraceEvent) {
        let open = self.open.read();
        if *open {
            self.emit_while_open(event);
        }
    }

    /// Stamps and delivers an event; the caller holds the read side of `open`.
    fn emit_while_open(&self, mut event: TraceEvent) {
        let mut order = self.trace_order.lock();
        order.stamp(&mut event);
        self.sink.emit(&event);
    }

    /// Whether events at `now` are recorded (this install's window is sampled).
    fn sampled(&self, state: &State, now: u64) -> bool {
        self.trace_all || state.sampler.sample(now)
    }

    fn close(&self) {
        {
            let mut open = self.open.write();
            if !*open {
                return;
            }
            *open = false;
        }
        self.runtime.close();
        self.flush_on_close();
        let cancelled: Vec<u64> = self.inflight.lock().drain().map(|(id, _)| id).collect();
        if let Some(transport) = &self.transport {
            for id in cancelled {
                transport.cancel(id);
            }
        }
    }
}

/// The `network` object of [`LineKit::state_json`]: what the platform last reported and
/// why HTTPDNS is bypassed on it (`null` when it is used).
fn network_json(network: &NetworkState) -> serde_json::Value {
    serde_json::json!({
        "handle": network.handle,
        "validated": network.validated,
        "vpn": network.vpn,
        "private_dns": network.private_dns.as_str(),
        "proxy": network.proxy,
        "transport": network.transport,
        "httpdns_bypass": crate::net::HttpDnsBypass::reason(network).map(|b| b.as_str()),
    })
}

/// Cache settings from the `httpdns` section (invalid host patterns are logged, by count).
fn dns_settings(config: &crate::config::model::HttpDnsConfig) -> DnsSettings {
    let (settings, invalid) = DnsSettings::from_config(config);
    if !invalid.is_empty() {
        log::warn!(
            "linekit: {} httpdns host pattern(s) ignored as invalid",
            invalid.len()
        );
    }
    settings
}

fn route_event(req: &RouteRequest<'_>, d: &RouteDecision, now: u64, downgrade: bool) -> TraceEvent {
    let host_of = |url: &str| crate::line::SplitUrl::parse(url).map(|u| host_group(u.host));
    TraceEvent {
        biz: d.biz.as_deref().map(str::to_string),
        protocol: Some(d.protocol.as_str().to_string()),
        line: d.line.as_deref().map(str::to_string),
        logical_host: host_of(req.url),
        final_host: match &d.target {
            Some(t) => Some(host_group(&t.host)),
            None => host_of(req.url),
        },
        reason: Some(d.reason.as_str().to_string()),
        from_cache: d.reason == Reason::Sticky,
        downgrade,
        fixed_host: d.reason == Reason::FixedHost,
        method: Some(req.method.to_string()),
        attempt: Some(req.exclude.len() as u32),
        exclude: (!req.exclude.is_empty())
            .then(|| req.exclude.iter().map(|l| l.to_string()).collect()),
        ..TraceEvent::new(TraceKind::Route, now)
    }
}

fn report_event(r: &Report<'_>, biz: &str, line: &str, now: u64) -> TraceEvent {
    TraceEvent {
        biz: Some(biz.to_string()),
        protocol: Some(r.protocol.as_str().to_string()),
        line: Some(line.to_string()),
        outcome: Some(r.outcome.as_str().to_string()),
        status: r.status,
        timings: r.timings,
        total_ms: Some(r.cost_ms),
        ..TraceEvent::new(TraceKind::Report, now)
    }
}
