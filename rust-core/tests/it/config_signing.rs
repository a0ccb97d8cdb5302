//! Signed remote configs: Ed25519 against RFC 8032 and OpenSSL, the acceptance rule
//! (threshold of distinct trusted key ids, rollback, freeze, rotation) with one reason
//! code per rejection, and the path-qualified validation of `remote`, `trust` and
//! `expires_at`.

use crate::support;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signer, SigningKey, Verifier};
use linekit_core::config::accept::{check_remote, open_persisted, verify_envelope};
use linekit_core::config::envelope::Envelope;
use linekit_core::config::trust::TrustConfig;
use linekit_core::config::{parse_config, Config};
use linekit_core::trace::reason::ConfigReason;
use linekit_core::Error;
use support::signing::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// RFC 8032 section 7.1, TEST 1 to TEST 3.
const RFC8032: [(&str, &str, &str, &str); 3] = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
];

#[test]
fn rfc8032_test_vectors_sign_and_verify() {
    for (secret, public_hex, msg, sig) in RFC8032 {
        let key = SigningKey::from_bytes(&hex(secret).try_into().unwrap());
        assert_eq!(key.verifying_key().to_bytes().to_vec(), hex(public_hex));
        let signature = key.sign(&hex(msg));
        assert_eq!(signature.to_bytes().to_vec(), hex(sig));
        assert!(key.verifying_key().verify(&hex(msg), &signature).is_ok());
        // Through the envelope and trust code the engine uses.
        let trust: TrustConfig = serde_json::from_str(&format!(
            r#"{{"keys":[{{"id":"rfc","ed25519":"{}"}}],"threshold":1}}"#,
            STANDARD.encode(hex(public_hex))
        ))
        .unwrap();
        let env = Envelope {
            signed: hex(msg),
            signatures: vec![linekit_core::config::envelope::EnvelopeSignature {
                key_id: "rfc".into(),
                sig: hex(sig).try_into().unwrap(),
            }],
        };
        let set = linekit_core::config::trust::TrustSet::new(&trust);
        assert_eq!(env.verify(&set).unwrap(), vec!["rfc"]);
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/signing/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn fixture_trust() -> TrustConfig {
    serde_json::from_str(&fixture("trust.json")).unwrap()
}

#[test]
fn a_config_signed_by_openssl_verifies() {
    let env = fixture("envelope.openssl.json");
    let accepted = verify_envelope(&env, &fixture_trust(), Some(NOW_S)).unwrap();
    assert_eq!(accepted.config.version, 7);
    assert_eq!(accepted.key_ids, vec!["openssl"]);
    // The signed bytes are exactly the config file OpenSSL signed.
    let parsed = Envelope::parse_text(&env).unwrap();
    assert_eq!(parsed.signed, fixture("config.json").into_bytes());
}

#[test]
fn a_config_signed_by_python_cryptography_verifies() {
    let trust: TrustConfig = serde_json::from_str(&fixture("trust.python.json")).unwrap();
    let env = fixture("envelope.python.json");
    let accepted = verify_envelope(&env, &trust, Some(NOW_S)).unwrap();
    assert_eq!(
        (accepted.config.version, accepted.key_ids),
        (8, vec!["python".to_string()])
    );
    // The OpenSSL key does not vouch for it, nor the Python key for OpenSSL's.
    let r = verify_envelope(&env, &fixture_trust(), Some(NOW_S)).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey);
    let r = verify_envelope(&fixture("envelope.openssl.json"), &trust, Some(NOW_S)).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey);
}

#[test]
fn one_byte_changed_anywhere_in_the_openssl_envelope_fails() {
    let env = fixture("envelope.openssl.json").into_bytes();
    let trust = fixture_trust();
    for i in 0..env.len() {
        for flip in [0x01u8] {
            let mut bad = env.clone();
            bad[i] ^= flip;
            let Ok(text) = String::from_utf8(bad) else {
                continue;
            };
            assert!(
                verify_envelope(&text, &trust, Some(NOW_S)).is_err(),
                "byte {i} ^ {flip:#x} still verifies"
            );
        }
    }
    // And in the signed bytes and the signature themselves, after decoding.
    let parsed = Envelope::parse_text(&fixture("envelope.openssl.json")).unwrap();
    let set = linekit_core::config::trust::TrustSet::new(&trust);
    for i in 0..parsed.signed.len() {
        let mut bad = parsed.clone();
        bad.signed[i] ^= 0x01;
        assert_eq!(
            bad.verify(&set).unwrap_err().reason,
            ConfigReason::BadSignature,
            "signed byte {i}"
        );
    }
    for i in 0..64 {
        let mut bad = parsed.clone();
        bad.signatures[0].sig[i] ^= 0x80;
        assert_eq!(
            bad.verify(&set).unwrap_err().reason,
            ConfigReason::BadSignature,
            "signature byte {i}"
        );
    }
}

/// The config in force: trust over key 1 (id `k1`), version 10.
fn current() -> Config {
    let k1 = key(1);
    parse_config(&trusted_config(10, &trust(&[("k1", &k1)], 1), LATER_S, "")).unwrap()
}

