//! The install seed (`docs/architecture.md#consent`): a random number kept in the storage
//! directory as `install.seed`, so an install keeps its rollout and convergence buckets,
//! its trace sampling and its trace `install` id across restarts. It is drawn at random on
//! the first start and derived from nothing on the device (no device identifier, no
//! network name); [`crate::LineKit::clear_data`] deletes it with everything else, so the
//! next start is a new install.
//!
//! The file is one header line ([`super::encode_checked`]) and the seed as 16 hex digits.
//! A missing, unreadable or corrupt file gets a fresh seed, written back atomically; when
//! it cannot be written the seed still serves this process.

use super::{atomic_write, decode_checked, encode_checked, read_limited};
use std::path::Path;

/// File name inside the storage directory.
pub const INSTALL_FILE: &str = "install.seed";
const TAG: &str = "linekit-install";
const VERSION: u32 = 1;

/// The install seed kept in `dir`, created at random when there is none.
pub fn load_or_create(dir: &Path) -> u64 {
    let path = dir.join(INSTALL_FILE);
    let stored = read_limited(&path, 256).and_then(|bytes| {
        bytes
            .map(|b| decode_checked(&path, b, TAG, VERSION))
            .transpose()
    });
    match stored {
        Ok(Some((_, body))) => match u64::from_str_radix(body.trim(), 16) {
            Ok(seed) => return seed,
            Err(_) => log::warn!(
                "linekit: {} is corrupt; drawing a new install seed",
                path.display()
            ),
        },
        Ok(None) => {}
        Err(e) => log::warn!("linekit: {e}; drawing a new install seed"),
    }
    let seed = fastrand::u64(..);
    let file = encode_checked(TAG, VERSION, &format!("{seed:016x}"));
    if let Err(e) = atomic_write(&path, file.as_bytes()) {
        log::warn!("linekit: the install seed is not kept across restarts: {e}");
    }
    seed
}
