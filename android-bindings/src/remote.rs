//! The remote config channel and the app's own config checks, as seen from Kotlin:
//! [`NativeLineKit::refresh_config`] starts a fetch round, [`app_config_errors`] lists
//! every problem of the app's own config levels (what makes `LineKit.Builder.build()`
//! throw `LineKitConfigException` unless the app asked to fall back). The rule of what is
//! invalid is the core's (`config::source::app_config_errors`); this only carries it over.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::config::{ConfigSource, ConfigSources};
use linekit_core::Error;

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

/// Every problem of the app's own config levels (empty when they are usable): the JSON
/// config and the sealed asset, each checked on its own.
#[uniffi::export]
pub fn app_config_errors(
    config_json: Option<String>,
    sealed_config: Option<String>,
    sealed_key: Option<Vec<u8>>,
) -> Vec<ConfigFieldError> {
    let sources = ConfigSources {
        remote: config_json,
        sealed: sealed_config.zip(sealed_key),
        ..ConfigSources::default()
    };
    let mut out = Vec::new();
    for (source, err) in linekit_core::config::app_config_errors(&sources) {
        let source_name = match source {
            ConfigSource::Remote => "remote",
            other => other.as_str(),
        };
        match err {
            Error::InvalidConfig(list) => out.extend(list.into_iter().map(|f| ConfigFieldError {
                source: source_name.to_string(),
                path: f.path,
                error: f.error,
            })),
            other => out.push(ConfigFieldError {
                source: source_name.to_string(),
                path: String::new(),
                error: other.to_string(),
            }),
        }
    }
    out
}

#[uniffi::export]
impl NativeLineKit {
    /// Starts a fetch round of `remote.urls` now (unless one is running); returns whether a
    /// round is running (false without `remote` or without a transport).
    pub fn refresh_config(&self) -> Result<bool, LineKitError> {
        Ok(self.engine()?.refresh_config())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_config_errors_name_source_and_path() {
        let key = [7u8; 32];
        let sealed = linekit_core::config::seal(br#"{"version":2}"#, &key).unwrap();
        let errors = app_config_errors(
            Some(r#"{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"ftp://x"}]}}}"#.into()),
            Some(sealed.clone()),
            Some(key.to_vec()),
        );
        assert_eq!(errors[0].source, "remote");
        assert_eq!(errors[0].path, "biz_lines.a.http[0].url");
        assert_eq!(errors[1].source, "sealed");
        assert_eq!(errors[1].path, "biz_lines");
        // A sealed asset that does not open falls back instead (a wrong key).
        assert!(app_config_errors(None, Some(sealed), Some(vec![0; 32])).is_empty());
        assert!(app_config_errors(None, None, None).is_empty());
    }
}
