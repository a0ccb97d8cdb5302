//! Whether a remote config document may replace the config in force: the one rule shared
//! by `update_config`, the engine's own fetches, `linekit config verify` and the load of
//! the persisted last good config.
//!
//! With `trust` listing keys in the config in force, a document applies only if it is a
//! signed [`Envelope`] with at least `threshold` strictly valid signatures from distinct
//! trusted keys, the config inside validates, its `version` is higher than the current one, and
//! its `expires_at` (required) is later than the wall clock. A config may change `trust`
//! only by verifying under the current trust *and* under the trust it introduces (old and
//! new keys both sign a rotation), so every accepted config verifies under its own trust
//! when it is loaded again after a restart. Without trust a bare config (or an envelope,
//! unwrapped) applies when it validates and is newer; one that *introduces* trust must be
//! an envelope that verifies under the trust it introduces, so a typo cannot lock an
//! install out. Once trust is established a remote document cannot drop or empty it; only
//! the app's own config can.
//!
//! Every refusal is a [`Rejection`] with a stable code, checked in this order: size
//! (`oversize`), envelope shape (`malformed`), signatures (`unsigned`, `bad_signature`,
//! `unknown_key`, `below_threshold`), content (`invalid`), `not_newer`, `expired`.

use super::envelope::{Envelope, Rejection};
use super::model::Config;
use super::trust::{TrustConfig, TrustSet};
use super::validate::{decode_config, parse_config, parse_json};
use crate::error::Error;
use crate::trace::reason::ConfigReason;
use serde_json::Value;

/// Largest remote config document accepted (bytes), envelope included.
pub const MAX_REMOTE_CONFIG_BYTES: usize = crate::transport::MAX_CONFIG_BODY_BYTES;

/// A document that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The config inside.
    pub config: Config,
    /// Distinct trusted key ids with a valid signature (empty when unsigned).
    pub key_ids: Vec<String>,
}

/// An opened document: the config and, when it came in an envelope, the envelope.
struct Opened {
    config: Config,
    envelope: Option<Envelope>,
    key_ids: Vec<String>,
}

fn active(trust: Option<&TrustConfig>) -> Option<&TrustConfig> {
    trust.filter(|t| t.is_active())
}

/// Size check, envelope unwrapping, signature check under `trust` (if given) and
/// validation of the config inside.
fn open_document(text: &str, trust: Option<&TrustConfig>) -> Result<Opened, Rejection> {
    if text.len() > MAX_REMOTE_CONFIG_BYTES {
        return Err(Rejection::new(
            ConfigReason::Oversize,
            format!(
                "document is {} bytes; limit is {MAX_REMOTE_CONFIG_BYTES}",
                text.len()
            ),
        ));
    }
    // Parsed once: the value says whether the document is an envelope and, when it is a
    // bare config, is what gets decoded.
    let value = parse_json(text);
    let envelope = match &value {
        Ok(v) if Envelope::is_envelope(v) => Some(Envelope::parse(v)?),
        _ => None,
    };
    let mut key_ids = Vec::new();
    if let Some(trust) = trust {
        match &envelope {
            Some(env) => key_ids = env.verify(&TrustSet::new(trust))?,
            None if value.as_ref().is_ok_and(Value::is_object) => {
                return Err(Rejection::new(
                    ConfigReason::Unsigned,
                    "trust is configured: expected a signed envelope, found a bare config",
                ))
            }
            None => {
                return Err(Rejection::new(
                    ConfigReason::Malformed,
                    "trust is configured: expected a signed envelope",
                ))
            }
        }
    }
    let config = match &envelope {
        Some(env) => {
            let inner = std::str::from_utf8(&env.signed).map_err(|_| {
                Rejection::new(ConfigReason::Malformed, "signed bytes are not UTF-8")
            })?;
            parse_config(inner)
        }
        None => value.and_then(|v| decode_config(&v)),
    }
    .map_err(invalid)?;
    Ok(Opened {
        config,
        envelope,
        key_ids,
    })
}

fn invalid(e: Error) -> Rejection {
    let detail = match e {
        Error::InvalidConfig(errors) => errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    };
    Rejection::new(ConfigReason::Invalid, detail)
}

fn check_expiry(config: &Config, required: bool, wall_now_s: u64) -> Result<(), Rejection> {
    match config.expires_at {
        None if required => Err(Rejection::new(
            ConfigReason::Invalid,
            "expires_at: required while trust is configured",
        )),
        Some(at) if at <= wall_now_s => Err(Rejection::new(
            ConfigReason::Expired,
            format!("expires_at {at} is not later than now ({wall_now_s})"),
        )),
        _ => Ok(()),
    }
}

/// What an offered document comes to (see [`check_offer`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It passed every check.
    Accepted(Box<Accepted>),
    /// It is the config in force served again: verified, unexpired and of the current
    /// version (a config server that is up to date, not one that rolls back). Still a
    /// `not_newer` rejection for [`check_remote`].
    InForce(Rejection),
    /// It was refused.
    Rejected(Rejection),
}

