//! The `trust` section: the Ed25519 public keys a remote config must be signed with, and
//! how many of them must agree (`threshold`).
//!
//! The keys come from the config in force, so the app's own config (sealed asset or
//! `configJson`) is the root of trust and every accepted remote config names the keys for
//! the next one: a rotation is a config that lists new keys and is signed by the current
//! ones. [`TrustSet`] is the decoded form used to verify envelopes; it counts signatures by
//! *distinct key*, so one key signing twice, or listed under two ids, never meets a
//! threshold of two.
//!
//! A key is accepted only if it is a canonical encoding of a point outside the small-order
//! subgroup: with a small-order key (the all-zero placeholder is one) a signature can be
//! forged without any private key, and signatures are checked with `verify_strict`, which
//! refuses small-order `R` components and non-canonical encodings as well.

use super::decode::Decode;
use super::rules::Findings;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use smart_default::SmartDefault;
use std::collections::BTreeMap;

/// Most keys one trust section may list.
pub const MAX_KEYS: usize = 16;

/// The keys remote configs must be signed with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TrustConfig {
    /// Trusted public keys.
    pub keys: Vec<TrustKey>,
    /// Distinct trusted keys whose valid signatures a config needs.
    #[default(1)]
    pub threshold: u32,
}

/// One trusted public key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrustKey {
    /// Key id named by signatures (`key_id`).
    pub id: String,
    /// Standard base64 of the 32-byte Ed25519 public key.
    pub ed25519: String,
}

impl TrustConfig {
    /// Whether signatures are required at all (at least one key).
    pub fn is_active(&self) -> bool {
        !self.keys.is_empty()
    }
}

/// Most characters of a key id, in a trust section and in a signature alike.
pub const MAX_KEY_ID_LEN: usize = 64;

/// Decoded trusted keys, by id.
#[derive(Debug, Clone)]
pub struct TrustSet {
    keys: BTreeMap<String, VerifyingKey>,
    threshold: usize,
}

impl TrustSet {
    /// Decodes a (validated) trust section; keys that do not decode are left out, so a
    /// broken key can only make verification fail, never pass.
    pub fn new(trust: &TrustConfig) -> TrustSet {
        let keys = trust
            .keys
            .iter()
            .filter_map(|k| decode_key(&k.ed25519).ok().map(|v| (k.id.clone(), v)))
            .collect();
        TrustSet {
            keys,
            threshold: trust.threshold.max(1) as usize,
        }
    }

    /// The key with id `id`.
    pub fn key(&self, id: &str) -> Option<&VerifyingKey> {
        self.keys.get(id)
    }

    /// Distinct valid signatures needed.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// Whether any key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Decodes a standard-base64 32-byte Ed25519 public key, refusing encodings that are not
/// canonical (the point re-encodes to other bytes) and weak keys (small order).
pub fn decode_key(b64: &str) -> Result<VerifyingKey, String> {
    let bytes = STANDARD
        .decode(b64.trim())
        .map_err(|_| "not standard base64".to_string())?;
    let raw: [u8; 32] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| format!("expected 32 bytes, found {}", bytes.len()))?;
    let key =
        VerifyingKey::from_bytes(&raw).map_err(|_| "not a valid Ed25519 public key".to_string())?;
    if key.to_edwards().compress().to_bytes() != raw {
        return Err("not a canonical Ed25519 point encoding".to_string());
    }
    if key.is_weak() {
        return Err(
            "a weak Ed25519 key (small order): signatures under it can be forged".to_string(),
        );
    }
    Ok(key)
}

/// The semantic rules of `trust` and of `expires_at` next to it.
pub(crate) fn check(trust: &TrustConfig, expires_at: Option<u64>, f: &mut Findings) {
    if trust.keys.len() > MAX_KEYS {
        f.rule("trust.keys", format!("at most {MAX_KEYS} keys"));
    }
    let mut seen = std::collections::HashSet::new();
    let mut seen_keys = std::collections::HashSet::new();
    for (i, key) in trust.keys.iter().enumerate() {
        let path = format!("trust.keys[{i}]");
        if key.id.is_empty()
            || key.id.chars().count() > MAX_KEY_ID_LEN
            || key.id.chars().any(char::is_control)
        {
            f.rule(
                &format!("{path}.id"),
                format!("must be 1 to {MAX_KEY_ID_LEN} printable characters"),
            );
        } else if !seen.insert(key.id.as_str()) {
            f.rule(&format!("{path}.id"), "key id is listed twice");
        }
        match decode_key(&key.ed25519) {
            Err(why) => f.rule(&format!("{path}.ed25519"), why),
            Ok(decoded) => {
                if !seen_keys.insert(decoded.to_bytes()) {
                    f.rule(
                        &format!("{path}.ed25519"),
                        "the same key is listed under another id",
                    );
                }
            }
        }
    }
    if trust.threshold < 1 {
        f.rule("trust.threshold", "must be at least 1");
    } else if trust.is_active() && trust.threshold as usize > trust.keys.len() {
        f.rule(
            "trust.threshold",
            format!("must not exceed the number of keys ({})", trust.keys.len()),
        );
    }
    if trust.is_active() && expires_at.is_none() && !f.dirty("expires_at") {
        f.rule("expires_at", "required when trust lists keys");
    }
}
