//! Structured trace events and the sink they go to.

use crate::line::Timings;
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

/// The network of a [`TraceKind::Network`] event (no addresses or names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct TraceNetwork {
    /// Platform network handle.
    pub handle: u64,
    /// Whether the network is validated.
    pub validated: bool,
    /// VPN.
    pub vpn: bool,
    /// Private DNS mode: `off`, `opportunistic` or `strict`.
    pub private_dns: &'static str,
    /// HTTP proxy set.
    pub proxy: bool,
    /// Transport type (`wifi`, `cellular`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
}

/// One structured event. Hosts appear only as redacted groups (see
/// [`super::redact::host_group`]); URLs, paths, queries and tokens never appear.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TraceEvent {
    /// Event kind.
    pub kind: Option<TraceKind>,
    /// Monotonic time of the event.
    pub at_ms: u64,
    /// Business line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub biz: Option<String>,
    /// Protocol of the pool (`http`/`ws`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<&'static str>,
    /// Line id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Redacted group of the logical (original) host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_host: Option<String>,
    /// Redacted group of the final host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_host: Option<String>,
    /// Reason code of a routing decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Whether the decision came from the sticky (cached) choice.
    pub from_cache: bool,
    /// Whether the kill switch was on.
    pub downgrade: bool,
    /// Whether a fixed host pinned the request.
    pub fixed_host: bool,
    /// Outcome of a report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'static str>,
    /// HTTP status of a report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Phase times of a report or probe: `dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`.
    #[serde(flatten)]
    pub timings: Timings,
    /// Total time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<u64>,
    /// Free-form detail without sensitive data (e.g. a breaker transition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The recording install (its seed, 16 hex digits); stamped by the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
    /// Position of the event in the install's trace, from 0; stamped by the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// HTTP method of a routed request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Attempt of a routed request within its call (0 first, then one per retry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Line ids a retry excluded (the lines its call already tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<String>>,
    /// New state of a breaker event: `closed`, `open` or `half_open`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker: Option<&'static str>,
    /// How long a breaker that just opened stays open before it lets a trial through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown_ms: Option<u64>,
    /// The network of a network event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<TraceNetwork>,
    /// Config version in force after a start or config event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_version: Option<u64>,
}

impl TraceEvent {
    /// The event as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
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
