//! The signed channel beyond the key rules of `config_trust_strict`: the all-zero key's
//! keyless forgery and non-canonical keys of large order, trust that stays through the
//! engine once an offer tried to drop it, the persisted config opened under the chain of
//! rotations from the app's own trust, a highest-accepted version that outlives the config
//! file, the app's own newer config turning trust off, and duplicate JSON keys refused in
//! a config, an envelope and its signed payload, with their path.

use crate::support;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use linekit_core::clock::ManualClock;
use linekit_core::config::accept::{check_remote, open_persisted, verify_envelope};
use linekit_core::config::envelope::{Envelope, EnvelopeSignature};
use linekit_core::config::trust::{decode_key, TrustConfig, TrustSet};
use linekit_core::config::{
    parse_config, resolve_at, seal, Config, ConfigSource, ConfigSources, LastGoodStore,
};
use linekit_core::engine::{LineKit, RuntimeMode};
use linekit_core::trace::reason::ConfigReason;
use linekit_core::Error;
use std::sync::Arc;
use support::ed25519_points::small_order_points;
use support::signing::*;
use support::temp::TempDir;

/// The identity point: small order, so `R = identity, S = 0` verifies under plain RFC 8032
/// for every message.
const IDENTITY: [u8; 32] = {
    let mut b = [0u8; 32];
    b[0] = 1;
    b
};

fn b64(raw: &[u8]) -> String {
    STANDARD.encode(raw)
}

