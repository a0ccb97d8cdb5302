//! Where the running config comes from (`docs/architecture.md#config-source-chain`): remote → last good remote
//! (persisted) → sealed asset shipped in the app → one hard-coded line.
//!
//! [`resolve`] tries the levels in that order; the first one that opens and validates wins,
//! and every level that failed is recorded with its error so the engine can log *why* it
//! fell back (the error texts carry no config content or keys). The hard-coded level cannot
//! fail, so routing always has a config. Extra rules keep "newest version wins": a remote
//! config older than a valid last good one is skipped (a stale CDN copy or a rollback), so
//! a restart never downgrades the config; a last good config older than the sealed asset
//! is skipped (an app update ships a newer default, perhaps a new root of trust); and a
//! last good config older than the highest version this install ever accepted (kept in
//! its own file) is skipped as a rollback.
//!
//! The persisted config is opened under the app's own trust: the trust of `configJson` or
//! the sealed asset, carried forward by the chain of rotations persisted with it
//! ([`crate::config::accept::open_persisted`]).
//!
//! [`resolve`] also lists the validation problems of the app's own levels (the remote text
//! as given at build time and the sealed asset once opened), each checked on its own
//! whether or not it would be used: what fails a strict start-up. They come from the same
//! parse that picks the level, so start-up validates each document once.
//!
//! After start-up, [`check_update`] decides whether a newly fetched remote config applies:
//! only a strictly higher `version` does.
//!
//! [`LastGoodStore`] persists the last applied remote config text and its chain of
//! rotations with a small header (format tag + FNV-1a 64 checksum) written atomically via
//! [`crate::store::atomic_write`]; a torn, foreign or bit-flipped file is reported as an
//! error and ignored by the caller. Beside it, in a file of its own, it keeps the highest
//! version ever accepted, so deleting or losing the config file does not reopen rollback.

use super::accept::{open_persisted, MAX_CHAIN, MAX_REMOTE_CONFIG_BYTES};
use super::envelope::Rejection;
use crate::trace::reason::ConfigReason;
use super::model::{BizLine, Config, LineConfig};
use super::seal::open;
use super::validate::{parse_config, validate, MAX_CONFIG_BYTES};
use crate::error::{Error, FieldError, Result};
use crate::store::{atomic_write, decode_checked, encode_checked, read_limited};
use std::path::{Path, PathBuf};

pub use crate::wire::vocabulary::ConfigSource;

/// The candidates for every level; absent levels are skipped silently.
#[derive(Debug, Clone, Default)]
pub struct ConfigSources {
    /// Remote config text, if one was fetched.
    pub remote: Option<String>,
    /// Last good remote config text, if one was persisted.
    pub last_good: Option<String>,
    /// The rotations persisted with it (config texts that changed trust, oldest first).
    pub last_good_chain: Vec<String>,
    /// The highest config version this install accepted (0: none).
    pub highest_accepted: u64,
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
    /// The chain of rotations that leads from the app's own trust to the config's: the
    /// persisted one when the last good config won, else empty.
    pub chain: Vec<String>,
    /// The version no remote config may go below: the highest accepted, or the version
    /// of the last good config if that is higher.
    pub floor: u64,
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
    let sealed_version = match &sealed {
        Some(Ok(c)) => Some(c.version),
        _ => None,
    };
    let last_good = sources.last_good.as_deref().map(|text| {
        let config = open_persisted(
            text,
            &sources.last_good_chain,
            anchor.as_ref(),
            wall_now_s.unwrap_or(0),
        )?;
        let older_than = |what: &str, v: u64| {
            Rejection::new(
                ConfigReason::NotNewer,
                format!("version {} is older than {what} {v}", config.version),
            )
        };
        if config.version < sources.highest_accepted {
            return Err(older_than("the highest accepted version", sources.highest_accepted));
        }
        match sealed_version {
            Some(v) if v > config.version => Err(older_than("the sealed asset's version", v)),
            _ => Ok(config),
        }
    });
    let floor = match &last_good {
        Some(Ok(c)) => c.version.max(sources.highest_accepted),
        _ => sources.highest_accepted,
    };
    let last_good = last_good.map(|r| r.map_err(|r| Error::ConfigRejected(r.to_string())));
    let chain = sources.last_good_chain.clone();
    let resolved = |config, source, skipped| Resolved {
        config,
        source,
        skipped,
        app_errors,
        chain: if source == ConfigSource::LastGood {
            chain
        } else {
            Vec::new()
        },
        floor,
    };
    if let Some(remote) = remote {
        let remote = remote.and_then(|c| match &last_good {
            Some(Ok(lg)) if c.version < lg.version => Err(Error::ConfigRejected(format!(
                "version {} is older than the last good version {}",
                c.version, lg.version
            ))),
            _ => Ok(c),
        });
        match remote {
            Ok(config) => return resolved(config, ConfigSource::Remote, skipped),
            Err(e) => skipped.push((ConfigSource::Remote, e)),
        }
    }
    match last_good {
        Some(Ok(config)) => return resolved(config, ConfigSource::LastGood, skipped),
        Some(Err(e)) => skipped.push((ConfigSource::LastGood, e)),
        None => {}
    }
    match sealed {
        Some(Ok(config)) => return resolved(config, ConfigSource::Sealed, skipped),
        Some(Err(e)) => skipped.push((ConfigSource::Sealed, e)),
        None => {}
    }
    resolved(sources.hard_coded.clone(), ConfigSource::HardCoded, skipped)
}

