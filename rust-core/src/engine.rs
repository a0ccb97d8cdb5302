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

use crate::clock::{Clock, SystemClock};
use crate::config::source::{check_update, resolve, ConfigSource, ConfigSources, LastGoodStore};
use crate::config::validate::parse_config;
use crate::config::Config;
use crate::detect::{DetectScheduler, Plan, Trigger};
use crate::dns::refresh::{BackoffPolicy, Refresher};
use crate::dns::{ConnectError, DnsCache, DnsSettings, Lookup};
use crate::line::headers;
use crate::line::pool::PoolSnapshot;
use crate::line::{Outcome, Protocol, WsEvent};
use crate::net::{NetworkMonitor, NetworkState};
use crate::runtime::{Runtime, TimerId};
use crate::trace::event::NoopSink;
use crate::trace::redact::host_group;
use crate::trace::{Reason, Sampler, TraceEvent, TraceKind, TraceSink};
use crate::transport::{Completion, RequestKind, Transport, TransportRequest, TransportResult};
use crate::{Error, Result};
use arc_swap::ArcSwap;
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

pub use crate::line::router::{RouteDecision, RouteRequest, Topology};
pub use httpdns::DnsRecordState;

mod httpdns;

mod persist;
pub use persist::FLUSH_DELAY_MS;

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
    /// DNS time.
    pub dns_ms: Option<u64>,
    /// Connect time.
    pub connect_ms: Option<u64>,
    /// TLS time.
    pub tls_ms: Option<u64>,
    /// Time to first byte.
    pub ttfb_ms: Option<u64>,
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
            dns_ms: None,
            connect_ms: None,
            tls_ms: None,
            ttfb_ms: None,
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

/// A request the engine started and is waiting for.
#[derive(Debug)]
enum Pending {
    /// A detect probe of one line.
    Probe {
        biz: Arc<str>,
        protocol: Protocol,
        line: Arc<str>,
        started_at: u64,
    },
    /// An HTTPDNS query for some hosts on one network.
    HttpDns(httpdns::DnsQuery),
}

