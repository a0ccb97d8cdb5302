//! Structured trace events and the sink they go to. [`TraceEvent`] is the one definition
//! of an event: the engine builds it, sinks receive it, and the what-if replay reads it
//! back. Its [`TraceBody`] is one variant per kind, each with the fields that kind has and
//! no other, typed where a vocabulary exists ([`Reason`], [`Outcome`], [`Protocol`],
//! [`RolloutMode`], [`BreakerState`]), so a consumer matches on the kind and finds what it
//! needs without checking for absent fields.
//!
//! On disk an event is one JSON line of its wire form, [`super::record::TraceRecord`]:
//! [`TraceEvent`] serialises through it and deserialises through its checked conversion,
//! so the JSON is the same whichever side writes it.

use super::record::TraceRecord;
use super::Reason;
use crate::config::RolloutMode;
use crate::line::{BreakerState, Outcome, Protocol, Timings};
use parking_lot::Mutex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use super::record::TraceNetwork;

/// What a trace event describes.
// `Start` by default, so that a record can be built from its common fields with
// `..Default::default()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
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
    /// A warm of a line's connection finished (not counted on the line).
    Warm,
    /// The platform reported a (new) default network.
    Network,
    /// The runtime kill switch was turned on or off.
    Downgrade,
    /// The engine started (the time origin of a trace).
    #[default]
    Start,
}

impl TraceKind {
    /// The kind's name in trace files (`route`, `report`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TraceKind::Route => "route",
            TraceKind::Report => "report",
            TraceKind::Config => "config",
            TraceKind::Breaker => "breaker",
            TraceKind::Probe => "probe",
            TraceKind::Warm => "warm",
            TraceKind::Network => "network",
            TraceKind::Downgrade => "downgrade",
            TraceKind::Start => "start",
        }
    }
}

/// One structured event. The engine stamps `install` and `seq` as it delivers the event
/// (an event not delivered yet has an empty `install` and `seq` 0). Hosts appear only as
/// redacted groups (see [`super::redact::host_group`]); URLs, paths, queries and tokens
/// never appear.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEvent {
    /// Monotonic time of the event (ms; the origin is the recording device's).
    pub at_ms: u64,
    /// The recording install (its seed, 16 hex digits).
    pub install: String,
    /// Position of the event in the install's trace, from 0, without gaps.
    pub seq: u64,
    /// What happened.
    pub body: TraceBody,
}

/// What a trace event says, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceBody {
    /// A routing decision.
    Route(RouteTrace),
    /// A reported outcome of an attempt.
    Report(AttemptTrace),
    /// A detect probe finished.
    Probe(AttemptTrace),
    /// A warm of a line's connection finished: its outcome, status and time, never counted
    /// on the line.
    Warm(AttemptTrace),
    /// A configuration change (applied or rejected), an expiry or a failed fetch.
    Config(ConfigTrace),
    /// A line's breaker changed state.
    Breaker(BreakerTrace),
    /// The platform reported a (new) default network.
    Network(TraceNetwork),
    /// The runtime kill switch was turned on (`true`) or off.
    Downgrade(bool),
    /// The engine started (the time origin of a trace).
    Start {
        /// Config version in force.
        config_version: Option<u64>,
    },
}

/// A routing decision.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteTrace {
    /// Business line (none when no business line owns the host).
    pub biz: Option<String>,
    /// Pool of the line.
    pub protocol: Protocol,
    /// Line id (none when the request was left on its URL).
    pub line: Option<String>,
    /// Redacted group of the request's logical host (`*.example.com`, `ip`).
    pub logical_host: Option<String>,
    /// Redacted group of the host the request was sent to.
    pub final_host: Option<String>,
    /// The rule that decided (`sticky` when the pool's current line was reused,
    /// `fixed_host` when a fixed host pinned the request).
    pub reason: Reason,
    /// The kill switch was on.
    pub downgrade: bool,
    /// HTTP method.
    pub method: Option<String>,
    /// Attempt within its call: 0, then one more per retry.
    pub attempt: Option<u32>,
    /// Line ids a retry excluded (the lines its call already tried).
    pub exclude: Option<Vec<String>>,
    /// Rollout mode the request went under.
    pub mode: Option<RolloutMode>,
    /// Under `observe`: what `on` would have done.
    pub would: Option<WouldTrace>,
}

