//! [`LineKitBuilder`]: how an app (or a test, or `linekit replay`) assembles a
//! [`LineKit`] from its config sources, storage directory, clock, trace sink, transport
//! and runtime mode.

use super::{LineKit, Parts, RuntimeMode};
use crate::clock::{Clock, SystemClock};
use crate::config::source::{resolve_at, AppConfigErrors, ConfigSources, LastGoodStore};
use crate::config::Config;
use crate::error::FieldError;
use crate::trace::event::NoopSink;
use crate::trace::TraceSink;
use crate::transport::Transport;
use crate::{Error, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// The builder's setters: each `name(args) => field = value;` becomes a documented
/// `pub fn name(mut self, args) -> Self` that sets one field and returns the builder.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),+) => $field:ident = $value:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $($arg: $ty),+) -> Self {
                self.$field = $value;
                self
            }
        )*
    };
}

/// Builds a [`LineKit`] from the app's config sources (`docs/architecture.md#config-source-chain`): a remote config if
/// the app has one, the last good remote config persisted in the storage directory, the
/// sealed default shipped with the app, and a hard-coded fallback.
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
    fallback_on_invalid_config: bool,
    trace_all: bool,
    require_consent: bool,
}

impl Default for LineKitBuilder {
    fn default() -> Self {
        LineKitBuilder {
            config_json: None,
            sealed: None,
            hard_coded: None,
            storage_dir: None,
            clock: None,
            sink: None,
            seed: None,
            transport: None,
            mode: RuntimeMode::default(),
            fallback_on_invalid_config: true,
            trace_all: false,
            require_consent: false,
        }
    }
}

impl LineKitBuilder {
    /// Starts an empty builder.
    pub fn new() -> Self {
        Self::default()
    }
    setters! {
        /// A config fetched from the server at start-up (highest precedence).
        config_json(json: impl Into<String>) => config_json = Some(json.into());
        /// Sealed default config shipped with the app (base64 AES-256-GCM) and its 32-byte key.
        sealed_config(sealed: impl Into<String>, key: impl Into<Vec<u8>>)
            => sealed = Some((sealed.into(), key.into()));
        /// The last-resort config (default: no business lines, every request keeps its URL).
        hard_coded(config: Config) => hard_coded = Some(config);
        /// Directory for persisted state (last good remote config, line statistics, HTTPDNS
        /// records). Without one nothing is persisted.
        storage_dir(dir: impl Into<PathBuf>) => storage_dir = Some(dir.into());
        /// Clock (tests and replay inject a manual one).
        clock(clock: Arc<dyn Clock>) => clock = Some(clock);
        /// Trace sink.
        trace_sink(sink: Arc<dyn TraceSink>) => sink = Some(sink);
        /// Seed for jitter and the per-install buckets (rollout, convergence gray rate,
        /// trace sampling). By default the install seed kept in the storage directory
        /// (random on the first start), or a random one per process without a directory.
        seed(seed: u64) => seed = Some(seed);
        /// The transport for probes and HTTPDNS queries (none: the engine never probes).
        transport(transport: Arc<dyn Transport>) => transport = Some(transport);
        /// When the app's own config (`config_json` or the sealed asset) fails validation:
        /// `true` (the default here) skips it down the chain, with the reason in the state's
        /// `config.skipped`; `false` makes [`LineKitBuilder::build`] fail with every problem.
        /// The Kotlin `LineKit.Builder` is strict unless told `fallbackOnInvalidConfig()`.
        fallback_on_invalid_config(fallback: bool) => fallback_on_invalid_config = fallback;
        /// How background work runs (threaded by default).
        runtime_mode(mode: RuntimeMode) => mode = mode;
        /// Records every window, whatever `trace.sample_rate` says (`linekit replay
        /// --trace-out`, what-if replays).
        trace_all(on: bool) => trace_all = on;
        /// `true`: the engine sends nothing of its own (probes, HTTPDNS, config fetches,
        /// diagnosis) until [`LineKit::grant_consent`]; routing works from local data
        /// meanwhile. Off by default.
        require_consent(on: bool) => require_consent = on;
    }

