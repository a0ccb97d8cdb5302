//! Whether a remote config document may replace the config in force: the one rule shared
//! by `update_config`, the engine's own fetches, `linekit config verify` and the load of
//! the persisted last good config.
//!
//! With `trust` listing keys in the config in force, a document applies only if it is a
//! signed [`Envelope`] with at least `threshold` valid signatures from distinct trusted
//! key ids, the config inside validates, its `version` is higher than the current one, and
//! its `expires_at` (required) is later than the wall clock. A config may change `trust`
//! only by verifying under the current trust *and* under the trust it introduces (old and
//! new keys both sign a rotation), and it may never drop or empty `trust` once trust is
//! set: only the app's own config (sealed asset, `configJson`) can run without it. Without
//! trust a bare config (or an envelope, unwrapped) applies when it validates and is newer;
//! one that *introduces* trust must be an envelope that verifies under the trust it
//! introduces, so a typo cannot lock an install out.
//!
//! Rollback is measured against the config in force and, separately, against the highest
//! version this install ever accepted (`floor`, kept in its own file by the caller), so
//! losing the persisted config does not let an older signed config back in.
//!
//! The persisted last good config is opened under the trust its **chain** leads to from
//! the app's own config (the anchor): the rotations accepted since, each verified in turn
//! exactly as it was when offered ([`open_persisted`]). A persisted config that only
//! verifies under the trust it names itself is not vouched for by the app and is refused.
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
    // bare config, is what gets decoded. A repeated key is refused in either.
    let value = parse_json(text);
    let envelope = match &value {
        Ok(v) if Envelope::is_envelope(v) => Some(Envelope::parse(v)?),
        Err(e) if trust.is_some() => {
            return Err(Rejection::new(
                ConfigReason::Malformed,
                format!(
                    "trust is configured: expected a signed envelope ({})",
                    detail(e)
                ),
            ))
        }
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
    Rejection::new(ConfigReason::Invalid, detail(&e))
}

/// A config error as a rejection's detail: every path-qualified problem.
fn detail(e: &Error) -> String {
    match e {
        Error::InvalidConfig(errors) => errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
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
/// force at wall-clock second `wall_now_s`, with no version floor beyond the current
/// version. See the module docs.
pub fn check_remote(text: &str, current: &Config, wall_now_s: u64) -> Result<Accepted, Rejection> {
    match check_offer(text, current, 0, wall_now_s) {
        Verdict::Accepted(accepted) => Ok(*accepted),
        Verdict::InForce(r) | Verdict::Rejected(r) => Err(r),
    }
}

/// [`check_remote`] that also tells a document of the version in force from other
/// refusals, from the same single parse, and refuses any version below `floor`: the
/// highest version this install ever accepted (a rollback even when the config in force
/// is older, the sealed asset after the persisted config was lost).
pub fn check_offer(text: &str, current: &Config, floor: u64, wall_now_s: u64) -> Verdict {
    let Verified {
        config,
        key_ids,
        trusted,
    } = match verified(text, current.trust.as_ref()) {
        Ok(v) => v,
        Err(r) => return Verdict::Rejected(r),
    };
    let expiry = check_expiry(&config, trusted, wall_now_s);
    let version = config.version;
    if version < floor {
        return Verdict::Rejected(Rejection::new(
            ConfigReason::NotNewer,
            format!("version {version} is older than version {floor}, accepted before"),
        ));
    }
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

/// A document that passed [`verified`].
struct Verified {
    config: Config,
    /// The key ids to report.
    key_ids: Vec<String>,
    /// Trust applies (so `expires_at` is required).
    trusted: bool,
}

/// The document opened and its signatures checked under the current trust and, when it
/// introduces or changes trust, under its own. Under trust it must keep trust: a document
/// without keys would open the channel to unsigned configs.
fn verified(text: &str, current_trust: Option<&TrustConfig>) -> Result<Verified, Rejection> {
    let current_trust = active(current_trust);
    let Opened {
        config,
        envelope,
        mut key_ids,
    } = open_document(text, current_trust)?;
    let new_trust = active(config.trust.as_ref());
    if current_trust.is_some() && new_trust.is_none() {
        return Err(Rejection::new(
            ConfigReason::Invalid,
            "trust: a remote config may not drop or empty trust once it is established \
             (only the app's own config can)",
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
    Ok(Verified {
        config,
        key_ids,
        trusted,
    })
}

/// Verifies an envelope under `trust` (no version rule) as an offer under that trust is
/// verified: signatures, validation, the rotation and no-removal rules of `trust`. What
/// `linekit config verify` reports. `wall_now_s` checks `expires_at` when given.
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
    let v = verified(text, Some(trust))?;
    if let Some(now) = wall_now_s {
        check_expiry(&v.config, true, now)?;
    }
    Ok(Accepted {
        config: v.config,
        key_ids: v.key_ids,
    })
}

/// Most rotations a persisted config's chain keeps (the oldest are dropped beyond it).
pub const MAX_CHAIN: usize = 8;

/// The trust a chain of accepted rotations leads to from the app's own trust `anchor`:
/// each link (a config text that changed trust when it was accepted) moves the trust on
/// only if it verifies under the trust reached so far, as its offer did (signed by the
/// current keys and by the keys it introduces), and is newer than the link before. A link
/// that does not is passed over, so the result is always reachable from the anchor by
/// signed rotations; with no anchor the first link is the trust an install introduced.
/// Returns the trust and the version of the last link used.
fn chain_trust(chain: &[String], anchor: Option<&TrustConfig>) -> (Option<TrustConfig>, u64) {
    let mut trust = active(anchor).cloned();
    let mut version = None;
    for link in chain {
        let Ok(v) = verified(link, trust.as_ref()) else {
            continue;
        };
        if version.is_some_and(|last| v.config.version <= last) {
            continue;
        }
        version = Some(v.config.version);
        if let Some(next) = active(v.config.trust.as_ref()) {
            trust = Some(next.clone());
        }
    }
    (trust, version.unwrap_or(0))
}

/// Opens the persisted last good config at start-up. It must verify under the trust its
/// `chain` of rotations leads to from the app's own trust (`anchor`; see
/// [`chain_trust`]), exactly as an offer under that trust would (signatures, validation,
/// no removal of trust), be no older than the chain's last link, and not be past
/// `expires_at` (reason `expired`): an expired config is never trusted again after a
/// restart. Without an anchor a config that names trust must verify under it.
pub fn open_persisted(
    text: &str,
    chain: &[String],
    anchor: Option<&TrustConfig>,
    wall_now_s: u64,
) -> Result<Config, Rejection> {
    let (trust, chain_version) = chain_trust(chain, anchor);
    let v = verified(text, trust.as_ref()).map_err(|r| match active(anchor) {
        Some(_) => Rejection::new(
            r.reason,
            format!("not vouched for by the app's own trust: {}", r.detail),
        ),
        None => r,
    })?;
    if v.config.version < chain_version {
        return Err(Rejection::new(
            ConfigReason::NotNewer,
            format!(
                "version {} is older than its own chain (version {chain_version})",
                v.config.version
            ),
        ));
    }
    check_expiry(&v.config, v.trusted, wall_now_s)?;
    Ok(v.config)
}
