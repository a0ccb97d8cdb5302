//! Fuzzes trust key decoding and envelope verification, seeded with the small-order and
//! non-canonical Ed25519 encodings (`seeds/trust_keys/`).
//!
//! The input is read three ways:
//! - its first 32 bytes as a public key: a key [`decode_key`] accepts must be the canonical
//!   encoding of a point of large order; one it refuses must leave a trust set empty;
//! - for an accepted key, the rest as a signature and message, and as the forgeries that
//!   need no private key (each small-order `R` with `S = 0`): listed under two ids, one key
//!   never meets a threshold of two, and no forgery ever verifies;
//! - the whole input as text: a trust document that decodes holds only accepted keys, and
//!   an envelope that parses has valid key ids and survives a round trip.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use linekit_core::config::envelope::{Envelope, EnvelopeSignature};
use linekit_core::config::trust::{
    decode_key, key_id_problem, trust_document, TrustConfig, TrustKey, TrustSet,
};

#[path = "../../tests/support/ed25519_points.rs"]
mod ed25519_points;

fn set(b64: &str, ids: &[&str], threshold: u32) -> TrustSet {
    TrustSet::new(&TrustConfig {
        keys: ids
            .iter()
            .map(|id| TrustKey {
                id: id.to_string(),
                ed25519: b64.to_string(),
            })
            .collect(),
        threshold,
    })
}

/// Trust key decoding and envelope verification: see the module docs.
pub fn trust_keys(data: &[u8]) {
    if let Some(raw) = data.get(..32) {
        let raw: [u8; 32] = raw.try_into().expect("32 bytes");
        let b64 = STANDARD.encode(raw);
        match decode_key(&b64) {
            Ok(key) => {
                assert!(!key.is_weak(), "a small-order key was accepted");
                assert_eq!(
                    key.to_edwards().compress().to_bytes(),
                    raw,
                    "a non-canonical key was accepted"
                );
                let rest = &data[32..];
                let (sig, message) = match rest.get(..64) {
                    Some(sig) => (Some(<[u8; 64]>::try_from(sig).expect("64")), &rest[64..]),
                    None => (None, rest),
                };
                let mut candidates: Vec<[u8; 64]> = ed25519_points::small_order_points()
                    .iter()
                    .map(|r| {
                        let mut forged = [0u8; 64];
                        forged[..32].copy_from_slice(r);
                        forged
                    })
                    .collect();
                let forgeries = candidates.len();
                candidates.extend(sig);
                let twice = set(&b64, &["a", "b"], 2);
                let once = set(&b64, &["a"], 1);
                for (i, sig) in candidates.iter().enumerate() {
                    let env = Envelope {
                        signed: message.to_vec(),
                        signatures: ["a", "b"]
                            .iter()
                            .map(|id| EnvelopeSignature {
                                key_id: id.to_string(),
                                sig: *sig,
                            })
                            .collect(),
                    };
                    assert!(
                        env.verify(&twice).is_err(),
                        "one key under two ids met a threshold of two"
                    );
                    if i < forgeries {
                        assert!(env.verify(&once).is_err(), "a keyless forgery verified");
                    }
                }
            }
            Err(_) => assert!(set(&b64, &["a"], 1).is_empty(), "a refused key is trusted"),
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(trust) = trust_document(text) {
        for k in &trust.keys {
            let key = decode_key(&k.ed25519).expect("a validated trust holds valid keys");
            assert!(!key.is_weak());
            assert!(key_id_problem(&k.id).is_none());
        }
    }
    if let Ok(env) = Envelope::parse_text(text) {
        for s in &env.signatures {
            assert!(key_id_problem(&s.key_id).is_none(), "a bad key id was kept");
        }
        assert_eq!(
            Envelope::parse_text(&env.to_json()).expect("round trip"),
            env
        );
    }
}
