//! Shared helpers for the signed-config tests: deterministic keys, trust sections and
//! envelopes built with the library's own signer.

#![allow(dead_code)]

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::SigningKey;
use linekit_core::config::envelope::Envelope;

/// Wall clock of the tests (unix seconds): 2023-11-14.
pub const NOW_S: u64 = 1_700_000_000;
/// An `expires_at` well after [`NOW_S`].
pub const LATER_S: u64 = NOW_S + 86_400;

/// A deterministic key.
pub fn key(n: u8) -> SigningKey {
    SigningKey::from_bytes(&[n; 32])
}

/// Base64 of a key's public half.
pub fn public(k: &SigningKey) -> String {
    STANDARD.encode(k.verifying_key().to_bytes())
}

/// A `trust` section over `keys` (id, key).
pub fn trust(keys: &[(&str, &SigningKey)], threshold: u32) -> String {
    let keys: Vec<String> = keys
        .iter()
        .map(|(id, k)| format!(r#"{{"id":"{id}","ed25519":"{}"}}"#, public(k)))
        .collect();
    format!(r#"{{"keys":[{}],"threshold":{threshold}}}"#, keys.join(","))
}

/// A config of `version` with one business line and `extra` top-level fields.
pub fn config(version: u64, extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(
        r#"{{"version":{version},"biz_lines":{{"spot":{{"match":["api.example.com"],"http":[{{"id":"a","url":"https://spot-a.example.com"}}]}}}},"thresholds":{{"startup_detect_delay_ms":1000,"revive_interval_ms":100000000,"detect_cooldown_ms":100000000}}{sep}{extra}}}"#
    )
}

/// A config under trust `trust_json`, expiring at `expires_at`.
pub fn trusted_config(version: u64, trust_json: &str, expires_at: u64, extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    config(
        version,
        &format!(r#""trust":{trust_json},"expires_at":{expires_at}{sep}{extra}"#),
    )
}

/// An envelope over `text` signed by each (id, key).
pub fn envelope(text: &str, signers: &[(&str, &SigningKey)]) -> String {
    let mut env = Envelope {
        signed: text.as_bytes().to_vec(),
        signatures: Vec::new(),
    };
    for (id, k) in signers {
        env.sign(id, k);
    }
    env.to_json()
}
