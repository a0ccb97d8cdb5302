//! Turning config text into a [`Config`], reporting *every* problem with a field path.
//!
//! [`parse_config`] works in three steps:
//! 1. a size check (over [`MAX_CONFIG_BYTES`] → one error, the text is not parsed) and a
//!    parse into a [`serde_json::Value`] (syntax errors give line and column, never content);
//! 2. the lenient decoder (module `config::decode`, derived from the model's declaration)
//!    checks the *shape* of every known field (types, required fields, integer ranges,
//!    explicitly empty pools) while building a typed copy in which malformed values are
//!    replaced by placeholders;
//! 3. the semantic rules (module `config::rules`) over that copy (URLs, ranges, uniqueness,
//!    cross references), silent wherever step 2 already reported a problem.
//!
//! When nothing was found, that typed copy *is* the config (providers this build cannot
//! use removed): the document is parsed once and decoded once. [`decode_config`] runs
//! steps 2 and 3 on a value already parsed (a remote offer, whose text was parsed to see
//! whether it is an envelope). [`validate`] runs step 3 alone on a config built in code.
//! Unknown fields are ignored (forward compatibility).

use super::decode::document;
use super::json::{self, JsonError};
use super::model::Config;
use super::provider_auth::AuthKind;
use super::rules::{self, Findings};
use crate::dns::providers::ProviderFormat;
use crate::error::{Error, FieldError, Result};
use crate::wire::WireEnum;
use serde_json::Value;

/// Largest config document accepted, in bytes (1 MiB).
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;

/// Parses and validates a config document; on failure every problem is listed in
/// [`Error::InvalidConfig`].
pub fn parse_config(text: &str) -> Result<Config> {
    let (config, warnings) = parse_config_with_warnings(text)?;
    log_warnings(&warnings);
    Ok(config)
}

/// [`parse_config`] that also returns the warnings: parts this build cannot use (a
/// provider with an unknown `format` or `auth.kind`, or `doh-wire` without its feature)
/// are dropped, each with a warning naming its path, and the rest of the config applies.
pub fn parse_config_with_warnings(text: &str) -> Result<(Config, Vec<FieldError>)> {
    decode_with_warnings(&parse_json(text)?)
}

/// Step 1: the size check and the strict JSON parse (a repeated key is an error at its
/// path), with their errors as config errors.
pub(crate) fn parse_json(text: &str) -> Result<Value> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(invalid(format!(
            "config is {} bytes; limit is {MAX_CONFIG_BYTES} bytes",
            text.len()
        )));
    }
    // serde_json's syntax messages are fixed phrases plus line/column: no content.
    json::parse(text).map_err(json_error)
}

/// A strict JSON error as a config error: a repeated key at its path.
pub(crate) fn json_error(e: JsonError) -> Error {
    match e {
        JsonError::DuplicateKey(path) => {
            Error::InvalidConfig(vec![FieldError::new(&path, json::DUPLICATE_KEY)])
        }
        syntax => invalid(syntax.to_string()),
    }
}

/// Steps 2 and 3 on a parsed document: what [`parse_config`] does after parsing.
pub(crate) fn decode_config(value: &Value) -> Result<Config> {
    let (config, warnings) = decode_with_warnings(value)?;
    log_warnings(&warnings);
    Ok(config)
}

fn log_warnings(warnings: &[FieldError]) {
    for w in warnings {
        log::warn!("linekit: config: {w}");
    }
}

fn decode_with_warnings(value: &Value) -> Result<(Config, Vec<FieldError>)> {
    let mut findings = Findings::default();
    let mut config = document(value, &mut findings);
    rules::check(&config, &mut findings);
    let warnings = findings.warnings().to_vec();
    let errors = findings.into_errors();
    if !errors.is_empty() {
        return Err(Error::InvalidConfig(errors));
    }
    drop_unsupported_providers(value, &mut config);
    Ok((config, warnings))
}

/// Why this build cannot use the provider `v`, if it cannot: the decoder then keeps a
/// placeholder with a warning (`#[decode(unsupported)]` on the provider), and the provider
/// is dropped once the rules have run.
pub(super) fn unsupported_provider(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    if let Some(format) = o.get("format").and_then(Value::as_str) {
        if format.parse::<ProviderFormat>().is_err() {
            return Some(format!(
                "provider dropped: unknown format (this build knows {})",
                ProviderFormat::names().join(", ")
            ));
        }
        if format == "doh-wire" && !cfg!(feature = "doh-wire") {
            return Some(
                "provider dropped: this build lacks the `doh-wire` cargo feature".to_string(),
            );
        }
    }
    let kind = o.get("auth")?.as_object()?.get("kind")?.as_str()?;
    if kind.parse::<AuthKind>().is_err() {
        return Some(format!(
            "provider dropped: unknown auth kind (this build knows {})",
            AuthKind::names().join(", ")
        ));
    }
    None
}

/// Removes the placeholders the decoder kept (one per item of `httpdns.providers`, so rule
/// findings name the document's own indices) for providers this build cannot use.
fn drop_unsupported_providers(value: &Value, config: &mut Config) {
    if let Some(items) = value
        .get("httpdns")
        .and_then(|h| h.get("providers"))
        .and_then(Value::as_array)
    {
        let mut usable = items.iter().map(|p| unsupported_provider(p).is_none());
        config
            .httpdns
            .providers
            .retain(|_| usable.next().unwrap_or(true));
    }
}

/// Re-checks a typed config against the semantic rules (URLs, ranges, ids, cross
/// references). Document-only rules — `version` present, `biz_lines` present and
/// non-empty — do not apply: an empty config (every request left on its URL) is valid.
pub fn validate(config: &Config) -> Result<()> {
    let mut findings = Findings::default();
    rules::check(config, &mut findings);
    let errors = findings.into_errors();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidConfig(errors))
    }
}

fn invalid(error: String) -> Error {
    Error::InvalidConfig(vec![FieldError::new("", error)])
}
