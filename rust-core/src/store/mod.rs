//! Persistence primitives shared by everything the core keeps on disk (the last good remote
//! config, line quality, HTTPDNS records, the install seed), and [`clear_files`], which
//! deletes it all: the files of [`PERSISTED_FILES`] and nothing else in the directory.
//!
//! Two rules keep files trustworthy across crashes and power loss:
//! - **Writes are atomic.** [`atomic_write`] writes a temp file next to the target, fsyncs
//!   it, renames it over the target and fsyncs the directory, so a reader sees either the
//!   old file or the new one, never a torn mix. If any step fails the old file is untouched.
//!   The temp file has an unpredictable name (a random suffix from the OS generator) and is
//!   created exclusively (`create_new`, `O_EXCL`) without following a symlink
//!   (`O_NOFOLLOW`): whatever another process planted next to the target, the write never
//!   opens an existing file, so it cannot be steered into overwriting one elsewhere.
//! - **Reads are bounded.** [`read_limited`] refuses files over a caller-given size, so a
//!   corrupt or foreign file cannot make the app allocate without bound. A missing file is
//!   not an error (`Ok(None)`): it is the normal first start. Only regular files are read:
//!   the file is opened without blocking (`O_NONBLOCK`, so a FIFO with no writer does not
//!   stall the open) and its type checked on the open descriptor before any read, so a
//!   FIFO, a device or a directory is an error at once.
//!
//! - **Files are tagged and checked.** [`encode_checked`] prefixes a body with one header
//!   line `<tag> v<version> fnv1a64:<hex>`; [`decode_checked`] refuses another tag, a newer
//!   format version, a missing header or a checksum mismatch (torn or bit-flipped file).
//!   Every persisted file uses this one header ([`crate::config::source::LastGoodStore`],
//!   [`state`], [`install`]).
//!
//! Error texts name the file and the I/O problem, never the file's contents.

internal_mod!(install);
internal_mod!(state);

use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A fresh temp file name for `path`: `.<name>.<16 random hex digits>.tmp` in the same
/// directory (same file system, so the final rename is atomic). Each call draws a new
/// suffix from the OS random generator.
pub fn temp_path(path: &Path) -> Result<PathBuf> {
    use aes_gcm::aead::rand_core::RngCore;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut suffix = [0u8; 8];
    aes_gcm::aead::OsRng
        .try_fill_bytes(&mut suffix)
        .map_err(|_| Error::Store("the system random number generator failed".to_string()))?;
    Ok(path.with_file_name(format!(".{name}.{:016x}.tmp", u64::from_be_bytes(suffix))))
}

/// Replaces `path` with `bytes` atomically: a fresh temp file ([`temp_path`]) in the same
/// directory, write, fsync, rename, fsync the directory. On error the previous file (if
/// any) is left intact and the temp file is removed on a best-effort basis.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.file_name().is_none() {
        return Err(Error::Store(format!(
            "cannot write {}: not a file path",
            path.display()
        )));
    }
    atomic_write_via(path, &temp_path(path)?, bytes)
}

/// [`atomic_write`] through the temp file `tmp`, which must not exist: an existing entry
/// there (file, symlink, directory) fails the write and is left alone.
pub fn atomic_write_via(path: &Path, tmp: &Path, bytes: &[u8]) -> Result<()> {
    let mut created = false;
    let written = create_exclusive(tmp)
        .and_then(|file| {
            created = true;
            write_synced(file, bytes)
        })
        .and_then(|()| fs::rename(tmp, path));
    if let Err(e) = written {
        // Only remove what this write created.
        if created {
            let _ = fs::remove_file(tmp);
        }
        return Err(Error::Store(format!(
            "cannot write {}: {e}",
            path.display()
        )));
    }
    sync_dir(path)
}

/// Creates `tmp` for writing; fails if anything exists there, a dangling symlink included.
fn create_exclusive(tmp: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW).mode(0o600);
    }
    options.open(tmp)
}