/// Checks a remote document (fetched or given to `update_config`) against the config in
/// force at wall-clock second `wall_now_s`. See the module docs.
pub fn check_remote(text: &str, current: &Config, wall_now_s: u64) -> Result<Accepted, Rejection> {
    match check_offer(text, current, wall_now_s) {
        Verdict::Accepted(accepted) => Ok(*accepted),
        Verdict::InForce(r) | Verdict::Rejected(r) => Err(r),
    }
}

/// [`check_remote`] that also tells a document of the version in force from other
/// refusals, from the same single parse.
pub fn check_offer(text: &str, current: &Config, wall_now_s: u64) -> Verdict {
    let (config, key_ids, trusted) = match verified(text, current) {
        Ok(v) => v,
        Err(r) => return Verdict::Rejected(r),
    };
    let expiry = check_expiry(&config, trusted, wall_now_s);
    let version = config.version;
    if version <= current.version {
        let r = Rejection::new(
            ConfigReason::NotNewer,
            format!(
                "version {version} is not newer than current {}",
                current.version
            ),
        );
        // Version 0 is never in force as a served config: it is the hard-coded fallback's.
        let in_force = version == current.version && version > 0 && expiry.is_ok();
        return if in_force {
            Verdict::InForce(r)
        } else {
            Verdict::Rejected(r)
        };
    }
    match expiry {
        Ok(()) => Verdict::Accepted(Box::new(Accepted { config, key_ids })),
        Err(r) => Verdict::Rejected(r),
    }
}

/// The document opened and its signatures checked under the current trust and, when it
/// introduces or changes trust, under its own: the key ids to report and whether trust
/// applies (so `expires_at` is required).
fn verified(text: &str, current: &Config) -> Result<(Config, Vec<String>, bool), Rejection> {
    let current_trust = active(current.trust.as_ref());
    let Opened {
        config,
        envelope,
        mut key_ids,
    } = open_document(text, current_trust)?;
    let new_trust = active(config.trust.as_ref());
    if current_trust.is_some() && new_trust.is_none() {
        // Once trust is established only the app's own config can remove it: a served
        // config that dropped it would open the channel to unsigned documents.
        return Err(Rejection::new(
            ConfigReason::Invalid,
            "trust: a remote config may not drop or empty trust once it is established",
        ));
    }
    if let Some(trust) = new_trust.filter(|t| Some(*t) != current_trust) {
        // Introducing or changing trust: the document must also be signed by the keys it
        // trusts (as a rotated TUF root is), so it verifies under its own trust on every
        // later start, however many rotations ago the app's own config was shipped.
        let env = envelope.as_ref().ok_or_else(|| {
            Rejection::new(
                ConfigReason::Unsigned,
                "a config that introduces trust must be a signed envelope",
            )
        })?;
        let by_new = env.verify(&TrustSet::new(trust)).map_err(|r| {
            Rejection::new(
                r.reason,
                format!("under the trust it introduces: {}", r.detail),
            )
        })?;
        if current_trust.is_none() {
            key_ids = by_new;
        }
    }
    let trusted = current_trust.is_some() || new_trust.is_some();
    Ok((config, key_ids, trusted))
}

/// Verifies an envelope under `trust` (no version rule): what `linekit config verify`
/// reports. `wall_now_s` checks `expires_at` when given.
pub fn verify_envelope(
    text: &str,
    trust: &TrustConfig,
    wall_now_s: Option<u64>,
) -> Result<Accepted, Rejection> {
    if !trust.is_active() {
        return Err(Rejection::new(
            ConfigReason::Invalid,
            "trust: lists no keys",
        ));
    }
    let opened = open_document(text, Some(trust))?;
    if let Some(now) = wall_now_s {
        check_expiry(&opened.config, true, now)?;
    }
    Ok(Accepted {
        config: opened.config,
        key_ids: opened.key_ids,
    })
}

/// Opens the persisted last good config at start-up. It was verified when it was applied;
/// here it must still be well formed, signed when the app's own config (`anchor`) or the
/// config itself lists trusted keys (verified under either), and not past `expires_at`
/// (reason `expired`): an expired config is never trusted again after a restart.
pub fn open_persisted(
    text: &str,
    anchor: Option<&TrustConfig>,
    wall_now_s: u64,
) -> Result<Config, Rejection> {
    let opened = open_document(text, None)?;
    let own = active(opened.config.trust.as_ref());
    let anchor = active(anchor);
    if own.is_some() || anchor.is_some() {
        let env = opened.envelope.as_ref().ok_or_else(|| {
            Rejection::new(
                ConfigReason::Unsigned,
                "trust is configured: the persisted config is not signed",
            )
        })?;
        let by_own = own.map(|t| env.verify(&TrustSet::new(t)));
        let by_anchor = anchor.map(|t| env.verify(&TrustSet::new(t)));
        match (by_own, by_anchor) {
            (Some(Ok(_)), _) | (_, Some(Ok(_))) => {}
            (Some(Err(e)), _) | (None, Some(Err(e))) => return Err(e),
            (None, None) => {}
        }
    }
    check_expiry(
        &opened.config,
        own.is_some() || anchor.is_some(),
        wall_now_s,
    )?;
    Ok(opened.config)
}
