//! The engine's state file (`docs/architecture.md#persistence`): line quality and HTTPDNS records that
//! survive a restart.
//!
//! # Format
//! `state.json` in the storage directory: one header line written by
//! [`super::encode_checked`] — `linekit-state v1 fnv1a64:<checksum of the body>` — then
//! a JSON [`StateBody`]. Every time in the body is **wall-clock** (Unix ms): monotonic
//! deadlines mean nothing in another process, so the owners convert on export and rebuild
//! them on import from the wall-clock age, dropping anything whose age is negative (the
//! clock moved back), beyond its TTL / window / breaker period, or implausible
//! ([`crate::line::LinePool::import`], [`crate::dns::DnsCache::import`]). Lists are read
//! item by item (`#[decode(drop_malformed)]`): one bad entry is dropped, not the file.
//!
//! A file that is too large ([`MAX_STATE_BYTES`]), truncated, bit-flipped, not JSON or
//! from a newer format version is an error with the file and the reason; the caller logs
//! it and starts empty. Nothing here panics on any input.
//!
//! # Never older over newer
//! The body carries a `saved_seq` that every successful save raises. [`StateStore::save`]
//! refuses to write before [`StateStore::load`] ran (it would replace the file with less
//! than it holds) and refuses when the file on disk carries a higher sequence than this
//! store has seen (another writer, e.g. a second engine on the same directory, saved
//! newer data). Writes go through [`super::atomic_write`], so a crash leaves either the
//! previous file or the new one.
//!
//! # Reboots
//! Network handles are only meaningful within one boot. The body records the kernel's
//! boot id where the platform exposes one; DNS records and quarantine from another boot
//! are dropped by the engine ([`StateBody::same_boot`]).

use super::{atomic_write, decode_checked, encode_checked, read_limited};
use crate::config::decode::Decode;
use crate::dns::PersistedDns;
use crate::error::{Error, Result};
use crate::line::PersistedLine;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// File name inside the storage directory.
pub const STATE_FILE: &str = "state.json";
/// Header tag of the state file.
pub const STATE_TAG: &str = "linekit-state";
/// The format version this build reads and writes.
pub const STATE_VERSION: u32 = 1;
/// Largest state file read (larger files are refused unread).
pub const MAX_STATE_BYTES: usize = 4 * 1024 * 1024;

/// One pool's persisted lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedPool {
    /// Business line name.
    pub biz: String,
    /// `http` or `ws`.
    pub protocol: String,
    /// Its used lines.
    #[decode(drop_malformed)]
    pub lines: Vec<PersistedLine>,
}

/// The JSON body of the state file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Decode)]
pub struct StateBody {
    /// Raised by every save; see the module docs.
    pub saved_seq: u64,
    /// Wall-clock time of the save (Unix ms).
    pub saved_wall_ms: u64,
    /// Kernel boot id at the save, where known.
    #[decode(nullable)]
    pub boot_id: Option<String>,
    /// Line statistics per business line × protocol.
    #[decode(drop_malformed)]
    pub pools: Vec<PersistedPool>,
    /// HTTPDNS records and quarantine.
    #[serde(default)]
    pub dns: PersistedDns,
}

impl StateBody {
    /// Whether the body was saved in the boot `current` (unknown on either side counts as
    /// the same boot: nothing better is known).
    pub fn same_boot(&self, current: Option<&str>) -> bool {
        match (self.boot_id.as_deref(), current) {
            (Some(saved), Some(now)) => saved == now,
            _ => true,
        }
    }
}

/// The header and JSON text of `body`.
pub fn encode_state(body: &StateBody) -> Result<String> {
    let json = serde_json::to_string(body)
        .map_err(|e| Error::Store(format!("cannot encode the state: {e}")))?;
    Ok(encode_checked(STATE_TAG, STATE_VERSION, &json))
}

/// Parses a state file's bytes (`path` only names it in errors).
///
/// The body is parsed into a `serde_json::Value` first and the records are decoded from
/// that value by the library's one typed JSON decoder (`crate::config::decode`, read
/// strictly): the library parses JSON text into a `Value` anyway (configs, HTTPDNS
/// answers), so the state needs no decoder of its own. A damaged list item is dropped
/// alone; any other problem is an error naming its path.
pub fn decode_state(path: &Path, bytes: Vec<u8>) -> Result<StateBody> {
    let (_, body) = decode_checked(path, bytes, STATE_TAG, STATE_VERSION)?;
    let value: serde_json::Value = serde_json::from_str(&body).map_err(|e| {
        Error::Store(format!(
            "{} is corrupt: bad JSON at line {} column {}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    crate::config::decode::exact::<StateBody>(&value).map_err(|e| {
        Error::Store(format!(
            "{} is corrupt: the body is not a state record: {e}",
            path.display()
        ))
    })
}

/// The kernel's boot id (`/proc/sys/kernel/random/boot_id` on Linux and Android).
pub fn boot_id() -> Option<String> {
    let bytes = read_limited(Path::new("/proc/sys/kernel/random/boot_id"), 128).ok()??;
    let id = String::from_utf8(bytes).ok()?.trim().to_string();
    (!id.is_empty()).then_some(id)
}

/// What [`StateStore::save`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveOutcome {
    /// The file now holds the body with this sequence.
    Written(u64),
    /// Nothing was written: the file was not loaded yet.
    NotLoaded,
    /// Nothing was written: the file on disk has a newer sequence.
    Superseded(u64),
}

/// Reads and writes `state.json` in a storage directory (see the module docs).
#[derive(Debug)]
pub struct StateStore {
    path: PathBuf,
    seq: u64,
    loaded: bool,
}

impl StateStore {
    /// A store for `dir/state.json`.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        StateStore {
            path: dir.as_ref().join(STATE_FILE),
            seq: 0,
            loaded: false,
        }
    }

    /// The state file.
    #[cfg(any(test, feature = "testing"))]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether [`Self::load`] ran (successfully or not).
    pub fn is_loaded(&self) -> bool {
        self.loaded
    }

    /// The highest sequence this store has read or written.
    #[cfg(any(test, feature = "testing"))]
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Reads the file: `Ok(None)` on first start, an error (with context) for anything
    /// unusable. Either way the store counts as loaded afterwards: a bad file is replaced
    /// by the next save; a good one sets the sequence the next save must exceed.
    pub fn load(&mut self) -> Result<Option<StateBody>> {
        self.loaded = true;
        let Some(bytes) = read_limited(&self.path, MAX_STATE_BYTES)? else {
            return Ok(None);
        };
        let body = decode_state(&self.path, bytes)?;
        self.seq = self.seq.max(body.saved_seq);
        Ok(Some(body))
    }

    /// Writes `body` (its `saved_seq` is set here) unless that would write before loading
    /// or over newer data; see the module docs.
    pub fn save(&mut self, mut body: StateBody) -> Result<SaveOutcome> {
        if !self.loaded {
            return Ok(SaveOutcome::NotLoaded);
        }
        // A corrupt or unreadable file holds nothing worth keeping: it may be replaced.
        let on_disk = read_limited(&self.path, MAX_STATE_BYTES)
            .ok()
            .flatten()
            .and_then(|bytes| decode_state(&self.path, bytes).ok())
            .map_or(0, |b| b.saved_seq);
        if on_disk > self.seq {
            return Ok(SaveOutcome::Superseded(on_disk));
        }
        body.saved_seq = self.seq.saturating_add(1);
        atomic_write(&self.path, encode_state(&body)?.as_bytes())?;
        self.seq = body.saved_seq;
        Ok(SaveOutcome::Written(body.saved_seq))
    }
}