fn write_synced(mut file: File, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

/// Makes the rename durable. Directories cannot be opened for syncing on every platform;
/// where they can (Unix, Android) a failure is reported.
fn sync_dir(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::Store(format!("cannot sync {}: {e}", dir.display())))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// Reads `path` whole if it is a regular file of at most `limit` bytes. `Ok(None)` when the
/// file does not exist; an error, at once, when it is not a regular file (a FIFO, device or
/// directory), larger than `limit` or unreadable.
pub fn read_limited(path: &Path, limit: usize) -> Result<Option<Vec<u8>>> {
    let file = match open_for_reading(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::Store(format!("cannot read {}: {e}", path.display())));
        }
    };
    let too_big = || {
        Error::Store(format!(
            "{} is larger than the limit of {limit} bytes",
            path.display()
        ))
    };
    let meta = file
        .metadata()
        .map_err(|e| Error::Store(format!("cannot read {}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(Error::Store(format!(
            "cannot read {}: not a regular file",
            path.display()
        )));
    }
    let len = meta.len();
    if len > limit as u64 {
        return Err(too_big());
    }
    let mut buf = Vec::with_capacity(len as usize);
    // The file may grow between metadata and read: read at most one byte past the limit.
    file.take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::Store(format!("cannot read {}: {e}", path.display())))?;
    if buf.len() > limit {
        return Err(too_big());
    }
    Ok(Some(buf))
}

/// Opens `path` for reading without blocking on a FIFO (the type is checked by the caller
/// on the open descriptor, so nothing is swapped in between).
fn open_for_reading(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// FNV-1a, 64 bit: detects torn and bit-flipped files (not an integrity check against an
/// attacker — every loaded value is validated again anyway).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `body` behind its header line: `<tag> v<version> fnv1a64:<16 hex digits>\n<body>`.
pub fn encode_checked(tag: &str, version: u32, body: &str) -> String {
    format!(
        "{tag} v{version} fnv1a64:{:016x}\n{body}",
        fnv1a64(body.as_bytes())
    )
}

/// The body of a file written by [`encode_checked`] with `tag`, and its format version.
/// Errors (naming `path`, never the contents): not UTF-8, no header line, another tag,
/// a version above `max_version`, a checksum mismatch.
pub fn decode_checked(
    path: &Path,
    bytes: Vec<u8>,
    tag: &str,
    max_version: u32,
) -> Result<(u32, String)> {
    let corrupt = |why: String| Error::Store(format!("{} is corrupt: {why}", path.display()));
    let text = String::from_utf8(bytes).map_err(|_| corrupt("not UTF-8".into()))?;
    let (header, body) = text
        .split_once('\n')
        .ok_or_else(|| corrupt("no header".into()))?;
    let rest = header
        .strip_prefix(tag)
        .and_then(|r| r.strip_prefix(" v"))
        .ok_or_else(|| corrupt("unknown format".into()))?;
    let (version, sum) = rest
        .split_once(' ')
        .ok_or_else(|| corrupt("unknown format".into()))?;
    let version: u32 = version
        .parse()
        .map_err(|_| corrupt("unknown format".into()))?;
    if version > max_version {
        return Err(Error::Store(format!(
            "{} has format version {version}, newer than the supported {max_version}",
            path.display()
        )));
    }
    let sum = sum
        .strip_prefix("fnv1a64:")
        .ok_or_else(|| corrupt("unknown checksum".into()))?;
    if sum != format!("{:016x}", fnv1a64(body.as_bytes())) {
        return Err(corrupt("checksum mismatch".into()));
    }
    Ok((version, body.to_string()))
}

/// Every file the core keeps in its storage directory: line and HTTPDNS state, the install
/// seed, the last good remote config and the highest version accepted.
pub const PERSISTED_FILES: [&str; 4] = [
    state::STATE_FILE,
    install::INSTALL_FILE,
    crate::config::source::STORE_FILE,
    crate::config::source::FLOOR_FILE,
];

/// Deletes the files named `names` in `dir` and the temp files an interrupted write to one
/// of them left behind ([`temp_path`]); every other entry of `dir`, and `dir` itself, is
/// left alone, so a directory shared with the app loses nothing of the app's. Every file
/// is tried; the first failure is returned (naming the file, never its contents).
pub fn clear_files(dir: &Path, names: &[&str]) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::Store(format!("cannot list {}: {e}", dir.display())));
        }
    };
    let mut first_error = None;
    for entry in entries {
        let removed = entry.and_then(|entry| {
            let name = entry.file_name();
            let ours = name
                .to_str()
                .is_some_and(|n| names.contains(&n) || is_temp_of(n, names));
            if !ours || !entry.file_type()?.is_file() {
                return Ok(());
            }
            let path = entry.path();
            fs::remove_file(&path)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        });
        if let Err(e) = removed {
            first_error.get_or_insert_with(|| {
                Error::Store(format!("cannot delete from {}: {e}", dir.display()))
            });
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Whether `name` is a temp file [`temp_path`] makes for one of `names`
/// (`.NAME.<16 hex digits>.tmp`).
fn is_temp_of(name: &str, names: &[&str]) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(base, hex)| {
            names.contains(&base) && hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())
        })
}