fn reason(text: &str, current: &Config) -> ConfigReason {
    check_remote(text, current, NOW_S).unwrap_err().reason
}

#[test]
fn a_newer_config_signed_by_a_trusted_key_applies() {
    let k1 = key(1);
    let next = trusted_config(11, &trust(&[("k1", &k1)], 1), LATER_S, "");
    let accepted = check_remote(&envelope(&next, &[("k1", &k1)]), &current(), NOW_S).unwrap();
    assert_eq!(accepted.config.version, 11);
    assert_eq!(accepted.key_ids, vec!["k1"]);
}

#[test]
fn every_rejection_has_its_reason_code() {
    let (k1, k2) = (key(1), key(2));
    let t1 = trust(&[("k1", &k1)], 1);
    let next = trusted_config(11, &t1, LATER_S, "");
    let cur = current();
    // unsigned: a bare config, or an envelope without signatures.
    assert_eq!(reason(&next, &cur), ConfigReason::Unsigned);
    assert_eq!(reason(&envelope(&next, &[]), &cur), ConfigReason::Unsigned);
    // bad_signature: signed by another key under the trusted id.
    assert_eq!(
        reason(&envelope(&next, &[("k1", &k2)]), &cur),
        ConfigReason::BadSignature
    );
    // bad_signature: the signed bytes were changed after signing.
    let mut tampered = Envelope::parse_text(&envelope(&next, &[("k1", &k1)])).unwrap();
    tampered.signed = next.replace("spot-a", "evil-a").into_bytes();
    assert_eq!(
        reason(&tampered.to_json(), &cur),
        ConfigReason::BadSignature
    );
    // unknown_key
    assert_eq!(
        reason(&envelope(&next, &[("k9", &k2)]), &cur),
        ConfigReason::UnknownKey
    );
    // below_threshold: threshold 2 with one distinct trusted key (twice).
    let two = parse_config(&trusted_config(
        10,
        &trust(&[("k1", &k1), ("k2", &k2)], 2),
        LATER_S,
        "",
    ))
    .unwrap();
    let mut twice = Envelope::parse_text(&envelope(&next, &[("k1", &k1)])).unwrap();
    twice.signatures.push(twice.signatures[0].clone());
    assert_eq!(reason(&twice.to_json(), &two), ConfigReason::BelowThreshold);
    assert!(check_remote(&envelope(&next, &[("k1", &k1), ("k2", &k2)]), &two, NOW_S).is_ok());
    // expired / missing expiry
    let stale = trusted_config(11, &t1, NOW_S, "");
    assert_eq!(
        reason(&envelope(&stale, &[("k1", &k1)]), &cur),
        ConfigReason::Expired
    );
    let no_expiry = config(11, &format!(r#""trust":{t1}"#));
    let r = check_remote(&envelope(&no_expiry, &[("k1", &k1)]), &cur, NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::Invalid);
    assert!(r.detail.contains("expires_at"), "{}", r.detail);
    // not_newer: the same version and a rollback.
    for v in [10, 3] {
        let old = trusted_config(v, &t1, LATER_S, "");
        assert_eq!(
            reason(&envelope(&old, &[("k1", &k1)]), &cur),
            ConfigReason::NotNewer
        );
    }
    // malformed
    for bad in [
        "not json",
        r#"{"signed": 5}"#,
        r#"{"signed": "***", "signatures": []}"#,
        r#"{"signed": "e30=", "signatures": [{"key_id": "k1", "sig": "AAAA"}]}"#,
        r#"{"signed": "e30=", "signatures": {}}"#,
        "[1]",
    ] {
        assert_eq!(reason(bad, &cur), ConfigReason::Malformed, "{bad}");
    }
    // oversize
    let huge = format!(r#"{{"signed":"{}"}}"#, "A".repeat(300 * 1024));
    assert_eq!(reason(&huge, &cur), ConfigReason::Oversize);
    // invalid: signed, but the config inside fails validation (with its path).
    let broken = trusted_config(11, &t1, LATER_S, r#""trace":{"sample_rate":7}"#);
    let r = check_remote(&envelope(&broken, &[("k1", &k1)]), &cur, NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::Invalid);
    assert!(r.detail.contains("trace.sample_rate"), "{}", r.detail);
    // Every reason renders as "code: detail".
    assert!(r.to_string().starts_with("invalid: "));
}

#[test]
fn rotation_applies_only_when_signed_by_the_current_keys_and_the_new_ones() {
    let (k1, k2) = (key(1), key(2));
    let rotated = trusted_config(11, &trust(&[("k2", &k2)], 1), LATER_S, "");
    // Signed by the new key only: the current trust does not know it.
    assert_eq!(
        reason(&envelope(&rotated, &[("k2", &k2)]), &current()),
        ConfigReason::UnknownKey
    );
    // Signed by the current key only: the new trust would not vouch for it after a restart.
    let r = check_remote(&envelope(&rotated, &[("k1", &k1)]), &current(), NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey);
    assert!(
        r.detail.contains("under the trust it introduces"),
        "{}",
        r.detail
    );
    // Signed by both: accepted, and from then on k2 is the trust.
    let both = envelope(&rotated, &[("k1", &k1), ("k2", &k2)]);
    let accepted = check_remote(&both, &current(), NOW_S).unwrap();
    assert_eq!(accepted.key_ids, vec!["k1"]);
    // It opens under its own trust later, whatever the app's own config trusts.
    assert!(open_persisted(&both, &[], None, NOW_S).is_ok());
    let after = accepted.config;
    let next = trusted_config(12, &trust(&[("k2", &k2)], 1), LATER_S, "");
    assert!(check_remote(&envelope(&next, &[("k2", &k2)]), &after, NOW_S).is_ok());
    assert_eq!(
        reason(&envelope(&next, &[("k1", &k1)]), &after),
        ConfigReason::UnknownKey
    );
}

#[test]
fn without_trust_bare_configs_apply_and_introducing_trust_needs_its_own_signature() {
    let cur = parse_config(&config(1, "")).unwrap();
    assert!(check_remote(&config(2, ""), &cur, NOW_S).is_ok());
    let k1 = key(1);
    let introducing = trusted_config(2, &trust(&[("k1", &k1)], 1), LATER_S, "");
    assert_eq!(reason(&introducing, &cur), ConfigReason::Unsigned);
    assert_eq!(
        reason(&envelope(&introducing, &[("k1", &key(3))]), &cur),
        ConfigReason::BadSignature
    );
    assert!(check_remote(&envelope(&introducing, &[("k1", &k1)]), &cur, NOW_S).is_ok());
}

#[test]
fn a_persisted_config_past_its_expiry_is_refused_with_expired() {
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let doc = envelope(&trusted_config(5, &t1, NOW_S + 10, ""), &[("k1", &k1)]);
    assert!(open_persisted(&doc, &[], None, NOW_S).is_ok());
    let r = open_persisted(&doc, &[], None, NOW_S + 10).unwrap_err();
    assert_eq!(r.reason, ConfigReason::Expired);
    // Unsigned while the app's own config has trust.
    let anchor: TrustConfig = serde_json::from_str(&t1).unwrap();
    let bare = config(5, "");
    assert_eq!(
        open_persisted(&bare, &[], Some(&anchor), NOW_S)
            .unwrap_err()
            .reason,
        ConfigReason::Unsigned
    );
}

fn errors(text: &str) -> Vec<(String, String)> {
    match parse_config(text) {
        Err(Error::InvalidConfig(list)) => list.into_iter().map(|e| (e.path, e.error)).collect(),
        other => panic!("expected field errors, got {other:?}"),
    }
}

fn paths(text: &str) -> Vec<String> {
    errors(text).into_iter().map(|(p, _)| p).collect()
}

#[test]
fn remote_trust_and_expiry_fields_are_validated_with_paths() {
    let k1 = key(1);
    assert_eq!(
        paths(&config(
            1,
            r#""remote":{"urls":["ftp://x", "http://cfg.example.com/a", 3],"interval_s":10,"jitter_s":20,"timeout_ms":0}"#
        )),
        [
            "remote.interval_s",
            "remote.jitter_s",
            "remote.timeout_ms",
            "remote.urls[0]",
            "remote.urls[1]",
            "remote.urls[2]",
        ]
    );
    assert_eq!(
        paths(&config(1, r#""remote":{"urls":[]}"#)),
        ["remote.urls"]
    );
    assert_eq!(
        paths(&config(
            1,
            &format!(
                r#""expires_at":-1,"trust":{{"keys":[{{"id":"a","ed25519":"{}"}},{{"id":"a","ed25519":"AAAA"}},{{"ed25519":5}}],"threshold":9}}"#,
                public(&k1)
            )
        )),
        [
            "expires_at",
            "trust.keys[1].ed25519",
            "trust.keys[1].id",
            "trust.keys[2].ed25519",
            "trust.keys[2].id",
            "trust.threshold",
        ]
    );
    assert_eq!(
        paths(&config(
            1,
            &format!(r#""trust":{}"#, trust(&[("k1", &k1)], 1))
        )),
        ["expires_at"]
    );
    // A valid remote + trust section parses, with defaults for omitted fields.
    let ok = parse_config(&trusted_config(
        1,
        &trust(&[("k1", &k1)], 1),
        LATER_S,
        r#""remote":{"urls":["https://cfg.example.com/lk.json"]}"#,
    ))
    .unwrap();
    let remote = ok.remote.unwrap();
    assert_eq!(
        (remote.interval_s, remote.jitter_s, remote.timeout_ms),
        (1800, 300, 5000)
    );
}

#[test]
fn switch_interval_zero_is_valid() {
    let doc = r#"{"version":1,"thresholds":{"switch_interval_ms":0},"biz_lines":{"spot":{"http":[{"id":"a","url":"https://a.example.com"}]}}}"#;
    assert_eq!(parse_config(doc).unwrap().thresholds.switch_interval_ms, 0);
}
