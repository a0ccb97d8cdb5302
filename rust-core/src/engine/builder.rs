//! [`LineKitBuilder`]: how an app (or a test, or `linekit replay`) assembles a
//! [`LineKit`] from its config sources, storage directory, clock, trace sink, transport
//! and runtime mode.

use super::{LineKit, Parts, RuntimeMode};
use crate::clock::{Clock, SystemClock};
use crate::config::source::{resolve, ConfigSources, LastGoodStore};
use crate::config::Config;
use crate::trace::event::NoopSink;
use crate::trace::TraceSink;
use crate::transport::Transport;
use crate::Result;
use std::path::PathBuf;
use std::sync::Arc;

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
    trace_all: bool,
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

    /// Records every window, whatever `trace.sample_rate` says (`linekit replay
    /// --trace-out`, what-if replays).
    pub fn trace_all(mut self, on: bool) -> Self {
        self.trace_all = on;
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
            trace_all: self.trace_all,
        })
    }
}
