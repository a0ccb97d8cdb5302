//! The `trust` section: the Ed25519 public keys a remote config must be signed with, and
//! how many of them must agree (`threshold`).
//!
//! The keys come from the config in force, so the app's own config (sealed asset or
//! `configJson`) is the root of trust and every accepted remote config names the keys for
//! the next one: a rotation is a config that lists new keys and is signed by the current
//! ones. [`TrustSet`] is the decoded form used to verify envelopes; it counts signatures by
//! *distinct key*, compared by its bytes, so neither one key signing twice nor one key
//! listed under two ids ever meets a threshold of two.
//!
//! A key is only trusted when [`decode_key`] accepts it: 32 bytes that are the canonical
//! encoding of a curve point (re-encoding the point gives the same bytes) and not of a
//! small-order point. A small-order key, the all-zero placeholder among them, lets anyone
//! forge a signature that plain RFC 8032 verification accepts, so such a key is refused
//! where it is written (validation, `linekit config check`), and signatures are checked
//! with `verify_strict`, which refuses small-order keys and signature points too.
use super::decode::Decode;
use super::rules::Findings;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use smart_default::SmartDefault;

/// Most keys one trust section may list.
pub const MAX_KEYS: usize = 16;
/// Most characters of a key id, in a trust section and in a signature alike.
pub const MAX_KEY_ID_LEN: usize = 64;

/// What is wrong with a key id, if anything: 1 to [`MAX_KEY_ID_LEN`] characters, no
/// control character. An envelope's `key_id` obeys the same rule (it is refused, never
/// shortened into another id).
pub fn key_id_problem(id: &str) -> Option<&'static str> {
    (id.is_empty() || id.chars().count() > MAX_KEY_ID_LEN || id.chars().any(char::is_control))
        .then_some("must be 1 to 64 printable characters")
}

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

/// Decoded trusted keys, by id.
#[derive(Debug, Clone)]
pub struct TrustSet {
    /// `(id, key)` in listed order: at most [`MAX_KEYS`], so a list searched in place
    /// (a map would add its own code to the library for nothing).
    keys: Vec<(String, VerifyingKey)>,
    threshold: usize,
}

impl TrustSet {
    /// Decodes a (validated) trust section; keys that [`decode_key`] refuses are left out,
    /// so a broken or weak key can only make verification fail, never pass. Signatures
    /// are counted per distinct key ([`TrustSet::distinct`]), so a key listed twice counts
    /// once whatever validation said.
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

    /// The key with id `id` (the last listed under it, should validation have let an id
    /// through twice).
    pub fn key(&self, id: &str) -> Option<&VerifyingKey> {
        self.keys
            .iter()
            .rev()
            .find(|(k, _)| k == id)
            .map(|(_, key)| key)
    }

    /// Distinct valid signatures needed.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// Whether any key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// What a signature by `key` counts as toward the threshold: the key's bytes, so two
    /// ids of one key are one signer.
    pub fn distinct(key: &VerifyingKey) -> [u8; 32] {
        key.to_bytes()
    }
}

/// Decodes a standard-base64 32-byte Ed25519 public key, refusing bytes that are no curve
/// point, a non-canonical encoding of one (y not below the field prime, or the sign of a
/// zero x set) and a small-order point (see the module docs).
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

/// The trust of a document: a config's `trust` (the whole config validated) or a bare
/// `{"keys":[..],"threshold":N}` (validated as a section). Strict JSON either way; the
/// errors carry field paths. What `linekit config verify --trust FILE` reads.
pub fn trust_document(text: &str) -> crate::Result<TrustConfig> {
    let value = super::json::parse(text).map_err(super::validate::json_error)?;
    if value.get("trust").is_some() {
        let config = super::validate::parse_config(text)?;
        return Ok(config.trust.unwrap_or_default());
    }
    let trust: TrustConfig = serde_json::from_value(value).map_err(|e| {
        crate::Error::InvalidConfig(vec![crate::error::FieldError::new(
            "",
            format!("not a trust section: {e}"),
        )])
    })?;
    validate_section(&trust)?;
    Ok(trust)
}

/// Checks a trust section on its own (keys and threshold, not `expires_at`): what
/// `linekit config verify` applies to a bare trust document. Errors carry paths below
/// `trust`.
pub fn validate_section(trust: &TrustConfig) -> crate::Result<()> {
    let mut f = Findings::default();
    check_section(trust, &mut f);
    let errors = f.into_errors();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(crate::Error::InvalidConfig(errors))
    }
}

/// The semantic rules of `trust` and of `expires_at` next to it.
pub(crate) fn check(trust: &TrustConfig, expires_at: Option<u64>, f: &mut Findings) {
    check_section(trust, f);
    if trust.is_active() && expires_at.is_none() && !f.dirty("expires_at") {
        f.rule("expires_at", "required when trust lists keys");
    }
}

/// The rules of the section itself: ids, keys (each valid, none listed twice) and the
/// threshold.
fn check_section(trust: &TrustConfig, f: &mut Findings) {
    if trust.keys.len() > MAX_KEYS {
        f.rule("trust.keys", format!("at most {MAX_KEYS} keys"));
    }
    // At most MAX_KEYS entries: a linear search each is cheaper in code than a map.
    let mut ids: Vec<&str> = Vec::with_capacity(trust.keys.len());
    let mut keys: Vec<([u8; 32], usize)> = Vec::with_capacity(trust.keys.len());
    for (i, key) in trust.keys.iter().enumerate() {
        let path = format!("trust.keys[{i}]");
        if let Some(why) = key_id_problem(&key.id) {
            f.rule(&format!("{path}.id"), why);
        } else if ids.contains(&key.id.as_str()) {
            f.rule(&format!("{path}.id"), "key id is listed twice");
        } else {
            ids.push(&key.id);
        }
        match decode_key(&key.ed25519) {
            Err(why) => f.rule(&format!("{path}.ed25519"), why),
            Ok(k) => {
                let bytes = TrustSet::distinct(&k);
                let first = match keys.iter().find(|(b, _)| *b == bytes) {
                    Some(&(_, first)) => first,
                    None => {
                        keys.push((bytes, i));
                        i
                    }
                };
                if first != i {
                    f.rule(
                        &format!("{path}.ed25519"),
                        format!("the same key as trust.keys[{first}], listed under another id"),
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
}
