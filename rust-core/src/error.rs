//! The crate's error type.
//!
//! Errors carry enough context to act on (a field path, a provider id, a reason) and never
//! the sensitive payload itself (config text, keys, HTTPDNS bodies).

use std::fmt;

/// Result with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One configuration problem, located by a JSON field path such as
/// `biz_lines.spot.http[1].url`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    /// Dotted path of the offending field (`""` for the whole document).
    pub path: String,
    /// What is wrong with it.
    pub error: String,
}

impl FieldError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, error: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            error: error.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.error)
        } else {
            write!(f, "{}: {}", self.path, self.error)
        }
    }
}

/// Everything that can go wrong in the core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A configuration document is invalid; every problem found is listed.
    InvalidConfig(Vec<FieldError>),
    /// A remote config was not applied (for example its version is not newer).
    ConfigRejected(String),
    /// Sealing or opening a sealed config failed (wrong key, tampered or malformed text).
    Seal(String),
    /// Any other invalid argument.
    InvalidArgument(String),
    /// An HTTPDNS answer was unusable.
    Dns(String),
    /// A storage file could not be read or written.
    Store(String),
    /// The engine may not send its own requests: it was built to wait for the user's
    /// consent, which was not granted (or was revoked).
    ConsentRequired(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidConfig(errs) => {
                write!(f, "invalid config: ")?;
                for (i, e) in errs.iter().enumerate() {
                    if i > 0 {
                        write!(f, "; ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            Error::ConfigRejected(why) => write!(f, "config rejected: {why}"),
            Error::Seal(why) => write!(f, "sealed config: {why}"),
            Error::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Error::Dns(why) => write!(f, "httpdns: {why}"),
            Error::Store(why) => write!(f, "store: {why}"),
            Error::ConsentRequired(what) => write!(
                f,
                "consent required: {what} sends requests, and consent was not granted"
            ),
        }
    }
}

impl std::error::Error for Error {}
