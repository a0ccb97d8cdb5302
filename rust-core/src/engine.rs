//! The `LineKit` facade: owns the configuration, the line pools of every business line,
//! the trace sink and the clock, and answers the per-request questions (`route`, `report`)
//! plus the control-plane ones (`update_config`, `set_downgrade`, `state`).
//!
//! Concurrency: the routing [`Topology`] (built from one config) sits behind an
//! `ArcSwap`, so `route` and `report` take no global lock — only the short lock of the
//! one pool they touch. A config update builds a new topology off to the side (carrying
//! line statistics over by id) and publishes it atomically; config updates themselves are
//! serialised by a separate mutex so two updates cannot both "win".

use crate::clock::{Clock, SystemClock};
use crate::config::source::{check_update, resolve, ConfigSource, ConfigSources, LastGoodStore};
use crate::config::validate::parse_config;
use crate::config::Config;
use crate::line::headers;
use crate::line::pool::PoolSnapshot;
use crate::line::{Outcome, Protocol};
use crate::trace::event::NoopSink;
use crate::trace::redact::host_group;
use crate::trace::{Reason, Sampler, TraceEvent, TraceKind, TraceSink};
use crate::{Error, Result};
use arc_swap::ArcSwap;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use crate::line::router::{RouteDecision, RouteRequest, Topology};

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

/// The engine.
pub struct LineKit {
    state: ArcSwap<State>,
    update_lock: Mutex<()>,
    manual_downgrade: AtomicBool,
    clock: Arc<dyn Clock>,
    sink: Arc<dyn TraceSink>,
    seed: u64,
    last_good: Option<LastGoodStore>,
    source: ConfigSource,
}

impl std::fmt::Debug for LineKit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineKit")
            .field("version", &self.config().version)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl LineKit {
    /// An engine over a validated config with an explicit clock, sink and install seed.
    pub fn new(
        config: Config,
        clock: Arc<dyn Clock>,
        sink: Arc<dyn TraceSink>,
        seed: u64,
    ) -> Result<Self> {
        crate::config::validate::validate(&config)?;
        Ok(Self::assemble(
            config,
            ConfigSource::Remote,
            clock,
            sink,
            seed,
            None,
        ))
    }

    fn assemble(
        config: Config,
        source: ConfigSource,
        clock: Arc<dyn Clock>,
        sink: Arc<dyn TraceSink>,
        seed: u64,
        last_good: Option<LastGoodStore>,
    ) -> Self {
        let state = Self::make_state(Arc::new(config), seed, None).unwrap_or_else(|e| {
            log::warn!("linekit: config could not be built into pools ({e}); routing nothing");
            Self::make_state(Arc::new(Config::default()), seed, None)
                .expect("empty config always builds")
        });
        LineKit {
            state: ArcSwap::from_pointee(state),
            update_lock: Mutex::new(()),
            manual_downgrade: AtomicBool::new(false),
            clock,
            sink,
            seed,
            last_good,
            source,
        }
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
        self.state.load().topology.config.clone()
    }

    /// Which source the start-up config came from.
    pub fn config_source(&self) -> ConfigSource {
        self.source
    }

    /// The clock the engine runs on.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// Whether the kill switch is on (config flag or [`LineKit::set_downgrade`]).
    pub fn downgrade(&self) -> bool {
        self.manual_downgrade.load(Ordering::Relaxed) || self.state.load().topology.config.downgrade
    }

    /// Routes one request.
    pub fn route(&self, req: &RouteRequest<'_>) -> RouteDecision {
        let state = self.state.load();
        let now = self.clock.now_ms();
        let decision =
            state
                .topology
                .route(req, now, self.manual_downgrade.load(Ordering::Relaxed));
        if state.sampler.sample() {
            self.sink
                .emit(&route_event(req, &decision, now, self.downgrade()));
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
    /// (the report may belong to a config that was just replaced).
    pub fn report(&self, report: &Report<'_>) {
        let state = self.state.load();
        let now = self.clock.now_ms();
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
        let line_id = {
            let mut pool = pool.lock();
            let index = match (report.line, report.host) {
                (Some(id), _) => pool.index_of(id),
                (None, Some(host)) => pool.index_of_host(host),
                (None, None) => None,
            };
            let Some(index) = index else { return };
            pool.record(now, index, report.outcome, report.status, report.cost_ms);
            pool.lines()[index].id.clone()
        };
        if state.sampler.sample() {
            self.sink
                .emit(&report_event(report, &biz.name, &line_id, now));
        }
    }

    /// Offers a new remote config (JSON text). It applies only if it validates and its
    /// version is newer than the one in force; an applied config is persisted as the
    /// last good remote config.
    pub fn update_config(&self, json: &str) -> ConfigUpdate {
        let _serial = self.update_lock.lock();
        let current = self.state.load();
        let version = current.topology.config.version;
        let result = parse_config(json)
            .and_then(|c| check_update(version, &c).map(|()| c))
            .and_then(|c| Self::make_state(Arc::new(c), self.seed, Some(&current.topology)));
        let update = match result {
            Ok(state) => {
                let v = state.topology.config.version;
                self.state.store(Arc::new(state));
                if let Some(store) = &self.last_good {
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
        let event = TraceEvent {
            kind: Some(TraceKind::Config),
            at_ms: self.clock.now_ms(),
            detail: Some(match &update.error {
                None => format!("applied version {}", update.version),
                Some(e) => format!("rejected: {e}"),
            }),
            ..TraceEvent::default()
        };
        self.sink.emit(&event);
        update
    }

    /// Turns the runtime kill switch on or off (the config's `downgrade` flag still applies).
    pub fn set_downgrade(&self, on: bool) {
        self.manual_downgrade.store(on, Ordering::Relaxed);
    }

    /// Every pool's ranked lines, keyed `"biz/protocol"`.
    pub fn pools(&self) -> BTreeMap<String, PoolSnapshot> {
        let state = self.state.load();
        let now = self.clock.now_ms();
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

    /// The engine's state as JSON: `{"version":N,"downgrade":b,"source":..,"pools":{..}}`.
    pub fn state_json(&self) -> String {
        serde_json::json!({
            "version": self.config().version,
            "downgrade": self.downgrade(),
            "source": self.source.as_str(),
            "pools": self.pools(),
        })
        .to_string()
    }
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
    /// Directory for persisted state (last good remote config).
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

    /// Builds the engine. It never fails for a bad config source: each bad level is
    /// logged and skipped, down to the hard-coded config.
    pub fn build(self) -> Result<LineKit> {
        let last_good = match &self.storage_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::Store(format!("storage dir: {e}")))?;
                Some(LastGoodStore::new(dir))
            }
            None => None,
        };
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
        Ok(LineKit::assemble(
            resolved.config,
            resolved.source,
            self.clock.unwrap_or_else(|| Arc::new(SystemClock::new())),
            self.sink.unwrap_or_else(|| Arc::new(NoopSink)),
            self.seed.unwrap_or_else(|| fastrand::u64(..)),
            last_good,
        ))
    }
}