fn open_sealed(text: &str, key: &[u8]) -> Result<Config> {
    open(text, key).and_then(|bytes| {
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Seal("opened config is not UTF-8".to_string()))?;
        parse_config(&text)
    })
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
/// Format 2: the chain and the config, each as `<byte length>\n<text>`; format 1 (read
/// only) was the config text alone.
const STORE_VERSION: u32 = 2;
pub(crate) const STORE_FILE: &str = "config.last_good";
const FLOOR_TAG: &str = "linekit-config-floor";
const FLOOR_VERSION: u32 = 1;
pub(crate) const FLOOR_FILE: &str = "config.highest_version";

/// What [`LastGoodStore`] keeps: the last accepted config text and the rotations that lead
/// to its trust from the app's own (config texts that changed trust, oldest first, at most
/// [`MAX_CHAIN`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Persisted {
    /// The config text (an envelope under trust).
    pub config: String,
    /// The chain of rotations.
    pub chain: Vec<String>,
}

/// Persists the last good remote config text (and its chain) and the highest version
/// accepted, each in its own file of a storage directory.
#[derive(Debug, Clone)]
pub struct LastGoodStore {
    dir: PathBuf,
}

impl LastGoodStore {
    /// A store keeping its files in `dir` (which must exist).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        LastGoodStore { dir: dir.into() }
    }

    /// The file the config is kept in.
    pub fn path(&self) -> PathBuf {
        self.dir.join(STORE_FILE)
    }

    /// The file the highest accepted version is kept in.
    pub fn floor_path(&self) -> PathBuf {
        self.dir.join(FLOOR_FILE)
    }

    /// The persisted config text (see [`LastGoodStore::load_persisted`]).
    pub fn load(&self) -> Result<Option<String>> {
        Ok(self.load_persisted()?.map(|p| p.config))
    }

    /// The persisted config and chain: `Ok(None)` if nothing was saved yet; an error if
    /// the file is unreadable, too large, not ours, fails its checksum or its framing
    /// (the caller logs and ignores it).
    pub fn load_persisted(&self) -> Result<Option<Persisted>> {
        let path = self.path();
        let limit = MAX_CONFIG_BYTES.max((MAX_CHAIN + 1) * (MAX_REMOTE_CONFIG_BYTES + 24)) + 128;
        let Some(bytes) = read_limited(&path, limit)? else {
            return Ok(None);
        };
        let (version, body) = decode_checked(&path, bytes, STORE_TAG, STORE_VERSION)?;
        if version < 2 {
            return Ok(Some(Persisted {
                config: body,
                chain: Vec::new(),
            }));
        }
        let mut items = unframe(&body).ok_or_else(|| {
            Error::Store(format!("{} is corrupt: bad framing", path.display()))
        })?;
        let config = items
            .pop()
            .ok_or_else(|| Error::Store(format!("{} is corrupt: empty", path.display())))?;
        Ok(Some(Persisted {
            config,
            chain: items,
        }))
    }

    /// Atomically replaces the persisted config text and its chain (only the newest
    /// [`MAX_CHAIN`] links are kept).
    pub fn save(&self, text: &str, chain: &[String]) -> Result<()> {
        let chain = &chain[chain.len().saturating_sub(MAX_CHAIN)..];
        let mut body = String::new();
        for item in chain.iter().map(String::as_str).chain([text]) {
            body.push_str(&format!("{}\n{item}", item.len()));
        }
        let file = encode_checked(STORE_TAG, STORE_VERSION, &body);
        atomic_write(&self.path(), file.as_bytes())
    }

    /// The highest version accepted so far (0 when none was recorded). A missing,
    /// unreadable or corrupt file counts as 0, with a warning for the last two.
    pub fn load_floor(&self) -> u64 {
        let path = self.floor_path();
        let stored = read_limited(&path, 256).and_then(|bytes| {
            bytes
                .map(|b| decode_checked(&path, b, FLOOR_TAG, FLOOR_VERSION))
                .transpose()
        });
        match stored {
            Ok(None) => 0,
            Ok(Some((_, body))) => body.trim().parse().unwrap_or_else(|_| {
                log::warn!("linekit: {} is corrupt; ignoring it", path.display());
                0
            }),
            Err(e) => {
                log::warn!("linekit: ignoring the highest accepted version: {e}");
                0
            }
        }
    }

    /// Atomically records `version` as the highest accepted.
    pub fn save_floor(&self, version: u64) -> Result<()> {
        let file = encode_checked(FLOOR_TAG, FLOOR_VERSION, &version.to_string());
        atomic_write(&self.floor_path(), file.as_bytes())
    }

    /// The storage directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The items of a format-2 body: each `<decimal byte length>\n<that many bytes>`.
fn unframe(mut body: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    while !body.is_empty() {
        let (len, rest) = body.split_once('\n')?;
        if len.is_empty() || len.len() > 9 || !len.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let len: usize = len.parse().ok()?;
        let item = rest.get(..len)?;
        items.push(item.to_string());
        body = &rest[len..];
        if items.len() > MAX_CHAIN + 1 {
            return None;
        }
    }
    Some(items)
}
