//! Where the running config comes from (`docs/architecture.md#config-source-chain`): remote → last good remote
//! (persisted) → sealed asset shipped in the app → one hard-coded line.
//!
//! [`resolve`] tries the levels in that order; the first one that opens and validates wins,
//! and every level that failed is recorded with its error so the engine can log *why* it
//! fell back (the error texts carry no config content or keys). The hard-coded level cannot
//! fail, so routing always has a config. One extra rule keeps "newest version wins": a
//! remote config older than a valid last good one is skipped (a stale CDN copy or a
//! rollback), so a restart never downgrades the config; and a last good config older than
//! a valid sealed asset is skipped, so an app update's newer sealed config wins.
//!
//! [`resolve`] also lists the validation problems of the app's own levels (the remote text
//! as given at build time and the sealed asset once opened), each checked on its own
//! whether or not it would be used: what fails a strict start-up. They come from the same
//! parse that picks the level, so start-up validates each document once.
//!
//! After start-up, [`check_update`] decides whether a newly fetched remote config applies:
//! only a strictly higher `version` does.
//!
//! [`LastGoodStore`] persists the last applied remote config text with a small header
//! (format tag + FNV-1a 64 checksum) written atomically via [`crate::store::atomic_write`];
//! a torn, foreign or bit-flipped file is reported as an error and ignored by the caller.

use super::accept::open_persisted;
use super::model::{BizLine, Config, LineConfig};
use super::seal::open;
use super::validate::{parse_config, validate, MAX_CONFIG_BYTES};
use crate::error::{Error, FieldError, Result};
use crate::store::{atomic_write, decode_checked, encode_checked, read_limited};
use std::path::{Path, PathBuf};

crate::wire_enum! {
    /// One level of the source chain (its wire name is the one logs, traces and the
    /// engine's state use).
    pub enum ConfigSource: "config_source" {
        /// A config fetched from the config server.
        Remote = "remote",
        /// The last remote config that was applied, persisted on disk.
        LastGood = "last_good",
        /// The sealed default config shipped in the app.
        Sealed = "sealed",
        /// The config built in code by the app (always valid).
        HardCoded = "hard_coded",
    }
}

/// The candidates for every level; absent levels are skipped silently.
#[derive(Debug, Clone, Default)]
pub struct ConfigSources {
    /// Remote config text, if one was fetched.
    pub remote: Option<String>,
    /// Last good remote config text, if one was persisted.
    pub last_good: Option<String>,
    /// Sealed asset text and the key that opens it.
    pub sealed: Option<(String, Vec<u8>)>,
    /// The final fallback; used as is (not validated).
    pub hard_coded: Config,
}

/// The outcome of [`resolve`].
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The config to run with.
    pub config: Config,
    /// Which level it came from.
    pub source: ConfigSource,
    /// Levels that were present but unusable, in order, with the reason.
    pub skipped: Vec<(ConfigSource, Error)>,
    /// The validation problems of the app's own levels, whichever level won.
    pub app_errors: AppConfigErrors,
}

/// Every validation problem of the app's own config levels: `remote` as given at build
/// time and the sealed asset once opened, in that order, each with its problems. A sealed
/// asset that does not open (wrong key, tampered) is not listed: it falls back like a
/// missing one, with the reason in [`Resolved::skipped`].
pub type AppConfigErrors = Vec<(ConfigSource, Vec<FieldError>)>;

/// Picks the first usable level; see the module docs. No wall clock: persisted configs
/// are not checked for expiry (see [`resolve_at`]).
pub fn resolve(sources: &ConfigSources) -> Resolved {
    resolve_at(sources, None)
}

