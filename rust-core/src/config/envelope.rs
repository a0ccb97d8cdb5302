//! The signed envelope a config server serves when `trust` is set:
//!
//! ```json
//! { "signed": "<standard padded base64 of the exact config JSON bytes>",
//!   "signatures": [ {"key_id": "k2026", "sig": "<base64 64-byte Ed25519 signature>"} ] }
//! ```
//!
//! Signatures cover the decoded `signed` bytes exactly (RFC 8032 Ed25519, pure, no
//! prehash), so no JSON canonicalisation is involved: whatever bytes the signer had are
//! what the engine verifies and then parses. [`Envelope::parse`] checks only the shape (a
//! `key_id` that is no valid key id, over 64 bytes say, is malformed: it is never
//! shortened into another id); [`Envelope::parse_text`] also refuses a repeated JSON key.
//! [`Envelope::verify`] checks each signature with `verify_strict` (no small-order key or
//! signature point) and counts the distinct trusted *keys* with a valid signature against
//! the threshold, so one key listed under two ids is one signer. Both report a
//! [`Rejection`] with a stable [`ConfigReason`] code.

use super::json::{self, JsonError};
use super::trust::{key_id_problem, TrustSet};
use crate::trace::reason::ConfigReason;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey};
use serde_json::{json, Value};
use std::fmt;

/// Most signatures one envelope may carry.
pub const MAX_SIGNATURES: usize = 16;

/// Why a remote config was not applied: a stable code plus a short detail (never config
/// content or keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The reason code.
    pub reason: ConfigReason,
    /// What exactly was wrong.
    pub detail: String,
}

impl Rejection {
    /// A rejection with `reason` and `detail`.
    pub fn new(reason: ConfigReason, detail: impl Into<String>) -> Self {
        Rejection {
            reason,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)
    }
}

impl std::error::Error for Rejection {}

/// One signature of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeSignature {
    /// The key id it claims.
    pub key_id: String,
    /// The 64 signature bytes.
    pub sig: [u8; 64],
}

/// A parsed (not yet verified) envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The exact bytes that were signed (the config JSON).
    pub signed: Vec<u8>,
    /// Its signatures, in document order.
    pub signatures: Vec<EnvelopeSignature>,
}

fn malformed(detail: impl Into<String>) -> Rejection {
    Rejection::new(ConfigReason::Malformed, detail)
}

impl Envelope {
    /// Whether a JSON document has the envelope's shape (an object with `signed`).
    pub fn is_envelope(value: &Value) -> bool {
        value.as_object().is_some_and(|o| o.contains_key("signed"))
    }

    /// Parses an envelope document (see the module docs for the shape).
    pub fn parse(value: &Value) -> Result<Envelope, Rejection> {
        let o = value
            .as_object()
            .ok_or_else(|| malformed("envelope must be a JSON object"))?;
        let signed = o
            .get("signed")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("signed: expected a base64 string"))?;
        let signed = STANDARD
            .decode(signed)
            .map_err(|_| malformed("signed: not standard padded base64"))?;
        let items = match o.get("signatures") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => return Err(malformed("signatures: expected an array")),
        };
        if items.len() > MAX_SIGNATURES {
            return Err(malformed(format!(
                "signatures: at most {MAX_SIGNATURES} are accepted"
            )));
        }
        let mut signatures = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key_id = item
                .get("key_id")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed(format!("signatures[{i}].key_id: expected a string")))?;
            if let Some(why) = key_id_problem(key_id) {
                return Err(malformed(format!("signatures[{i}].key_id: {why}")));
            }
            let sig = item
                .get("sig")
                .and_then(Value::as_str)
                .and_then(|s| STANDARD.decode(s).ok())
                .and_then(|b| <[u8; 64]>::try_from(b.as_slice()).ok())
                .ok_or_else(|| {
                    malformed(format!("signatures[{i}].sig: expected base64 of 64 bytes"))
                })?;
            signatures.push(EnvelopeSignature {
                key_id: key_id.to_string(),
                sig,
            });
        }
        Ok(Envelope { signed, signatures })
    }

    /// Parses envelope text (strict JSON: a repeated key is malformed).
    pub fn parse_text(text: &str) -> Result<Envelope, Rejection> {
        Self::parse(&parse_document(text)?)
    }

    /// Verifies the signatures under `trust`; returns the key ids whose signatures are
    /// valid, one per distinct key (the first id that key signed under), sorted: at least
    /// the threshold of them.
    ///
    /// With fewer than the threshold: `unsigned` when there is no signature at all,
    /// `bad_signature` when a trusted key's signature fails (tampering), `unknown_key`
    /// when every signature names an untrusted key, else `below_threshold`.
    pub fn verify(&self, trust: &TrustSet) -> Result<Vec<String>, Rejection> {
        if self.signatures.is_empty() {
            return Err(Rejection::new(
                ConfigReason::Unsigned,
                "the envelope carries no signature",
            ));
        }
        // Distinct key and the first id it signed under (a few signatures: a list).
        let mut valid: Vec<([u8; 32], &str)> = Vec::new();
        let mut bad = 0usize;
        let mut unknown = 0usize;
        for s in &self.signatures {
            match trust.key(&s.key_id) {
                None => unknown += 1,
                Some(key) => {
                    if key
                        .verify_strict(&self.signed, &Signature::from_bytes(&s.sig))
                        .is_ok()
                    {
                        let bytes = TrustSet::distinct(key);
                        if !valid.iter().any(|(b, _)| *b == bytes) {
                            valid.push((bytes, &s.key_id));
                        }
                    } else {
                        bad += 1;
                    }
                }
            }
        }
        if valid.len() >= trust.threshold() {
            // Distinct keys have distinct ids (an id names one key): sorting is all.
            let mut ids: Vec<&str> = valid.into_iter().map(|(_, id)| id).collect();
            ids.sort_unstable();
            return Ok(ids.into_iter().map(str::to_string).collect());
        }
        let have = valid.len();
        let need = trust.threshold();
        Err(if bad > 0 {
            Rejection::new(
                ConfigReason::BadSignature,
                format!("{bad} signature(s) by trusted keys do not verify"),
            )
        } else if have == 0 && unknown > 0 {
            Rejection::new(
                ConfigReason::UnknownKey,
                "no signature is by a trusted key id",
            )
        } else {
            Rejection::new(
                ConfigReason::BelowThreshold,
                format!("{have} distinct trusted signature(s), {need} required"),
            )
        })
    }

    /// The envelope as JSON text.
    pub fn to_json(&self) -> String {
        json!({
            "signed": STANDARD.encode(&self.signed),
            "signatures": self.signatures.iter().map(|s| json!({
                "key_id": s.key_id,
                "sig": STANDARD.encode(s.sig),
            })).collect::<Vec<_>>(),
        })
        .to_string()
    }

    /// Adds a signature by `key` under `key_id` over the signed bytes.
    pub fn sign(&mut self, key_id: &str, key: &SigningKey) {
        let sig = key.sign(&self.signed).to_bytes();
        self.signatures.retain(|s| s.key_id != key_id);
        self.signatures.push(EnvelopeSignature {
            key_id: key_id.to_string(),
            sig,
        });
    }
}

