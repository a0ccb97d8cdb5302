//! Starting an engine from its config sources in one call.
//!
//! Kotlin starts the engine over the JNI path ([`crate::fast_start`]) so that `build()`
//! never waits for JNA; [`start_engine`] is the same start for Rust callers (tests, the
//! FFI panic harness) with the foreign callbacks given up front. Both go through
//! [`build_engine`]. When the app asked for strict start-up (the Kotlin builder's default),
//! an app config that fails validation is not an error but every problem with its level
//! and field path ([`Startup::InvalidAppConfig`], or the `ConfigProblem` records of the
//! JNI start), which Kotlin throws as `LineKitConfigException`. Those problems come from
//! the validation that picks the config (the core's `LineKitBuilder::try_build`), so each
//! document is parsed and validated once; every other failure stays a [`LineKitError`].

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use crate::sink::{ForeignSink, TraceSink};
use crate::transport::{ForeignTransport, HttpTransport};
use linekit_core::config::AppConfigErrors;
use linekit_core::engine::{BuildError, LineKit, LineKitBuilder};
use linekit_core::trace::TraceSink as CoreSink;
use linekit_core::transport::Transport;
use std::sync::Arc;

/// One problem of the app's own config.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConfigFieldError {
    /// Which level: `remote` (the `configJson` given to the builder) or `sealed`.
    pub source: String,
    /// Field path such as `biz_lines.spot.http[1].url` (`""` for the whole document).
    pub path: String,
    /// What is wrong with it.
    pub error: String,
}

/// What [`start_engine`] gives its caller.
pub enum Startup {
    /// The engine, built and running.
    Started {
        /// The engine.
        kit: Arc<NativeLineKit>,
    },
    /// Strict start-up refused the app's own config: every problem, by level, in
    /// document order.
    InvalidAppConfig {
        /// The problems.
        errors: Vec<ConfigFieldError>,
    },
}

/// The app's config sources and start-up options.
#[derive(Default)]
pub struct StartOptions {
    /// A plain JSON config (or a remote one).
    pub config_json: Option<String>,
    /// The sealed config's base64 text.
    pub sealed_config: Option<String>,
    /// The sealed config's 32-byte key.
    pub sealed_key: Option<Vec<u8>>,
    /// Where the engine persists its state.
    pub storage_dir: Option<String>,
    /// Skip an invalid app config down the source chain instead of refusing to start.
    pub fallback_on_invalid_config: bool,
    /// Send nothing of the engine's own until consent is granted.
    pub require_consent: bool,
}

/// Builds an engine from `options` with the given trace sink and transport (without a
/// transport the engine never probes nor queries HTTPDNS): the engine, or every problem
/// of an app config that strict start-up refused.
pub fn build_engine(
    options: StartOptions,
    trace_sink: Option<Arc<dyn CoreSink>>,
    transport: Option<Arc<dyn Transport>>,
) -> Result<Result<LineKit, Vec<ConfigFieldError>>, LineKitError> {
    init_logging();
    let mut b = LineKitBuilder::new()
        .fallback_on_invalid_config(options.fallback_on_invalid_config)
        .require_consent(options.require_consent);
    if let Some(json) = options.config_json {
        b = b.config_json(json);
    }
    match (options.sealed_config, options.sealed_key) {
        (Some(text), Some(key)) => b = b.sealed_config(text, key),
        (None, None) => {}
        _ => {
            return Err(LineKitError::InvalidArgument(
                "a sealed config needs both the sealed text and its key".to_string(),
            ))
        }
    }
    if let Some(dir) = options.storage_dir {
        b = b.storage_dir(dir);
    }
    if let Some(sink) = trace_sink {
        b = b.trace_sink(sink);
    }
    if let Some(transport) = transport {
        b = b.transport(transport);
    }
    match b.try_build() {
        Ok(engine) => Ok(Ok(engine)),
        Err(BuildError::InvalidAppConfig(levels)) => Ok(Err(field_errors(levels))),
        Err(BuildError::Engine(e)) => Err(e.into()),
    }
}