/// [`resolve`] at wall-clock second `wall_now_s`: a persisted last good config past its
/// `expires_at` is skipped with the reason `expired`, and one that is not signed while
/// trust is configured (by the app's own config or itself) with `unsigned`.
pub fn resolve_at(sources: &ConfigSources, wall_now_s: Option<u64>) -> Resolved {
    let mut skipped = Vec::new();
    let remote = sources.remote.as_deref().map(parse_config);
    let sealed = sources
        .sealed
        .as_ref()
        .map(|(text, key)| open_sealed(text, key));
    // The app's own config is the root of trust for what was persisted.
    let anchor = [&remote, &sealed]
        .into_iter()
        .find_map(|level| match level {
            Some(Ok(c)) => Some(c.trust.clone()),
            _ => None,
        })
        .flatten();
    let app_errors = [
        (ConfigSource::Remote, &remote),
        (ConfigSource::Sealed, &sealed),
    ]
    .into_iter()
    .filter_map(|(source, level)| match level {
        Some(Err(Error::InvalidConfig(errors))) => Some((source, errors.clone())),
        _ => None,
    })
    .collect();
    let last_good = sources.last_good.as_deref().map(|text| {
        open_persisted(text, anchor.as_ref(), wall_now_s.unwrap_or(0))
            .map_err(|r| Error::ConfigRejected(r.to_string()))
            .and_then(|lg| match &sealed {
                // An app update that ships a newer sealed asset outranks what was persisted.
                Some(Ok(s)) if s.version > lg.version => Err(Error::ConfigRejected(format!(
                    "version {} is older than the sealed asset's version {}",
                    lg.version, s.version
                ))),
                _ => Ok(lg),
            })
    });
    if let Some(remote) = remote {
        let remote = remote.and_then(|c| match &last_good {
            Some(Ok(lg)) if c.version < lg.version => Err(Error::ConfigRejected(format!(
                "version {} is older than the last good version {}",
                c.version, lg.version
            ))),
            _ => Ok(c),
        });
        match remote {
            Ok(config) => return resolved(config, ConfigSource::Remote, skipped, app_errors),
            Err(e) => skipped.push((ConfigSource::Remote, e)),
        }
    }
    match last_good {
        Some(Ok(config)) => return resolved(config, ConfigSource::LastGood, skipped, app_errors),
        Some(Err(e)) => skipped.push((ConfigSource::LastGood, e)),
        None => {}
    }
    match sealed {
        Some(Ok(config)) => return resolved(config, ConfigSource::Sealed, skipped, app_errors),
        Some(Err(e)) => skipped.push((ConfigSource::Sealed, e)),
        None => {}
    }
    resolved(
        sources.hard_coded.clone(),
        ConfigSource::HardCoded,
        skipped,
        app_errors,
    )
}

fn open_sealed(text: &str, key: &[u8]) -> Result<Config> {
    open(text, key).and_then(|bytes| {
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Seal("opened config is not UTF-8".to_string()))?;
        parse_config(&text)
    })
}

fn resolved(
    config: Config,
    source: ConfigSource,
    skipped: Vec<(ConfigSource, Error)>,
    app_errors: AppConfigErrors,
) -> Resolved {
    Resolved {
        config,
        source,
        skipped,
        app_errors,
    }
}

/// Whether `candidate` may replace a running config of version `current`: only a strictly
/// newer version applies.
pub fn check_update(current: u64, candidate: &Config) -> Result<()> {
    if candidate.version <= current {
        return Err(Error::ConfigRejected(format!(
            "version {} is not newer than current {current}",
            candidate.version
        )));
    }
    Ok(())
}

impl Config {
    /// The hard-coded fallback an app can give: one business line `biz` owning
    /// `logical_host`, served by a single http(s) line `line_url` with id `default`.
    /// Validated like any config (so `http://` is refused: cleartext is never implied).
    pub fn single_line(biz: &str, logical_host: &str, line_url: &str) -> Result<Config> {
        let mut config = Config::default();
        config.biz_lines.insert(
            biz.to_string(),
            BizLine {
                match_hosts: vec![logical_host.to_string()],
                http: vec![LineConfig {
                    id: "default".to_string(),
                    url: line_url.to_string(),
                    priority: Some(0),
                    weight: 100,
                }],
                ..BizLine::default()
            },
        );
        validate(&config)?;
        Ok(config)
    }
}

const STORE_TAG: &str = "linekit-last-good";
const STORE_VERSION: u32 = 1;
const STORE_FILE: &str = "config.last_good";

/// Persists the last good remote config text in a storage directory.
#[derive(Debug, Clone)]
pub struct LastGoodStore {
    dir: PathBuf,
}

impl LastGoodStore {
    /// A store keeping its file in `dir` (which must exist).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        LastGoodStore { dir: dir.into() }
    }

    /// The file the config is kept in.
    pub fn path(&self) -> PathBuf {
        self.dir.join(STORE_FILE)
    }

    /// The persisted text: `Ok(None)` if nothing was saved yet; an error if the file is
    /// unreadable, too large, not ours or fails its checksum (the caller logs and ignores it).
    pub fn load(&self) -> Result<Option<String>> {
        let path = self.path();
        let Some(bytes) = read_limited(&path, MAX_CONFIG_BYTES + 128)? else {
            return Ok(None);
        };
        let (_, body) = decode_checked(&path, bytes, STORE_TAG, STORE_VERSION)?;
        Ok(Some(body))
    }

    /// Atomically replaces the persisted text.
    pub fn save(&self, text: &str) -> Result<()> {
        let file = encode_checked(STORE_TAG, STORE_VERSION, text);
        atomic_write(&self.path(), file.as_bytes())
    }

    /// The storage directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