/// Parses a document that may be an envelope: strict JSON (see `config::json`), its
/// errors as `malformed` with the path of a repeated key.
pub(crate) fn parse_document(text: &str) -> Result<Value, Rejection> {
    json::parse(text).map_err(|e| match e {
        JsonError::DuplicateKey(path) => {
            malformed(format!("envelope: {path}: {}", json::DUPLICATE_KEY))
        }
        JsonError::Syntax(_) => malformed("envelope is not valid JSON"),
    })
}

/// Decodes a signing key: standard base64 of the 32-byte seed, or a `keygen` JSON
/// document holding it under `private_key`.
pub fn decode_signing_key(text: &str) -> Result<SigningKey, String> {
    let text = text.trim();
    let b64 = if text.starts_with('{') {
        let v: Value = serde_json::from_str(text).map_err(|_| "key file is not valid JSON")?;
        v.get("private_key")
            .and_then(Value::as_str)
            .ok_or("key file has no `private_key` string")?
            .to_string()
    } else {
        text.to_string()
    };
    let bytes = STANDARD
        .decode(b64.trim())
        .map_err(|_| "private key is not standard base64")?;
    let seed: [u8; 32] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| format!("private key must be 32 bytes, found {}", bytes.len()))?;
    Ok(SigningKey::from_bytes(&seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::trust::{TrustConfig, TrustKey};

    fn key(n: u8) -> SigningKey {
        SigningKey::from_bytes(&[n; 32])
    }

    fn trust(keys: &[(&str, &SigningKey)], threshold: u32) -> TrustSet {
        TrustSet::new(&TrustConfig {
            keys: keys
                .iter()
                .map(|(id, k)| TrustKey {
                    id: id.to_string(),
                    ed25519: STANDARD.encode(k.verifying_key().to_bytes()),
                })
                .collect(),
            threshold,
        })
    }

    #[test]
    fn one_key_signing_twice_never_meets_a_threshold_of_two() {
        let (a, b) = (key(1), key(2));
        let mut env = Envelope {
            signed: b"{}".to_vec(),
            signatures: vec![],
        };
        env.sign("a", &a);
        let dup = env.signatures[0].clone();
        env.signatures.push(dup);
        let set = trust(&[("a", &a), ("b", &b)], 2);
        assert_eq!(
            env.verify(&set).unwrap_err().reason,
            ConfigReason::BelowThreshold
        );
        env.sign("b", &b);
        assert_eq!(env.verify(&set).unwrap(), vec!["a", "b"]);
    }

    #[test]
    fn envelope_round_trips_through_json() {
        let mut env = Envelope {
            signed: b"{\"version\":1}".to_vec(),
            signatures: vec![],
        };
        env.sign("k", &key(3));
        assert_eq!(Envelope::parse_text(&env.to_json()).unwrap(), env);
    }
}