/// What `on` would have done with a request routed under `observe`.
#[derive(Debug, Clone, PartialEq)]
pub struct WouldTrace {
    /// The line it would have chosen (none when it would have kept the URL as well).
    pub line: Option<String>,
    /// The reason it would have given.
    pub reason: Reason,
    /// Whether that line was known healthy then (breaker closed, latest outcome not a
    /// line fault, a success in the window).
    pub healthy: bool,
}

/// The line of one pool an event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLine {
    /// Business line.
    pub biz: String,
    /// Pool of the line.
    pub protocol: Protocol,
    /// Line id.
    pub line: String,
}

/// The outcome of one attempt (a report) or one probe on a line.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptTrace {
    /// The line tried or probed.
    pub on: TraceLine,
    /// What happened (see `docs/replay.md#outcomes`).
    pub outcome: Outcome,
    /// HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// Phase times.
    pub timings: Timings,
    /// Total time (ms).
    pub total_ms: Option<u64>,
}

impl TraceLine {
    /// Line `line` of the `protocol` pool of business line `biz`.
    pub fn new(biz: &str, protocol: Protocol, line: &str) -> Self {
        TraceLine {
            biz: biz.to_string(),
            protocol,
            line: line.to_string(),
        }
    }
}

impl AttemptTrace {
    /// Whether this was a fault of the line itself.
    pub fn is_line_fault(&self) -> bool {
        self.outcome.is_line_fault(self.status)
    }
}

/// A configuration event.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigTrace {
    /// Reason code of a rejection, an unchanged offer or an expiry (`not_newer`,
    /// `bad_signature`, `config_expired`, ...); none when a config applied.
    pub reason: Option<String>,
    /// What happened, without config content or keys (`applied version 3`).
    pub detail: Option<String>,
    /// Config version in force after the event, when recorded.
    pub config_version: Option<u64>,
}

/// A line's breaker changed state.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerTrace {
    /// The line whose breaker changed.
    pub on: TraceLine,
    /// The new state.
    pub state: BreakerState,
    /// How long a breaker that just opened stays open before a trial (ms).
    pub cooldown_ms: Option<u64>,
    /// The change (`closed -> open`).
    pub detail: Option<String>,
}

impl TraceEvent {
    /// An event at `at_ms` saying `body`, not stamped yet.
    pub fn new(at_ms: u64, body: TraceBody) -> Self {
        TraceEvent {
            at_ms,
            install: String::new(),
            seq: 0,
            body,
        }
    }

    /// The kind of the event.
    pub fn kind(&self) -> TraceKind {
        match self.body {
            TraceBody::Route(_) => TraceKind::Route,
            TraceBody::Report(_) => TraceKind::Report,
            TraceBody::Probe(_) => TraceKind::Probe,
            TraceBody::Warm(_) => TraceKind::Warm,
            TraceBody::Config(_) => TraceKind::Config,
            TraceBody::Breaker(_) => TraceKind::Breaker,
            TraceBody::Network(_) => TraceKind::Network,
            TraceBody::Downgrade(_) => TraceKind::Downgrade,
            TraceBody::Start { .. } => TraceKind::Start,
        }
    }

    /// The event as one JSON object (one line of a trace file).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    /// The business line (empty when none), pool and line the event names a line of: a
    /// routed request's line, a report's or probe's, a breaker's.
    pub fn line_key(&self) -> Option<(&str, Protocol, &str)> {
        match &self.body {
            TraceBody::Route(r) => r
                .line
                .as_deref()
                .map(|line| (r.biz.as_deref().unwrap_or(""), r.protocol, line)),
            TraceBody::Report(AttemptTrace { on, .. })
            | TraceBody::Breaker(BreakerTrace { on, .. }) => {
                Some((on.biz.as_str(), on.protocol, on.line.as_str()))
            }
            TraceBody::Probe(a) => Some((a.on.biz.as_str(), a.on.protocol, a.on.line.as_str())),
            _ => None,
        }
    }

    /// The attempt of a report or probe event.
    pub fn attempt(&self) -> Option<&AttemptTrace> {
        match &self.body {
            TraceBody::Report(a) | TraceBody::Probe(a) => Some(a),
            _ => None,
        }
    }
}

impl Serialize for TraceEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TraceRecord::of(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TraceEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        TraceRecord::deserialize(deserializer)?
            .typed()
            .map_err(serde::de::Error::custom)
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
