//! Persistence primitives shared by everything the core keeps on disk (the last good remote
//! config, line quality, HTTPDNS records).
//!
//! Two rules keep files trustworthy across crashes and power loss:
//! - **Writes are atomic.** [`atomic_write`] writes a temp file next to the target, fsyncs
//!   it, renames it over the target and fsyncs the directory, so a reader sees either the
//!   old file or the new one, never a torn mix. If any step fails the old file is untouched.
//! - **Reads are bounded.** [`read_limited`] refuses files over a caller-given size, so a
//!   corrupt or foreign file cannot make the app allocate without bound. A missing file is
//!   not an error (`Ok(None)`): it is the normal first start.
//!
//! Error texts name the file and the I/O problem, never the file's contents.

use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The temp file [`atomic_write`] uses for `path`: `.<name>.tmp` in the same directory
/// (same file system, so the final rename is atomic).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// Replaces `path` with `bytes` atomically: temp file in the same directory, write, fsync,
/// rename, fsync the directory. On error the previous file (if any) is left intact and the
/// temp file is removed on a best-effort basis.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.file_name().is_none() {
        return Err(Error::Store(format!(
            "cannot write {}: not a file path",
            path.display()
        )));
    }
    let tmp = temp_path(path);
    let written = write_synced(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        // Only remove what we may have created: never a directory or other non-file.
        if fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&tmp);
        }
        return Err(Error::Store(format!(
            "cannot write {}: {e}",
            path.display()
        )));
    }
    sync_dir(path)
}

fn write_synced(tmp: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(tmp)?;
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

/// Reads `path` whole if it is at most `limit` bytes. `Ok(None)` when the file does not
/// exist; an error when it is larger than `limit` or unreadable.
pub fn read_limited(path: &Path, limit: usize) -> Result<Option<Vec<u8>>> {
    let file = match File::open(path) {
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
    let len = file
        .metadata()
        .map_err(|e| Error::Store(format!("cannot read {}: {e}", path.display())))?
        .len();
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