#[derive(Debug)]
struct InFlight {
    pending: Pending,
    deadline: Option<TimerId>,
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
        let refresh = Refresher::new(httpdns_config, BackoffPolicy::default());
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
            }),
        };
        kit.inner.schedule_load();
        if kit.inner.transport.is_some() {
            let biz: Vec<Arc<str>> = kit
                .inner
                .state
                .load()
                .topology
                .biz
                .iter()
                .map(|b| b.name.clone())
                .collect();
            for b in &biz {
                kit.inner.trigger(b, Trigger::Startup);
            }
            Inner::schedule_revive(&kit.inner);
            kit.inner.pre_resolve();
        }
        Ok(kit)
    }

    fn make_state(config: Arc<Config>, seed: u64, previous: Option<&Topology>) -> Result<State> {
        let sampler = Sampler::new(config.trace.sample_rate);
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
        if state.sampler.sample() {
            inner.emit(&route_event(req, &decision, now, self.downgrade()));
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
        let (line_id, faults) = {
            let mut pool = pool.lock();
            let index = match (report.line, report.host) {
                (Some(id), _) => pool.index_of(id),
                (None, Some(host)) => pool.index_of_host(host),
                (None, None) => None,
            };
            let Some(index) = index else { return };
            pool.record(now, index, report.outcome, report.status, report.cost_ms);
            let line = &pool.lines()[index];
            (line.id.clone(), line.consecutive_faults)
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
                inner.trigger(&biz.name, trigger);
            }
        }
        if state.sampler.sample() {
            inner.emit(&report_event(report, &biz.name, &line_id, now));
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
            let biz: Vec<Arc<str>> = inner
                .state
                .load()
                .topology
                .biz
                .iter()
                .map(|b| b.name.clone())
                .collect();
            for b in &biz {
                inner.trigger(b, Trigger::NetworkValidated);
            }
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
        answer
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

    /// The current network's HTTPDNS records (host, addresses, provider, TTL, time left),
    /// sorted by host.
    pub fn dns_records(&self) -> Vec<DnsRecordState> {
        self.inner.dns_records()
    }

    /// The last network the platform reported.
    pub fn network(&self) -> NetworkState {
        self.inner.network.lock().state().clone()
    }

    /// Offers a new remote config (JSON text). It applies only if it validates and its
    /// version is newer than the one in force; an applied config is persisted as the
    /// last good remote config.
    pub fn update_config(&self, json: &str) -> ConfigUpdate {
        let inner = &self.inner;
        let _serial = inner.update_lock.lock();
        let current = inner.state.load();
        let version = current.topology.config.version;
        let result = parse_config(json)
            .and_then(|c| check_update(version, &c).map(|()| c))
            .and_then(|c| Self::make_state(Arc::new(c), inner.seed, Some(&current.topology)));
        let update = match result {
            Ok(state) => {
                let v = state.topology.config.version;
                inner
                    .detect
                    .lock()
                    .set_thresholds(&state.topology.config.thresholds, inner.clock.now_ms());
                let httpdns_config = &state.topology.config.httpdns;
                inner.dns.set_settings(dns_settings(httpdns_config));
                inner.refresh.lock().set_providers(httpdns_config);
                inner.state.store(Arc::new(state));
                if let Some(store) = &inner.last_good {
                    if let Err(e) = store.save(json) {
                        log::warn!("linekit: could not persist the applied config: {e}");
                    }
                }
                ConfigUpdate {
                    applied: true,
                    version: v,
                    error: None,
                }
            }
            Err(e) => ConfigUpdate {
                applied: false,
                version,
                error: Some(e.to_string()),
            },
        };
        {
            let event = TraceEvent {
                kind: Some(TraceKind::Config),
                at_ms: inner.clock.now_ms(),
                detail: Some(match &update.error {
                    None => format!("applied version {}", update.version),
                    Some(e) => format!("rejected: {e}"),
                }),
                ..TraceEvent::default()
            };
            inner.emit(&event);
        }
        update
    }

    /// Turns the runtime kill switch on or off (the config's `downgrade` flag still applies).
    pub fn set_downgrade(&self, on: bool) {
        self.inner.manual_downgrade.store(on, Ordering::Relaxed);
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
    fn drop(&mut self) {
        self.inner.close();
    }
}

impl Inner {
    fn is_open(&self) -> bool {
        *self.open.read()
    }

    /// Emits a trace event unless closed; holds the read side of `open` while the sink
    /// runs so that `close` waits for it.
    fn emit(&self, event: &TraceEvent) {
        let open = self.open.read();
        if *open {
            self.sink.emit(event);
        }
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

    /// Feeds a trigger to the detect scheduler; schedules the detect when it says so.
    fn trigger(self: &Arc<Self>, biz: &Arc<str>, trigger: Trigger) -> bool {
        if self.transport.is_none() || !self.is_open() {
            return false;
        }
        let now = self.clock.now_ms();
        let plan = self.detect.lock().request(biz, trigger, now);
        match plan {
            Plan::StartAt { at, token } => {
                let weak = Arc::downgrade(self);
                let name = biz.clone();
                let scheduled = self.runtime.schedule_at(
                    at,
                    Box::new(move || {
                        if let Some(inner) = weak.upgrade() {
                            inner.run_detect(&name, token, trigger);
                        }
                    }),
                );
                if scheduled.is_none() {
                    self.detect.lock().abandon(biz);
                }
                scheduled.is_some()
            }
            Plan::InFlight | Plan::CoolingDown { .. } => false,
        }
    }

    /// Probes the lines of `biz` that admit a probe (closed, or half-open as their single
    /// trial), as many as the budget grants, the sticky line first.
    fn run_detect(self: &Arc<Self>, biz: &Arc<str>, token: u64, trigger: Trigger) {
        let now = self.clock.now_ms();
        let state = self.state.load();
        let Some(entry) = state.topology.biz_entry(biz) else {
            self.detect.lock().abandon(biz);
            return;
        };
        let mut candidates: Vec<(Protocol, usize)> = Vec::new();
        for protocol in [Protocol::Http, Protocol::Ws] {
            if let Some(pool) = entry.pool(protocol) {
                let pool = pool.lock();
                let current = pool.current();
                let mut order: Vec<usize> = (0..pool.lines().len())
                    .filter(|&i| !pool.lines()[i].breaker.is_open(now))
                    .collect();
                order.sort_by_key(|&i| (i != current, i));
                candidates.extend(order.into_iter().map(|i| (protocol, i)));
            }
        }
        let Some(granted) = self
            .detect
            .lock()
            .begin(biz, token, candidates.len() as u32, now)
        else {
            return; // rescheduled earlier, or abandoned
        };
        let granted = granted as usize;
        if granted < candidates.len() {
            log::info!(
                "linekit: detect of {biz} ({trigger}) limited by the probe budget: {granted} of {}",
                candidates.len()
            );
        }
        let config = &state.topology.config;
        let biz_config = config.biz_lines.get(&**biz);
        let (path, method) = biz_config
            .map(|b| (b.detect_path.as_str(), b.detect_method.as_str()))
            .unwrap_or(("/line/ping", "HEAD"));
        let mut unused = 0;
        for &(protocol, index) in candidates.iter().take(granted) {
            let Some(pool) = entry.pool(protocol) else {
                continue;
            };
            let (line, url) = {
                let mut pool = pool.lock();
                if pool.try_admit(now, index) == crate::line::Admission::Rejected {
                    unused += 1;
                    continue;
                }
                let line = &pool.lines()[index];
                (line.id.clone(), probe_url(&line.endpoint, path))
            };
            self.start_request(
                RequestKind::Probe,
                method,
                url,
                Vec::new(),
                config.thresholds.timeout_ms,
                Pending::Probe {
                    biz: biz.clone(),
                    protocol,
                    line,
                    started_at: now,
                },
            );
        }
        if unused > 0 {
            self.detect.lock().unused(biz, unused);
        }
    }

    /// Starts one request through the transport with its own deadline timer.
    fn start_request(
        self: &Arc<Self>,
        kind: RequestKind,
        method: &str,
        url: String,
        headers: Vec<(String, String)>,
        timeout_ms: u64,
        pending: Pending,
    ) {
        let Some(transport) = self.transport.clone() else {
            return;
        };
        let id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let weak = Arc::downgrade(self);
        let deadline = self.runtime.schedule_in(
            timeout_ms,
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    if let Some(t) = &inner.transport {
                        t.cancel(id);
                    }
                    inner.finish(
                        id,
                        TransportResult::Failed(crate::transport::TransportError::Timeout),
                    );
                }
            }),
        );
        self.inflight
            .lock()
            .insert(id, InFlight { pending, deadline });
        let weak: Weak<Inner> = Arc::downgrade(self);
        transport.start(
            TransportRequest {
                id,
                kind,
                method: method.to_string(),
                url,
                headers,
                timeout_ms,
            },
            Completion::new(move |result| {
                if let Some(inner) = weak.upgrade() {
                    inner.finish(id, result);
                }
            }),
        );
    }

    /// A request finished (answer, error or deadline): applies its result once.
    fn finish(self: &Arc<Self>, id: u64, result: TransportResult) {
        let open = self.open.read();
        if !*open {
            return;
        }
        let Some(flight) = self.inflight.lock().remove(&id) else {
            return;
        };
        if let Some(timer) = flight.deadline {
            self.runtime.cancel(timer);
        }
        let now = self.clock.now_ms();
        match flight.pending {
            Pending::Probe {
                biz,
                protocol,
                line,
                started_at,
            } => {
                let (outcome, status) = match &result {
                    TransportResult::Response { status, .. } => {
                        (Outcome::from_status(*status), Some(*status))
                    }
                    // A probe that gets no answer in time says the line is unreachable,
                    // not merely slow to stream a body: count it as a connect timeout.
                    TransportResult::Failed(crate::transport::TransportError::Timeout) => {
                        (Outcome::ConnectTimeout, None)
                    }
                    TransportResult::Failed(e) => (e.outcome(), None),
                };
                let cost = now.saturating_sub(started_at);
                let state = self.state.load();
                if let Some(pool) = state
                    .topology
                    .biz_entry(&biz)
                    .and_then(|b| b.pool(protocol))
                {
                    let mut pool = pool.lock();
                    if let Some(index) = pool.index_of(&line) {
                        pool.record(now, index, outcome, status, cost);
                    }
                    drop(pool);
                    self.mark_dirty();
                }
                self.detect.lock().probe_finished(&biz);
                if state.sampler.sample() {
                    self.sink.emit(&TraceEvent {
                        kind: Some(TraceKind::Probe),
                        at_ms: now,
                        biz: Some(biz.to_string()),
                        protocol: Some(protocol.as_str()),
                        line: Some(line.to_string()),
                        outcome: Some(outcome.as_str()),
                        status,
                        total_ms: Some(cost),
                        ..TraceEvent::default()
                    });
                }
            }
            Pending::HttpDns(query) => self.finish_httpdns(query, result),
        }
    }

    /// Every `revive_interval_ms`, business lines with an open or half-open line get a
    /// detect (subject to the usual rules), so a recovered line can come back.
    fn schedule_revive(self: &Arc<Self>) {
        let interval = self
            .state
            .load()
            .topology
            .config
            .thresholds
            .revive_interval_ms;
        let weak = Arc::downgrade(self);
        self.runtime.schedule_in(
            interval,
            Box::new(move || {
                let Some(inner) = weak.upgrade() else { return };
                let now = inner.clock.now_ms();
                let state = inner.state.load();
                let needing: Vec<Arc<str>> = state
                    .topology
                    .biz
                    .iter()
                    .filter(|b| {
                        [Protocol::Http, Protocol::Ws].iter().any(|p| {
                            b.pool(*p).is_some_and(|pool| {
                                pool.lock().lines().iter().any(|l| {
                                    l.breaker.state(now) != crate::line::BreakerState::Closed
                                })
                            })
                        })
                    })
                    .map(|b| b.name.clone())
                    .collect();
                for b in &needing {
                    inner.trigger(b, Trigger::Revive);
                }
                Inner::schedule_revive(&inner);
            }),
        );
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

/// The probe URL of a line: its own origin (never routed), HTTP family, plus the path.
fn probe_url(endpoint: &crate::line::Endpoint, path: &str) -> String {
    let scheme = if endpoint.scheme.is_cleartext() {
        "http"
    } else {
        "https"
    };
    let origin: &str = &endpoint.origin;
    let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
    format!("{scheme}://{authority}{path}")
}

fn route_event(req: &RouteRequest<'_>, d: &RouteDecision, now: u64, downgrade: bool) -> TraceEvent {
    let host_of = |url: &str| crate::line::SplitUrl::parse(url).map(|u| host_group(u.host));
    TraceEvent {
        kind: Some(TraceKind::Route),
        at_ms: now,
        biz: d.biz.as_deref().map(str::to_string),
        protocol: Some(d.protocol.as_str()),
        line: d.line.as_deref().map(str::to_string),
        logical_host: host_of(req.url),
        final_host: host_of(&d.url),
        reason: Some(d.reason.as_str()),
        from_cache: d.reason == Reason::Sticky,
        downgrade,
        fixed_host: d.reason == Reason::FixedHost,
        ..TraceEvent::default()
    }
}

fn report_event(r: &Report<'_>, biz: &str, line: &str, now: u64) -> TraceEvent {
    TraceEvent {
        kind: Some(TraceKind::Report),
        at_ms: now,
        biz: Some(biz.to_string()),
        protocol: Some(r.protocol.as_str()),
        line: Some(line.to_string()),
        outcome: Some(r.outcome.as_str()),
        status: r.status,
        dns_ms: r.dns_ms,
        connect_ms: r.connect_ms,
        tls_ms: r.tls_ms,
        ttfb_ms: r.ttfb_ms,
        total_ms: Some(r.cost_ms),
        ..TraceEvent::default()
    }
}

/// Builds a [`LineKit`] from the app's config sources (DESIGN 1.4): a remote config if
/// the app has one, the last good remote config persisted in the storage directory, the
/// sealed default shipped with the app, and a hard-coded fallback.
#[derive(Default)]
pub struct LineKitBuilder {
    config_json: Option<String>,
    sealed: Option<(String, Vec<u8>)>,
    hard_coded: Option<Config>,
    storage_dir: Option<PathBuf>,
    clock: Option<Arc<dyn Clock>>,
    sink: Option<Arc<dyn TraceSink>>,
    seed: Option<u64>,
    transport: Option<Arc<dyn Transport>>,
    mode: RuntimeMode,
}

impl LineKitBuilder {
    /// Starts an empty builder.
    pub fn new() -> Self {
        Self::default()
    }
    /// A config fetched from the server at start-up (highest precedence).
    pub fn config_json(mut self, json: impl Into<String>) -> Self {
        self.config_json = Some(json.into());
        self
    }
    /// Sealed default config shipped with the app (base64 AES-256-GCM) and its 32-byte key.
    pub fn sealed_config(mut self, sealed: impl Into<String>, key: impl Into<Vec<u8>>) -> Self {
        self.sealed = Some((sealed.into(), key.into()));
        self
    }
    /// The last-resort config (default: no business lines, every request keeps its URL).
    pub fn hard_coded(mut self, config: Config) -> Self {
        self.hard_coded = Some(config);
        self
    }
    /// Directory for persisted state (last good remote config, line statistics, HTTPDNS
    /// records). Without one nothing is persisted.
    pub fn storage_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.storage_dir = Some(dir.into());
        self
    }
    /// Clock (tests and replay inject a manual one).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// Trace sink.
    pub fn trace_sink(mut self, sink: Arc<dyn TraceSink>) -> Self {
        self.sink = Some(sink);
        self
    }
    /// Seed for jitter and the per-install gray bucket (random per process by default).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The transport for probes and HTTPDNS queries (none: the engine never probes).
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }
    /// How background work runs (threaded by default).
    pub fn runtime_mode(mut self, mode: RuntimeMode) -> Self {
        self.mode = mode;
        self
    }

    /// Builds the engine. It never fails for a bad config source: each bad level is
    /// logged and skipped, down to the hard-coded config.
    pub fn build(self) -> Result<LineKit> {
        // An unusable storage directory costs persistence, never the engine.
        let storage_dir = self
            .storage_dir
            .filter(|dir| match std::fs::create_dir_all(dir) {
                Ok(()) => true,
                Err(e) => {
                    log::warn!("linekit: storage dir unusable, nothing is persisted: {e}");
                    false
                }
            });
        let last_good = storage_dir.as_ref().map(LastGoodStore::new);
        let persisted = last_good.as_ref().and_then(|s| match s.load() {
            Ok(text) => text,
            Err(e) => {
                log::warn!("linekit: ignoring the persisted config: {e}");
                None
            }
        });
        let sources = ConfigSources {
            remote: self.config_json,
            last_good: persisted,
            sealed: self.sealed,
            hard_coded: self.hard_coded.unwrap_or_default(),
        };
        let resolved = resolve(&sources);
        for (source, err) in &resolved.skipped {
            log::warn!("linekit: config source {} skipped: {err}", source.as_str());
        }
        LineKit::assemble(Parts {
            config: resolved.config,
            source: resolved.source,
            clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock::new())),
            sink: self.sink.unwrap_or_else(|| Arc::new(NoopSink)),
            seed: self.seed.unwrap_or_else(|| fastrand::u64(..)),
            last_good,
            storage_dir,
            transport: self.transport,
            mode: self.mode,
        })
    }
}
