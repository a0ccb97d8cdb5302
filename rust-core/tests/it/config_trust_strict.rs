//! The signed channel, strict: weak and non-canonical trust keys refused, strict signature
//! checks, thresholds counted by distinct key, key ids never truncated, trust that a served
//! config cannot drop, and a newer sealed asset that outranks the persisted config.

use crate::support;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use linekit_core::config::accept::{check_remote, verify_envelope};
use linekit_core::config::envelope::{Envelope, EnvelopeSignature};
use linekit_core::config::trust::{decode_key, TrustConfig, TrustKey, TrustSet};
use linekit_core::config::{parse_config, resolve, seal, ConfigSource, ConfigSources};
use linekit_core::error::Error;
use linekit_core::trace::reason::ConfigReason;
use support::ed25519_points::{hex32, small_order_points};
use support::signing::*;

/// The eight small-order points ([`small_order_points`]) and two non-canonical encodings:
/// `y = p + 1` (the identity again) and the all-zero key with the sign bit set.
fn weak_and_non_canonical_keys() -> Vec<[u8; 32]> {
    let mut keys = small_order_points();
    keys.push(hex32(
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ));
    keys
}

/// An envelope any message can carry under the identity key: `R` is the identity and
/// `s = 0`, so `[s]B = R + [k]A` holds for every `k` without a private key.
fn forged(text: &str, key_id: &str) -> String {
    let mut sig = [0u8; 64];
    sig[0] = 1;
    Envelope {
        signed: text.as_bytes().to_vec(),
        signatures: vec![EnvelopeSignature {
            key_id: key_id.into(),
            sig,
        }],
    }
    .to_json()
}

fn identity_key() -> String {
    let mut raw = [0u8; 32];
    raw[0] = 1;
    STANDARD.encode(raw)
}

#[test]
fn weak_and_non_canonical_trust_keys_are_refused_with_their_path() {
    for raw in weak_and_non_canonical_keys() {
        let b64 = STANDARD.encode(raw);
        assert!(decode_key(&b64).is_err(), "{b64} decoded");
        let trust = format!(r#"{{"keys":[{{"id":"k","ed25519":"{b64}"}}],"threshold":1}}"#);
        let err = parse_config(&trusted_config(1, &trust, LATER_S, "")).unwrap_err();
        let Error::InvalidConfig(errors) = err else {
            panic!("{b64}: expected field errors")
        };
        assert!(
            errors.iter().any(|e| e.path == "trust.keys[0].ed25519"),
            "{b64}: {errors:?}"
        );
    }
    // A real key still decodes.
    assert!(decode_key(&public(&key(1))).is_ok());
}

#[test]
fn an_envelope_forged_for_the_identity_key_is_refused_by_the_engine_rule_and_config_verify() {
    let k1 = key(1);
    // A config in force whose trust lists the identity key, as a placeholder might (the
    // engine decodes trust through the same rule, so it can only fail closed).
    let mut current =
        parse_config(&trusted_config(10, &trust(&[("k1", &k1)], 1), LATER_S, "")).unwrap();
    let weak = TrustConfig {
        keys: vec![TrustKey {
            id: "zero".into(),
            ed25519: identity_key(),
        }],
        threshold: 1,
    };
    current.trust = Some(weak.clone());
    let evil = trusted_config(11, &trust(&[("k1", &k1)], 1), LATER_S, "");
    let envelope = forged(&evil, "zero");
    let r = check_remote(&envelope, &current, NOW_S).unwrap_err();
    assert_ne!(r.reason, ConfigReason::Malformed, "{r}");
    assert!(verify_envelope(&envelope, &weak, Some(NOW_S)).is_err());
}

#[test]
fn one_key_under_two_ids_never_meets_a_threshold_of_two() {
    let k1 = key(1);
    let twice = trust(&[("a", &k1), ("b", &k1)], 2);
    let err = parse_config(&trusted_config(1, &twice, LATER_S, "")).unwrap_err();
    let Error::InvalidConfig(errors) = err else {
        panic!("expected field errors")
    };
    assert!(
        errors
            .iter()
            .any(|e| e.path == "trust.keys[1].ed25519" && e.error.contains("another id")),
        "{errors:?}"
    );
    // Verification counts keys, not ids, even for a trust section that skipped validation.
    let set = TrustSet::new(&serde_json::from_str::<TrustConfig>(&twice).unwrap());
    let env = Envelope::parse_text(&envelope("{}", &[("a", &k1), ("b", &k1)])).unwrap();
    assert_eq!(
        env.verify(&set).unwrap_err().reason,
        ConfigReason::BelowThreshold
    );
}

#[test]
fn a_key_id_over_the_limit_is_refused_not_cut_to_a_trusted_one() {
    let k1 = key(1);
    let id = "k".repeat(64);
    let current = parse_config(&trusted_config(10, &trust(&[(&id, &k1)], 1), LATER_S, "")).unwrap();
    let next = trusted_config(11, &trust(&[(&id, &k1)], 1), LATER_S, "");
    let longer = format!("{id}-suffix");
    let r = check_remote(&envelope(&next, &[(&longer, &k1)]), &current, NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::Malformed, "{r}");
    assert!(check_remote(&envelope(&next, &[(&id, &k1)]), &current, NOW_S).is_ok());
}

#[test]
fn a_served_config_cannot_drop_trust_and_reopen_the_channel() {
    let k1 = key(1);
    let current =
        parse_config(&trusted_config(10, &trust(&[("k1", &k1)], 1), LATER_S, "")).unwrap();
    for dropped in [
        config(11, r#""expires_at":1700086400"#),
        trusted_config(11, r#"{"keys":[],"threshold":1}"#, LATER_S, ""),
    ] {
        let r = check_remote(&envelope(&dropped, &[("k1", &k1)]), &current, NOW_S).unwrap_err();
        assert_eq!(r.reason, ConfigReason::Invalid, "{r}");
        assert!(r.detail.contains("drop"), "{r}");
    }
    // The app's own config may still run without trust: it is not a served offer.
    assert!(parse_config(&config(11, "")).is_ok());
}

#[test]
fn a_newer_sealed_asset_outranks_the_persisted_config() {
    let key_bytes = [0x42u8; 32];
    let sources = |sealed_version: u64| ConfigSources {
        last_good: Some(config(5, "")),
        sealed: Some((
            seal(config(sealed_version, "").as_bytes(), &key_bytes).unwrap(),
            key_bytes.to_vec(),
        )),
        ..ConfigSources::default()
    };
    let newer = resolve(&sources(7));
    assert_eq!(newer.source, ConfigSource::Sealed);
    assert_eq!(newer.config.version, 7);
    assert_eq!(newer.skipped[0].0, ConfigSource::LastGood);
    assert!(newer.skipped[0].1.to_string().contains("sealed asset"));
    let older = resolve(&sources(3));
    assert_eq!(older.source, ConfigSource::LastGood);
    assert_eq!(older.config.version, 5);
}
