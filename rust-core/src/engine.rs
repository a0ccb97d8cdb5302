//! The `LineKit` facade: owns the configuration, the line pools of every business line,
//! the trace sink and the clock, and answers the per-request questions (`route`, `report`)
//! plus the control-plane ones (`update_config`, `on_network_changed`, `state`).
//!
//! NOTE: this first cut wires the public API only; the line pools and router arrive with
//! the `line` module and replace the placeholder selection below.

use crate::clock::Clock;
use crate::config::Config;
use crate::line::{Outcome, Protocol};
use crate::trace::{Reason, TraceSink};
use std::sync::Arc;

/// One request to route. Header values come from the app's `X-Line-*` headers.
#[derive(Debug, Clone, Copy)]
pub struct RouteRequest<'a> {
    /// The URL the app built (logical host).
    pub url: &'a str,
    /// HTTP method.
    pub method: &'a str,
    /// `X-Line-Biz`: business line named explicitly.
    pub biz: Option<&'a str>,
    /// `X-Line-Keep-Original-Host: true`.
    pub keep_original: bool,
    /// `X-Line-Fixed-Host` value.
    pub fixed_host: Option<&'a str>,
    /// Pool to use (`ws` for WebSocket upgrades).
    pub protocol: Protocol,
    /// Line ids already tried in this call.
    pub exclude: &'a [&'a str],
}

/// The answer to [`RouteRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct RouteDecision {
    /// Final URL to send (equal to the input when not rewritten).
    pub url: String,
    /// Business line, if one owns the request.
    pub biz: Option<Arc<str>>,
    /// Chosen line id, if the request was put on a line.
    pub line: Option<Arc<str>>,
    /// Why.
    pub reason: Reason,
}

/// The outcome of one attempt, reported after it finished.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// Business line of the attempt.
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

/// The engine.
pub struct LineKit {
    config: parking_lot::RwLock<Arc<Config>>,
    #[allow(dead_code)]
    clock: Arc<dyn Clock>,
    #[allow(dead_code)]
    sink: Arc<dyn TraceSink>,
}

impl LineKit {
    /// An engine over a validated config.
    pub fn new(config: Config, clock: Arc<dyn Clock>, sink: Arc<dyn TraceSink>) -> Self {
        LineKit {
            config: parking_lot::RwLock::new(Arc::new(config)),
            clock,
            sink,
        }
    }

    /// The config in force.
    pub fn config(&self) -> Arc<Config> {
        self.config.read().clone()
    }

    /// Routes one request.
    pub fn route(&self, req: &RouteRequest<'_>) -> RouteDecision {
        RouteDecision {
            url: req.url.to_string(),
            biz: None,
            line: None,
            reason: Reason::Unmanaged,
        }
    }

    /// Records the outcome of one attempt.
    pub fn report(&self, _report: &Report<'_>) {}
}