/// Builds an engine from a plain JSON config and/or a sealed config (base64 text and its
/// 32-byte key), with an optional storage directory, trace sink and transport. With
/// `fallback_on_invalid_config` an invalid app config is skipped down the source chain
/// instead of refusing to start. With `require_consent` the engine sends nothing of its own
/// until [`NativeLineKit::grant_consent`].
#[allow(clippy::too_many_arguments)] // one flat call, named at its call site
pub fn start_engine(
    config_json: Option<String>,
    sealed_config: Option<String>,
    sealed_key: Option<Vec<u8>>,
    storage_dir: Option<String>,
    trace_sink: Option<Box<dyn TraceSink>>,
    transport: Option<Box<dyn HttpTransport>>,
    fallback_on_invalid_config: bool,
    require_consent: bool,
) -> Result<Startup, LineKitError> {
    let options = StartOptions {
        config_json,
        sealed_config,
        sealed_key,
        storage_dir,
        fallback_on_invalid_config,
        require_consent,
    };
    let sink = trace_sink.map(|s| Arc::new(ForeignSink(s)) as Arc<dyn CoreSink>);
    let transport = transport.map(|t| Arc::new(ForeignTransport(t)) as Arc<dyn Transport>);
    Ok(match build_engine(options, sink, transport)? {
        Ok(engine) => Startup::Started {
            kit: Arc::new(NativeLineKit::from_engine(engine)),
        },
        Err(errors) => Startup::InvalidAppConfig { errors },
    })
}

impl Startup {
    /// The engine, or the refusal as [`LineKitError::InvalidConfig`] (for Rust callers).
    pub fn into_kit(self) -> Result<Arc<NativeLineKit>, LineKitError> {
        match self {
            Startup::Started { kit } => Ok(kit),
            Startup::InvalidAppConfig { errors } => Err(LineKitError::InvalidConfig(
                errors
                    .iter()
                    .map(|e| format!("{} {}: {}", e.source, e.path, e.error))
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
        }
    }
}

#[cfg(target_os = "android")]
fn init_logging() {
    android_logger::init_once(
        android_logger::Config::default()
            .with_max_level(log::LevelFilter::Info)
            .with_tag("Linekit"),
    );
}

#[cfg(not(target_os = "android"))]
fn init_logging() {}

fn field_errors(levels: AppConfigErrors) -> Vec<ConfigFieldError> {
    let mut out = Vec::new();
    for (source, errors) in levels {
        out.extend(errors.into_iter().map(|f| ConfigFieldError {
            source: source.as_str().to_string(),
            path: f.path,
            error: f.error,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(startup: Startup) -> Vec<ConfigFieldError> {
        match startup {
            Startup::InvalidAppConfig { errors } => errors,
            Startup::Started { .. } => panic!("expected InvalidAppConfig"),
        }
    }

    #[test]
    fn strict_start_up_returns_every_problem_with_its_level_and_path() {
        let key = [7u8; 32];
        let sealed = linekit_core::config::seal(br#"{"version":2}"#, &key).unwrap();
        let bad = r#"{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"ftp://x"}]}}}"#;
        let start = |json: Option<&str>, sealed: Option<String>, key: Option<Vec<u8>>| {
            start_engine(
                json.map(Into::into),
                sealed,
                key,
                None,
                None,
                None,
                false,
                false,
            )
            .expect("no other failure")
        };
        let errors = errors_of(start(Some(bad), Some(sealed.clone()), Some(key.to_vec())));
        let seen: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (e.source.as_str(), e.path.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("remote", "biz_lines.a.http[0].url"),
                ("sealed", "biz_lines")
            ]
        );
        assert!(errors[1].error.contains("missing required field"));
        // A sealed asset that does not open (a wrong key) falls back instead.
        assert!(matches!(
            start(None, Some(sealed), Some(vec![0; 32])),
            Startup::Started { .. }
        ));
    }

    #[test]
    fn fallback_starts_on_the_next_level_and_other_failures_stay_errors() {
        let started = start_engine(
            Some("{not json".into()),
            None,
            None,
            None,
            None,
            None,
            true,
            false,
        );
        assert!(matches!(started, Ok(Startup::Started { .. })));
        let half = start_engine(
            None,
            Some("abc".into()),
            None,
            None,
            None,
            None,
            false,
            false,
        );
        assert!(matches!(half, Err(LineKitError::InvalidArgument(_))));
    }
}
