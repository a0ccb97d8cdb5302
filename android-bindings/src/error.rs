//! The error enum that crosses the FFI: flat (each variant carries its message), so Kotlin
//! sees `LineKitException.InvalidConfig(message)` and friends. The one failure whose
//! structure Kotlin needs, an app config refused at strict start-up, does not come through
//! here: [`crate::start_engine`] returns it as data, every problem with its path
//! ([`crate::Startup::InvalidAppConfig`]).

use std::fmt;

/// Errors raised to Kotlin.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum LineKitError {
    /// The configuration is invalid (every problem with its field path).
    InvalidConfig(String),
    /// A remote config was rejected.
    ConfigRejected(String),
    /// The sealed config could not be opened (wrong key, tampered or malformed).
    Seal(String),
    /// An argument was invalid.
    InvalidArgument(String),
    /// An HTTPDNS answer was unusable.
    Dns(String),
    /// A storage file could not be read or written.
    Store(String),
    /// The engine was closed.
    Closed(String),
}

impl fmt::Display for LineKitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = match self {
            LineKitError::InvalidConfig(m)
            | LineKitError::ConfigRejected(m)
            | LineKitError::Seal(m)
            | LineKitError::InvalidArgument(m)
            | LineKitError::Dns(m)
            | LineKitError::Store(m)
            | LineKitError::Closed(m) => m,
        };
        f.write_str(msg)
    }
}

impl std::error::Error for LineKitError {}

impl From<linekit_core::Error> for LineKitError {
    fn from(e: linekit_core::Error) -> Self {
        use linekit_core::Error as E;
        let msg = e.to_string();
        match e {
            E::InvalidConfig(_) => LineKitError::InvalidConfig(msg),
            E::ConfigRejected(_) => LineKitError::ConfigRejected(msg),
            E::Seal(_) => LineKitError::Seal(msg),
            E::InvalidArgument(_) => LineKitError::InvalidArgument(msg),
            E::Dns(_) => LineKitError::Dns(msg),
            E::Store(_) => LineKitError::Store(msg),
            E::ConsentRequired(_) => LineKitError::InvalidArgument(msg),
        }
    }
}

impl LineKitError {
    /// The kind's name, as Kotlin's `LineKitException` subclass is named (how the JNI
    /// start reports an error).
    pub fn kind(&self) -> &'static str {
        match self {
            LineKitError::InvalidConfig(_) => "InvalidConfig",
            LineKitError::ConfigRejected(_) => "ConfigRejected",
            LineKitError::Seal(_) => "Seal",
            LineKitError::InvalidArgument(_) => "InvalidArgument",
            LineKitError::Dns(_) => "Dns",
            LineKitError::Store(_) => "Store",
            LineKitError::Closed(_) => "Closed",
        }
    }

    /// The error for any call on a closed engine.
    pub(crate) fn closed() -> Self {
        LineKitError::Closed("the LineKit engine is closed".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_errors_keep_kind_and_message() {
        let e: LineKitError = linekit_core::Error::Seal("bad tag".into()).into();
        assert_eq!(e, LineKitError::Seal("sealed config: bad tag".into()));
        assert_eq!(e.to_string(), "sealed config: bad tag");
        let e: LineKitError =
            linekit_core::Error::InvalidConfig(vec![linekit_core::error::FieldError::new(
                "version", "missing",
            )])
            .into();
        assert!(matches!(e, LineKitError::InvalidConfig(ref m) if m.contains("version: missing")));
    }
}