/// A trust section over raw key bytes (id, key), as JSON.
fn raw_trust(keys: &[(&str, &[u8; 32])], threshold: u32) -> String {
    let keys: Vec<String> = keys
        .iter()
        .map(|(id, k)| format!(r#"{{"id":"{id}","ed25519":"{}"}}"#, b64(&k[..])))
        .collect();
    format!(r#"{{"keys":[{}],"threshold":{threshold}}}"#, keys.join(","))
}

/// The trust section as the engine would hold it, without validation.
fn unvalidated(trust_json: &str) -> TrustConfig {
    serde_json::from_str(trust_json).unwrap()
}

/// A config in force with `trust` set as given (bypassing validation, as a config built
/// before this validation existed would be).
fn in_force_with(trust_json: &str) -> Config {
    let mut c = parse_config(&config(10, "")).unwrap();
    c.trust = Some(unvalidated(trust_json));
    c.expires_at = Some(LATER_S);
    c
}

fn field_errors(text: &str) -> Vec<(String, String)> {
    match parse_config(text) {
        Err(Error::InvalidConfig(list)) => list.into_iter().map(|e| (e.path, e.error)).collect(),
        other => panic!("expected field errors, got {other:?}"),
    }
}

/// An envelope over `text` whose every signature is `sig` under `ids`.
fn forged(text: &str, ids: &[&str], sig: [u8; 64]) -> String {
    Envelope {
        signed: text.as_bytes().to_vec(),
        signatures: ids
            .iter()
            .map(|id| EnvelopeSignature {
                key_id: id.to_string(),
                sig,
            })
            .collect(),
    }
    .to_json()
}

/// A keyless forgery under the all-zero key (a point of order 4): `S = 0` and `R` one of
/// the four points of its subgroup, for a message that plain verification accepts. The
/// library's own non-strict verification is the oracle; the message varies by trailing
/// spaces (every variant is the same config).
fn forge_under_zero_key(text: &str) -> (String, [u8; 64]) {
    let zero = VerifyingKey::from_bytes(&[0u8; 32]).expect("the zero key decompresses");
    let subgroup = &small_order_points()[..4];
    for pad in 0..256 {
        let message = format!("{text}{}", " ".repeat(pad));
        for r in subgroup {
            let mut sig = [0u8; 64];
            sig[..32].copy_from_slice(r);
            if zero
                .verify(message.as_bytes(), &Signature::from_bytes(&sig))
                .is_ok()
            {
                return (message, sig);
            }
        }
    }
    panic!("no forgery found");
}

#[test]
fn the_all_zero_key_is_refused_and_its_keyless_forgery_is_not_accepted() {
    let zero = [0u8; 32];
    let t = raw_trust(&[("k1", &zero)], 1);
    let errors = field_errors(&trusted_config(1, &t, LATER_S, ""));
    assert!(
        errors
            .iter()
            .any(|(p, e)| p == "trust.keys[0].ed25519" && e.contains("small order")),
        "{errors:?}"
    );
    // With no private key at all, an envelope that plain RFC 8032 verification accepts.
    let (text, sig) = forge_under_zero_key(&trusted_config(11, &t, LATER_S, ""));
    let env = forged(&text, &["k1"], sig);
    // Neither `config verify`'s check nor the engine's acceptance takes it, even under a
    // trust section that was never validated.
    let r = verify_envelope(&env, &unvalidated(&t), Some(NOW_S)).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey, "{r}");
    let r = check_remote(&env, &in_force_with(&t), NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey, "{r}");
    assert!(TrustSet::new(&unvalidated(&t)).is_empty());
}

#[test]
fn a_non_canonical_trust_key_is_refused() {
    // y + p for a small y: the same point as y, encoded with y not below the field prime.
    let p_plus = |y: u8| {
        let mut b = [0xffu8; 32];
        b[0] = 0xed + y;
        b[31] = 0x7f;
        b
    };
    let large_order: Vec<[u8; 32]> = (2..=18)
        .map(p_plus)
        .filter(|b| VerifyingKey::from_bytes(b).is_ok_and(|k| !k.is_weak()))
        .collect();
    assert!(
        !large_order.is_empty(),
        "some y + p is a point of large order"
    );
    // The identity with the sign of its zero x set: small order and non-canonical.
    let mut negative_zero = IDENTITY;
    negative_zero[31] = 0x80;
    for raw in large_order.iter().chain([&negative_zero]) {
        let why = decode_key(&b64(&raw[..])).unwrap_err();
        assert!(why.contains("canonical"), "{why}");
        let t = raw_trust(&[("k1", raw)], 1);
        let errors = field_errors(&trusted_config(1, &t, LATER_S, ""));
        assert!(
            errors.iter().any(|(p, _)| p == "trust.keys[0].ed25519"),
            "{errors:?}"
        );
    }
}

#[test]
fn trust_dropped_by_a_signed_config_stays_in_config_verify_and_the_engine() {
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    for without in [
        config(11, &format!(r#""expires_at":{LATER_S}"#)),
        config(
            11,
            &format!(r#""trust":{{"keys":[]}},"expires_at":{LATER_S}"#),
        ),
    ] {
        let r = verify_envelope(
            &envelope(&without, &[("k1", &k1)]),
            &unvalidated(&t1),
            Some(NOW_S),
        )
        .unwrap_err();
        assert_eq!(r.reason, ConfigReason::Invalid, "{r}");
    }
    // So a bare config never follows through the engine either.
    let kit = kit_on(&trusted_config(10, &t1, LATER_S, ""), None);
    let dropped = envelope(
        &config(11, &format!(r#""expires_at":{LATER_S}"#)),
        &[("k1", &k1)],
    );
    assert!(!kit.update_config(&dropped).applied);
    let bare = kit.update_config(&config(12, ""));
    assert!(!bare.applied);
    assert!(bare.error.unwrap().starts_with("unsigned: "));
    assert_eq!(kit.config().version, 10);
}

/// An engine on `app` (as `configJson`) at [`NOW_S`], with `dir` as its storage.
fn kit_on(app: &str, dir: Option<&std::path::Path>) -> LineKit {
    let mut b = LineKit::builder()
        .config_json(app)
        .clock(Arc::new(ManualClock::new(1_000, NOW_S * 1_000)))
        .runtime_mode(RuntimeMode::Manual);
    if let Some(dir) = dir {
        b = b.storage_dir(dir);
    }
    b.build().unwrap()
}

const SEAL_KEY: [u8; 32] = [9u8; 32];

/// An engine on the sealed asset `app` with storage `dir` at [`NOW_S`].
fn sealed_kit(app: &str, dir: &std::path::Path) -> LineKit {
    LineKit::builder()
        .sealed_config(seal(app.as_bytes(), &SEAL_KEY).unwrap(), SEAL_KEY.to_vec())
        .storage_dir(dir)
        .clock(Arc::new(ManualClock::new(1_000, NOW_S * 1_000)))
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap()
}

fn restart(kit: LineKit) {
    kit.close();
    drop(kit);
}

/// `kit` started from the sealed asset, having skipped the last good file for a reason
/// that starts with `why`.
fn assert_sealed_skipping_last_good(kit: &LineKit, why: &str) {
    let status = kit.config_status();
    assert_eq!(status.source, "sealed");
    assert_eq!(status.skipped[0].source, "last_good");
    let reason = &status.skipped[0].reason;
    assert!(reason.starts_with(why), "{reason}");
}

#[test]
fn the_persisted_config_must_verify_under_the_chain_from_the_app_trust() {
    let (k1, k2, k9) = (key(1), key(2), key(9));
    let t1 = trust(&[("k1", &k1)], 1);
    let anchor = unvalidated(&t1);
    // A config naming its own trust and signed by it alone: the app never vouched for k9.
    let t9 = trust(&[("k9", &k9)], 1);
    let own = envelope(&trusted_config(50, &t9, LATER_S, ""), &[("k9", &k9)]);
    let r = open_persisted(&own, &[], Some(&anchor), NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::UnknownKey, "{r}");
    assert!(r.detail.contains("app's own trust"), "{}", r.detail);
    // A real rotation k1 -> k2 and a later config signed by k2 alone: it opens with its
    // chain, and not without it.
    let t2 = trust(&[("k2", &k2)], 1);
    let rotation = envelope(
        &trusted_config(11, &t2, LATER_S, ""),
        &[("k1", &k1), ("k2", &k2)],
    );
    let later = envelope(&trusted_config(12, &t2, LATER_S, ""), &[("k2", &k2)]);
    assert_eq!(
        open_persisted(
            &later,
            std::slice::from_ref(&rotation),
            Some(&anchor),
            NOW_S
        )
        .unwrap()
        .version,
        12
    );
    assert!(open_persisted(&later, &[], Some(&anchor), NOW_S).is_err());
    // A forged link (k9 rotating to itself) does not move the trust on.
    let forged_link = envelope(&trusted_config(13, &t9, LATER_S, ""), &[("k9", &k9)]);
    assert!(open_persisted(&own, &[forged_link], Some(&anchor), NOW_S).is_err());

    // End to end: the engine persists the chain, and the next start opens it.
    let dir = TempDir::new("trust-chain");
    let app = trusted_config(1, &t1, LATER_S, "");
    let kit = sealed_kit(&app, dir.path());
    assert!(kit.update_config(&rotation).applied);
    assert!(kit.update_config(&later).applied);
    restart(kit);
    let kit = sealed_kit(&app, dir.path());
    assert_eq!(kit.config_status().source, "last_good");
    assert_eq!(kit.config().version, 12);
    restart(kit);
    // A file replaced by one under its own trust is skipped for the sealed asset.
    LastGoodStore::new(dir.path()).save(&own, &[]).unwrap();
    assert_sealed_skipping_last_good(&sealed_kit(&app, dir.path()), "unknown_key: ");
}

#[test]
fn deleting_the_last_good_file_does_not_reopen_rollback() {
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let app = trusted_config(1, &t1, LATER_S, "");
    let v5 = envelope(&trusted_config(5, &t1, LATER_S, ""), &[("k1", &k1)]);
    let v9 = envelope(&trusted_config(9, &t1, LATER_S, ""), &[("k1", &k1)]);
    let dir = TempDir::new("rollback-floor");
    let kit = sealed_kit(&app, dir.path());
    assert!(kit.update_config(&v5).applied);
    assert!(kit.update_config(&v9).applied);
    restart(kit);
    let store = LastGoodStore::new(dir.path());
    assert_eq!(store.load_floor(), 9);
    std::fs::remove_file(store.path()).unwrap();
    let kit = sealed_kit(&app, dir.path());
    assert_eq!(kit.config().version, 1);
    let old = kit.update_config(&v5);
    assert!(!old.applied, "an older signed config applied again");
    assert!(old.error.unwrap().starts_with("not_newer: "));
    // The highest version itself is no rollback: the server serving it again applies.
    assert!(kit.update_config(&v9).applied);
    restart(kit);
    // An older file put back is skipped at start-up too.
    store.save(&v5, &[]).unwrap();
    assert_sealed_skipping_last_good(&sealed_kit(&app, dir.path()), "not_newer: ");
}

#[test]
fn a_sealed_asset_of_the_same_version_keeps_the_last_good_one_a_newer_may_turn_trust_off() {
    let sealed = |v: u64| {
        let text = config(v, "");
        Some((seal(text.as_bytes(), &SEAL_KEY).unwrap(), SEAL_KEY.to_vec()))
    };
    let sources = |sealed_version: u64| ConfigSources {
        last_good: Some(config(9, "")),
        sealed: sealed(sealed_version),
        ..ConfigSources::default()
    };
    let r = resolve_at(&sources(20), Some(NOW_S));
    assert_eq!((r.source, r.config.version), (ConfigSource::Sealed, 20));
    assert!(
        r.skipped[0].1.to_string().contains("not_newer: "),
        "{}",
        r.skipped[0].1
    );
    // The same version: the last good config stays.
    let r = resolve_at(&sources(9), Some(NOW_S));
    assert_eq!((r.source, r.config.version), (ConfigSource::LastGood, 9));
    // A newer sealed asset without trust is the app's own choice: it wins over a
    // persisted config under trust.
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let r = resolve_at(
        &ConfigSources {
            last_good: Some(envelope(
                &trusted_config(9, &t1, LATER_S, ""),
                &[("k1", &k1)],
            )),
            sealed: sealed(20),
            ..ConfigSources::default()
        },
        Some(NOW_S),
    );
    assert_eq!(r.source, ConfigSource::Sealed);
    assert!(r.config.trust.is_none());
}

#[test]
fn duplicate_keys_refuse_a_config_an_envelope_and_its_signed_payload() {
    // A config, with the path of the repeated key.
    let doubled = config(2, r#""version":9"#);
    let errors = field_errors(&doubled);
    assert_eq!(errors[0].0, "version", "{errors:?}");
    assert!(errors[0].1.contains("duplicate key"), "{errors:?}");
    let nested = r#"{"version":1,"biz_lines":{"spot":{"match":["a.example.com"],"http":[{"id":"a","url":"https://a.example.com","url":"https://evil.example.com"}]}}}"#;
    assert_eq!(field_errors(nested)[0].0, "biz_lines.spot.http[0].url");

    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let cur = parse_config(&trusted_config(10, &t1, LATER_S, "")).unwrap();
    // An envelope repeating `signed`: the second copy would be what is read.
    let a = envelope(&trusted_config(11, &t1, LATER_S, ""), &[("k1", &k1)]);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    let twice = format!(
        r#"{{"signed":"{}","signed":"{}","signatures":{}}}"#,
        b64(b"{}"),
        v["signed"].as_str().unwrap(),
        v["signatures"]
    );
    {
        let text = twice.as_str();
        let r = check_remote(text, &cur, NOW_S).unwrap_err();
        assert_eq!(r.reason, ConfigReason::Malformed, "{r}");
        assert!(r.detail.contains("signed: duplicate key"), "{}", r.detail);
        let r = Envelope::parse_text(text).unwrap_err();
        assert!(r.detail.contains("signed: duplicate key"), "{}", r.detail);
    }
    // Signed bytes that repeat a key: validly signed, still refused, with the path.
    let payload = trusted_config(11, &t1, LATER_S, r#""version":12"#);
    let r = check_remote(&envelope(&payload, &[("k1", &k1)]), &cur, NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::Invalid, "{r}");
    assert!(
        r.detail.starts_with("version: duplicate key"),
        "{}",
        r.detail
    );
}
