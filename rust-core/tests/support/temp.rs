//! Scratch directories for tests that read and write files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A fresh directory under the system temp dir, unique per process and call, removed on
/// drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `linekit-{name}-{pid}-{random}`.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "linekit-{name}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path of `file` inside it, as a string argument.
    pub fn file(&self, file: &str) -> String {
        self.0.join(file).to_str().expect("UTF-8 path").to_string()
    }

    /// Writes `text` to `file` inside it and returns its path.
    pub fn write(&self, file: &str, text: &str) -> String {
        let path = self.file(file);
        std::fs::write(&path, text).expect("write temp file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
