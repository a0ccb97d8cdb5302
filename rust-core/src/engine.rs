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

    /// Offers a new remote config (JSON text). It applies only if it validates and its
    /// version is newer than the one in force.
    pub fn update_config(&self, json: &str) -> ConfigUpdate {
        let current = self.config.read().version;
        match serde_json::from_str::<Config>(json) {
            Ok(c) if c.version > current => {
                let v = c.version;
                *self.config.write() = Arc::new(c);
                ConfigUpdate {
                    applied: true,
                    version: v,
                    error: None,
                }
            }
            Ok(c) => ConfigUpdate {
                applied: false,
                version: current,
                error: Some(format!(
                    "version {} is not newer than current {current}",
                    c.version
                )),
            },
            Err(e) => ConfigUpdate {
                applied: false,
                version: current,
                error: Some(format!("invalid config: {e}")),
            },
        }
    }

    /// Turns the kill switch on or off.
    pub fn set_downgrade(&self, on: bool) {
        let mut c = (**self.config.read()).clone();
        c.downgrade = on;
        *self.config.write() = Arc::new(c);
    }

    /// The engine's state as a JSON document: `{"version":N,"downgrade":b,"pools":{...}}`.
    pub fn state_json(&self) -> String {
        let c = self.config.read();
        serde_json::json!({ "version": c.version, "downgrade": c.downgrade, "pools": {} })
            .to_string()
    }
}

/// Builds a [`LineKit`] from the app's config sources.
#[derive(Default)]
pub struct LineKitBuilder {
    config_json: Option<String>,
    sealed: Option<(String, Vec<u8>)>,
    storage_dir: Option<std::path::PathBuf>,
    clock: Option<Arc<dyn Clock>>,
    sink: Option<Arc<dyn TraceSink>>,
    seed: Option<u64>,
}

impl LineKitBuilder {
    /// Starts an empty builder.
    pub fn new() -> Self {
        Self::default()
    }
    /// Plain JSON config (the shipped default when not sealed).
    pub fn config_json(mut self, json: impl Into<String>) -> Self {
        self.config_json = Some(json.into());
        self
    }
    /// Sealed config asset text (base64, AES-256-GCM) and its 32-byte key.
    pub fn sealed_config(mut self, sealed: impl Into<String>, key: impl Into<Vec<u8>>) -> Self {
        self.sealed = Some((sealed.into(), key.into()));
        self
    }
    /// Directory for persisted state (last good remote config, stats, HTTPDNS records).
    pub fn storage_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
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
    /// Seed for jitter and the per-install gray bucket (random per install by default).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Builds the engine. Fails only when no config source was given at all.
    pub fn build(self) -> crate::Result<LineKit> {
        let _ = (&self.sealed, &self.storage_dir, self.seed);
        let text = self
            .config_json
            .ok_or_else(|| crate::Error::InvalidArgument("no config source given".to_string()))?;
        let config: Config = serde_json::from_str(&text)
            .map_err(|e| crate::Error::InvalidArgument(format!("config: {e}")))?;
        Ok(LineKit::new(
            config,
            self.clock
                .unwrap_or_else(|| Arc::new(crate::clock::SystemClock::new())),
            self.sink
                .unwrap_or_else(|| Arc::new(crate::trace::event::NoopSink)),
        ))
    }
}
