//! Structured trace events and the sink they go to. [`TraceEvent`] is the one definition
//! of an event: the engine builds it, sinks receive it, trace files hold its JSON and the
//! what-if replay reads it back.

use crate::line::{Outcome, Timings};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// What a trace event describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// A routing decision.
    Route,
    /// A reported outcome of an attempt.
    Report,
    /// A configuration change (applied or rejected).
    Config,
    /// A line's breaker changed state.
    Breaker,
    /// A detect probe finished.
    Probe,
    /// The platform reported a (new) default network.
    Network,
    /// The runtime kill switch was turned on or off.
    Downgrade,
    /// The engine started (the time origin of a trace).
    Start,
}

/// The network of a network event: no addresses, names or SSIDs.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TraceNetwork {
    /// Platform network handle.
    pub handle: u64,
    /// Whether the network is validated.
    pub validated: bool,
    /// VPN.
    #[serde(default)]
    pub vpn: bool,
    /// Private DNS mode: `off`, `opportunistic` or `strict`.
    #[serde(default = "off")]
    pub private_dns: String,
    /// HTTP proxy set.
    #[serde(default)]
    pub proxy: bool,
    /// Transport type (`wifi`, `cellular`, ...).
    pub transport: Option<String>,
}

fn off() -> String {
    "off".to_string()
}

/// One structured event: what the engine hands its [`TraceSink`] and what one line of a
/// trace file holds (see [`super::format`]), so a recorded event and a replayed one are the
/// same value and the same JSON. The JSON has the fields in declaration order; a `None`
/// field is absent. The engine stamps `install` and `seq` as it delivers the event (an
/// event not delivered yet has an empty `install` and `seq` 0). Hosts appear only as redacted groups (see [`super::redact::host_group`]);
/// URLs, paths, queries and tokens never appear.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(
        title = "Linekit trace event",
        description = "One line of a trace file."
    )
)]
pub struct TraceEvent {
    /// What the event describes.
    pub kind: TraceKind,
    /// Monotonic time of the event (ms; the origin is the recording device's).
    pub at_ms: u64,
    /// Business line.
    pub biz: Option<String>,
    /// Pool of the line: `http` or `ws`.
    pub protocol: Option<String>,
    /// Line id.
    pub line: Option<String>,
    /// Redacted group of the request's logical host (`*.example.com`, `ip`).
    pub logical_host: Option<String>,
    /// Redacted group of the host the request was sent to.
    pub final_host: Option<String>,
    /// Reason code of a routing decision (`sticky`, `ranked`, `guarded`, ...).
    pub reason: Option<String>,
    /// The routing decision reused the pool's current line.
    #[serde(default)]
    pub from_cache: bool,
    /// The kill switch was on (route events); the new kill switch state (downgrade events).
    #[serde(default)]
    pub downgrade: bool,
    /// A fixed host pinned the request.
    #[serde(default)]
    pub fixed_host: bool,
    /// Outcome of a report or probe, a name of the outcome vocabulary (`ok`, `http_5xx`,
    /// `connection_reset`, `truncated`, ...; see `docs/replay.md#outcomes`).
    pub outcome: Option<String>,
    /// HTTP status of a report or probe, when a response arrived.
    pub status: Option<u16>,
    /// Phase times of a report or probe: `dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`.
    #[serde(flatten)]
    pub timings: Timings,
    /// Total time of the attempt or probe (ms).
    pub total_ms: Option<u64>,
    /// Free-form detail without sensitive data (`closed -> open`, `applied version 3`).
    pub detail: Option<String>,
    /// The recording install (its seed, 16 hex digits).
    pub install: String,
    /// Position of the event in the install's trace, from 0, without gaps.
    pub seq: u64,
    /// HTTP method of a routed request.
    pub method: Option<String>,
    /// Attempt of a routed request within its call: 0, then one more per retry.
    pub attempt: Option<u32>,
    /// Line ids a retry excluded (the lines its call already tried).
    pub exclude: Option<Vec<String>>,
    /// Rollout mode a routed request went under: `off`, `observe` or `on`.
    pub mode: Option<String>,
    /// Under `observe`: the line `on` would have chosen (absent when it would have kept
    /// the URL as well).
    pub would_line: Option<String>,
    /// Under `observe`: the reason code `on` would have given.
    pub would_reason: Option<String>,
    /// Under `observe`: whether the line `on` would have chosen was known healthy then
    /// (breaker closed, latest outcome not a line fault, a success in the window).
    pub would_healthy: Option<bool>,
    /// New breaker state of a breaker event: `closed`, `open` or `half_open`.
    pub breaker: Option<String>,
    /// How long a breaker that just opened stays open before a trial (ms).
    pub cooldown_ms: Option<u64>,
    /// The network of a network event.
    pub network: Option<TraceNetwork>,
    /// Config version in force after a start or config event.
    pub config_version: Option<u64>,
}

impl TraceEvent {
    /// An event of `kind` at `at_ms` with no other field set (not stamped yet).
    pub fn new(kind: TraceKind, at_ms: u64) -> Self {
        TraceEvent {
            kind,
            at_ms,
            biz: None,
            protocol: None,
            line: None,
            logical_host: None,
            final_host: None,
            reason: None,
            from_cache: false,
            downgrade: false,
            fixed_host: false,
            outcome: None,
            status: None,
            timings: Timings::default(),
            total_ms: None,
            detail: None,
            install: String::new(),
            seq: 0,
            method: None,
            attempt: None,
            exclude: None,
            mode: None,
            would_line: None,
            would_reason: None,
            would_healthy: None,
            breaker: None,
            cooldown_ms: None,
            network: None,
            config_version: None,
        }
    }

    /// The event as one JSON object (one line of a trace file).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    /// The event's outcome, when it has a known one.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome.as_deref().and_then(|o| o.parse().ok())
    }

    /// Whether this report or probe was a fault of the line itself.
    pub fn is_line_fault(&self) -> bool {
        self.outcome().is_some_and(|o| o.is_line_fault(self.status))
    }
}

/// Where trace events go. Implementations must be cheap and must not block: they are
/// called on the request path (only for sampled events).
pub trait TraceSink: Send + Sync {
    /// Receives one event.
    fn emit(&self, event: &TraceEvent);
}

/// A sink that drops everything.
#[derive(Debug, Default)]
pub struct NoopSink;

impl TraceSink for NoopSink {
    fn emit(&self, _event: &TraceEvent) {}
}

/// A sink that keeps every event in memory, in delivery order: the what-if replay records
/// its engine's run with it.
#[derive(Debug, Default)]
pub struct MemorySink(Mutex<Vec<TraceEvent>>);

impl MemorySink {
    /// The events so far, oldest first.
    pub fn events(&self) -> Vec<TraceEvent> {
        self.0.lock().clone()
    }

    /// The events so far, oldest first, leaving none.
    pub fn take(&self) -> Vec<TraceEvent> {
        std::mem::take(&mut *self.0.lock())
    }
}

impl TraceSink for MemorySink {
    fn emit(&self, event: &TraceEvent) {
        self.0.lock().push(event.clone());
    }
}
