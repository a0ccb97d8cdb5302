//! Structured trace events and the sink they go to.

use serde::Serialize;

/// What a trace event describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
    /// DNS time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns_ms: Option<u64>,
    /// TCP connect time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<u64>,
    /// TLS handshake time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_ms: Option<u64>,
    /// Time to first byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<u64>,
    /// Total time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<u64>,
    /// Free-form detail without sensitive data (e.g. a breaker transition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
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
