//! Strict start-up validates each of the app's own config documents once: the resolution
//! that picks the config also lists every problem of the app's levels (`configJson` and the
//! sealed asset), each with its level, whichever level wins. `try_build` hands them over
//! by level; `build` folds them into one `InvalidConfig` error.

use linekit_core::config::{resolve, seal, ConfigSource, ConfigSources};
use linekit_core::engine::{BuildError, LineKit, RuntimeMode};
use linekit_core::error::{Error, FieldError};

const KEY: [u8; 32] = [0x42; 32];
const GOOD: &str = r#"{"version": 3, "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}}}"#;
const BAD_URL: &str =
    r#"{"version": 1, "biz_lines": {"spot": {"http": [{"id": "a", "url": "ftp://x"}]}}}"#;

fn sealed(text: &str) -> (String, Vec<u8>) {
    (seal(text.as_bytes(), &KEY).expect("seals"), KEY.to_vec())
}

fn paths(errors: &[FieldError]) -> Vec<&str> {
    errors.iter().map(|e| e.path.as_str()).collect()
}

#[test]
fn the_resolution_lists_the_app_levels_problems_whichever_level_wins() {
    let r = resolve(&ConfigSources {
        remote: Some(GOOD.into()),
        sealed: Some(sealed(r#"{"version": 2}"#)),
        ..ConfigSources::default()
    });
    assert_eq!(r.source, ConfigSource::Remote);
    assert_eq!(r.app_errors.len(), 1);
    let (level, errors) = &r.app_errors[0];
    assert_eq!(*level, ConfigSource::Sealed);
    assert_eq!(paths(errors), ["biz_lines"]);

    // A sealed asset that does not open is a skipped level, not an app config problem.
    let r = resolve(&ConfigSources {
        remote: Some(BAD_URL.into()),
        sealed: Some((sealed(GOOD).0, vec![0; 32])),
        ..ConfigSources::default()
    });
    let levels: Vec<ConfigSource> = r.app_errors.iter().map(|(level, _)| *level).collect();
    assert_eq!(levels, [ConfigSource::Remote]);
    assert_eq!(paths(&r.app_errors[0].1), ["biz_lines.spot.http[0].url"]);
}

fn strict(remote: &str, sealed_text: &str) -> linekit_core::engine::LineKitBuilder {
    let (text, key) = sealed(sealed_text);
    LineKit::builder()
        .config_json(remote)
        .sealed_config(text, key)
        .fallback_on_invalid_config(false)
        .runtime_mode(RuntimeMode::Manual)
}

#[test]
fn strict_try_build_hands_over_every_problem_by_level() {
    let Err(BuildError::InvalidAppConfig(levels)) =
        strict(BAD_URL, r#"{"version": 2}"#).try_build()
    else {
        panic!("expected InvalidAppConfig");
    };
    let by_level: Vec<(ConfigSource, Vec<&str>)> = levels
        .iter()
        .map(|(level, errors)| (*level, paths(errors)))
        .collect();
    assert_eq!(
        by_level,
        [
            (ConfigSource::Remote, vec!["biz_lines.spot.http[0].url"]),
            (ConfigSource::Sealed, vec!["biz_lines"]),
        ]
    );
    // `build` folds the same problems into one error, each path prefixed with its level.
    let Err(Error::InvalidConfig(errors)) = strict(BAD_URL, r#"{"version": 2}"#).build() else {
        panic!("expected InvalidConfig");
    };
    assert_eq!(
        paths(&errors),
        ["remote:biz_lines.spot.http[0].url", "sealed:biz_lines"]
    );
    // Valid levels start.
    assert!(strict(GOOD, GOOD).try_build().is_ok());
}