    /// Builds the engine. A bad persisted config is logged and skipped; so is a bad app
    /// config (`config_json`, sealed asset) unless
    /// [`LineKitBuilder::fallback_on_invalid_config`] is `false`: then it fails with
    /// [`crate::Error::InvalidConfig`] listing every problem with its field path (prefixed
    /// with its level when both levels are broken). Skipped levels and why show in the
    /// state's `config.skipped`.
    pub fn build(self) -> Result<LineKit> {
        self.try_build().map_err(|e| match e {
            BuildError::InvalidAppConfig(levels) => app_config_error(levels),
            BuildError::Engine(e) => e,
        })
    }

    /// [`LineKitBuilder::build`] with the app's own config problems kept apart, per level:
    /// what the bindings hand to Kotlin as structured errors. Each document is parsed and
    /// validated once, by the resolution that picks the config.
    pub fn try_build(self) -> std::result::Result<LineKit, BuildError> {
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
        let persisted = last_good.as_ref().and_then(|s| match s.load_persisted() {
            Ok(persisted) => persisted,
            Err(e) => {
                log::warn!("linekit: ignoring the persisted config: {e}");
                None
            }
        });
        let highest_accepted = last_good.as_ref().map_or(0, LastGoodStore::load_floor);
        let (persisted, last_good_chain) = match persisted {
            Some(p) => (Some(p.config), p.chain),
            None => (None, Vec::new()),
        };
        let sources = ConfigSources {
            remote: self.config_json,
            last_good: persisted,
            last_good_chain,
            highest_accepted,
            sealed: self.sealed,
            hard_coded: self.hard_coded.unwrap_or_default(),
        };
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock::new()));
        let resolved = resolve_at(&sources, Some(clock.wall_ms() / 1_000));
        if !self.fallback_on_invalid_config && !resolved.app_errors.is_empty() {
            return Err(BuildError::InvalidAppConfig(resolved.app_errors));
        }
        for (source, err) in &resolved.skipped {
            log::warn!("linekit: config source {} skipped: {err}", source.as_str());
        }
        let skipped = resolved
            .skipped
            .iter()
            .map(|(source, err)| (*source, skip_reason(err)))
            .collect();
        let kit = LineKit::assemble(Parts {
            config: resolved.config,
            source: resolved.source,
            clock,
            sink: self.sink.unwrap_or_else(|| Arc::new(NoopSink)),
            seed: self.seed.unwrap_or_else(|| match &storage_dir {
                Some(dir) => crate::store::install::load_or_create(dir),
                None => fastrand::u64(..),
            }),
            last_good,
            chain: resolved.chain,
            floor: resolved.floor,
            storage_dir,
            transport: self.transport,
            mode: self.mode,
            skipped,
            trace_all: self.trace_all,
            require_consent: self.require_consent,
        });
        kit.map_err(BuildError::Engine)
    }
}

/// Why [`LineKitBuilder::try_build`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// Strict start-up: the app's own config levels are invalid (every problem, by level).
    InvalidAppConfig(AppConfigErrors),
    /// The engine could not be assembled.
    Engine(Error),
}

/// Why a level was skipped, as shown in the state: a rejection's own text (it starts with
/// its reason code, e.g. `expired: ...`), or `invalid: ...` for a config that fails
/// validation.
fn skip_reason(err: &Error) -> String {
    match err {
        Error::ConfigRejected(why) => why.clone(),
        Error::InvalidConfig(errors) => format!(
            "invalid: {}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ),
        other => other.to_string(),
    }
}

/// One error for every problem of the app's own config levels; each field path is
/// prefixed with its level when both levels are broken, so no path is ambiguous.
fn app_config_error(levels: AppConfigErrors) -> Error {
    let several = levels.len() > 1;
    let mut fields = Vec::new();
    for (source, list) in levels {
        let prefix = |path: &str| match (several, path.is_empty()) {
            (false, _) => path.to_string(),
            (true, true) => source.as_str().to_string(),
            (true, false) => format!("{}:{path}", source.as_str()),
        };
        fields.extend(
            list.into_iter()
                .map(|f| FieldError::new(prefix(&f.path), f.error)),
        );
    }
    Error::InvalidConfig(fields)
}
