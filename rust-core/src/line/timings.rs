//! The phase times of one attempt or probe, as the platform measured them: one record for
//! the engine's reports, the trace events and records, and the what-if rebuild.

use serde::{Deserialize, Serialize};

/// How long each phase of an attempt took (ms); a phase the platform did not see (a
/// reused connection has no DNS, connect or TLS) is `None`. In traces the fields sit
/// flat on the event (`dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`), absent when `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Timings {
    /// DNS time (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_ms: Option<u64>,
    /// TCP connect time (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<u64>,
    /// TLS handshake time (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ms: Option<u64>,
    /// Time to first byte (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<u64>,
}
