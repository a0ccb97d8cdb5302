//! `linekit config keygen|sign|verify` driven in-process: a generated key signs a config,
//! the envelope verifies under the config's trust or a bare trust file, thresholds above
//! one are met by signing twice, and tampering, unknown keys and expiry fail with their
//! reason codes. The private key is read from a file only.

use crate::support;

use serde_json::Value;
use support::cli::{error_of, json_of};
use support::signing::*;
use support::temp::TempDir;

fn cli(args: &[&str]) -> (i32, String, String) {
    support::cli::run(args, b"").into()
}

/// `linekit config sign --private-key-file KEY --key-id ID FILE`.
fn sign(key_file: &str, key_id: &str, file: &str) -> (i32, String, String) {
    cli(&[
        "config",
        "sign",
        "--private-key-file",
        key_file,
        "--key-id",
        key_id,
        file,
    ])
}

/// `linekit config verify --trust TRUST --now-s NOW FILE`.
fn verify_with_trust(trust_file: &str, now_s: &str, file: &str) -> (i32, String, String) {
    cli(&[
        "config", "verify", "--trust", trust_file, "--now-s", now_s, file,
    ])
}

fn keygen(dir: &TempDir, name: &str) -> (String, String) {
    let (code, out, _) = cli(&["config", "keygen"]);
    assert_eq!(code, 0);
    let v = json_of(&out);
    let public = v["public_key"].as_str().unwrap().to_string();
    assert_eq!(v["private_key"].as_str().unwrap().len(), 44);
    (dir.write(name, &out), public)
}

#[test]
fn keygen_sign_verify_round_trip() {
    let dir = TempDir::new("cli-signing");
    let (key_file, public) = keygen(&dir, "k1.json");
    let trust = format!(r#"{{"keys":[{{"id":"k1","ed25519":"{public}"}}],"threshold":1}}"#);
    let config = trusted_config(4, &trust, LATER_S, "");
    let config_file = dir.write("config.json", &config);
    let (code, env, err) = sign(&key_file, "k1", &config_file);
    assert_eq!(code, 0, "{err}");
    let env_file = dir.write("envelope.json", &env);
    // Verified under the config itself and under a bare trust file.
    let trust_file = dir.write("trust.json", &trust);
    for t in [&config_file, &trust_file] {
        let (code, out, err) = verify_with_trust(t, &NOW_S.to_string(), &env_file);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            json_of(&out),
            json_of(r#"{"ok":true,"version":4,"key_ids":["k1"]}"#)
        );
    }
    // Expired at a later --now-s.
    let (code, _, err) = verify_with_trust(&trust_file, &LATER_S.to_string(), &env_file);
    assert_eq!(code, 1);
    assert!(error_of(&err).starts_with("expired: "));
    // Tampered.
    let mut v = json_of(&env);
    v["signed"] = Value::String(v["signed"].as_str().unwrap().replacen("e", "f", 1));
    let bad = dir.write("bad.json", &v.to_string());
    let (code, _, err) = verify_with_trust(&trust_file, "1", &bad);
    assert_eq!(code, 1);
    let e = error_of(&err);
    assert!(
        e.starts_with("bad_signature: ") || e.starts_with("malformed: "),
        "{e}"
    );
    // A key the trust does not list.
    let (other_file, _) = keygen(&dir, "k2.json");
    let (_, env2, _) = sign(&other_file, "k2", &config_file);
    let env2_file = dir.write("envelope2.json", &env2);
    let (code, _, err) = verify_with_trust(&trust_file, "1", &env2_file);
    assert_eq!(code, 1);
    assert!(error_of(&err).starts_with("unknown_key: "));
}

#[test]
fn signing_an_envelope_again_adds_a_signature_for_thresholds() {
    let dir = TempDir::new("cli-signing");
    let (f1, p1) = keygen(&dir, "k1.json");
    let (f2, p2) = keygen(&dir, "k2.json");
    let trust = format!(
        r#"{{"keys":[{{"id":"k1","ed25519":"{p1}"}},{{"id":"k2","ed25519":"{p2}"}}],"threshold":2}}"#
    );
    let config_file = dir.write("config.json", &trusted_config(2, &trust, LATER_S, ""));
    let trust_file = dir.write("trust.json", &trust);
    let (_, once, _) = sign(&f1, "k1", &config_file);
    let once_file = dir.write("once.json", &once);
    let (code, _, err) = verify_with_trust(&trust_file, "1", &once_file);
    assert_eq!(code, 1);
    assert!(error_of(&err).starts_with("below_threshold: "));
    let (code, twice, err) = sign(&f2, "k2", &once_file);
    assert_eq!(code, 0, "{err}");
    let twice_file = dir.write("twice.json", &twice);
    let (code, out, err) = verify_with_trust(&trust_file, "1", &twice_file);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json_of(&out)["key_ids"], json_of(r#"["k1","k2"]"#));
}

#[test]
fn sign_refuses_invalid_configs_and_keys_on_the_command_line() {
    let dir = TempDir::new("cli-signing");
    let (key_file, _) = keygen(&dir, "k.json");
    let bad = dir.write("bad.json", r#"{"version":1,"biz_lines":{}}"#);
    let (code, out, err) = sign(&key_file, "k", &bad);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("refusing to sign an invalid config"));
    // There is no option that takes the key itself.
    let good = dir.write("good.json", &config(1, ""));
    let (code, _, _) = cli(&[
        "config",
        "sign",
        "--private-key",
        "AAAA",
        "--key-id",
        "k",
        &good,
    ]);
    assert_eq!(code, 2);
    // A key file that is not a key.
    let junk = dir.write("junk.txt", "hello");
    let (code, _, err) = sign(&junk, "k", &good);
    assert_eq!(code, 1);
    assert!(!err.contains("hello"), "key material is never echoed");
}

/// The identity point: a small-order key under which `R = identity, S = 0` is a valid
/// plain RFC 8032 signature of every message.
fn identity_key() -> String {
    let mut raw = [0u8; 32];
    raw[0] = 1;
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, raw)
}

/// An envelope over `text` whose signatures are each `sig` (base64) under the ids given.
fn raw_envelope(text: &str, ids: &[&str], sig: &str) -> String {
    let signed = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, text);
    let sigs: Vec<String> = ids
        .iter()
        .map(|id| format!(r#"{{"key_id":"{id}","sig":"{sig}"}}"#))
        .collect();
    format!(
        r#"{{"signed":"{signed}","signatures":[{}]}}"#,
        sigs.join(",")
    )
}

#[test]
fn check_and_verify_refuse_weak_keys_forgeries_and_repeated_keys() {
    let dir = TempDir::new("cli-signing-strict");
    let zero = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    // `config check`: the all-zero and the identity key are refused with their path.
    for weak in [zero.to_string(), identity_key()] {
        let trust = format!(r#"{{"keys":[{{"id":"k1","ed25519":"{weak}"}}],"threshold":1}}"#);
        let file = dir.write("weak.json", &trusted_config(3, &trust, LATER_S, ""));
        let (code, out, _) = cli(&["config", "check", &file]);
        assert_eq!(code, 1, "{out}");
        let report = json_of(&out);
        assert_eq!(
            report["errors"][0]["path"], "trust.keys[0].ed25519",
            "{out}"
        );
        assert!(
            report["errors"][0]["error"]
                .as_str()
                .unwrap()
                .contains("small order"),
            "{out}"
        );
    }
    // `config verify` under a trust file naming the identity key: the keyless forgery
    // (R = identity, S = 0) is refused because the trust file is.
    let weak_trust = format!(
        r#"{{"keys":[{{"id":"k1","ed25519":"{}"}}],"threshold":1}}"#,
        identity_key()
    );
    let weak_trust_file = dir.write("weak-trust.json", &weak_trust);
    let forged_sig = {
        let mut sig = [0u8; 64];
        sig[0] = 1;
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, sig)
    };
    let forgery = raw_envelope(
        &trusted_config(4, &weak_trust, LATER_S, ""),
        &["k1"],
        &forged_sig,
    );
    let forgery_file = dir.write("forgery.json", &forgery);
    let (code, out, err) = verify_with_trust(&weak_trust_file, &NOW_S.to_string(), &forgery_file);
    assert_eq!((code, out.as_str()), (1, ""), "{out}");
    let e = error_of(&err);
    assert!(e.starts_with("trust: ") && e.contains("small order"), "{e}");

    // One key under two ids, threshold 2: the trust file is refused.
    let k1 = key(1);
    let two_ids = trust(&[("a", &k1), ("b", &k1)], 2);
    let two_ids_file = dir.write("two-ids.json", &two_ids);
    let env_file = dir.write(
        "two-ids-env.json",
        &envelope(
            &trusted_config(4, &two_ids, LATER_S, ""),
            &[("a", &k1), ("b", &k1)],
        ),
    );
    let (code, _, err) = verify_with_trust(&two_ids_file, &NOW_S.to_string(), &env_file);
    assert_eq!(code, 1);
    assert!(error_of(&err).contains("trust.keys[1].ed25519"), "{err}");

    // A key id one byte over the limit is malformed, not cut to the trusted id.
    let id = "k".repeat(64);
    let t = trust(&[(&id, &k1)], 1);
    let t_file = dir.write("long-id-trust.json", &t);
    let longer = format!("{id}x");
    let long_env = dir.write(
        "long-id.json",
        &envelope(&trusted_config(4, &t, LATER_S, ""), &[(&longer, &k1)]),
    );
    let (code, _, err) = verify_with_trust(&t_file, &NOW_S.to_string(), &long_env);
    assert_eq!(code, 1);
    assert!(error_of(&err).starts_with("malformed: "), "{err}");

    // Repeated keys: in the trust file, in the envelope and in the signed payload.
    let t1 = trust(&[("k1", &k1)], 1);
    let t1_file = dir.write("t1.json", &t1);
    let repeated_trust = dir.write(
        "repeated-trust.json",
        &t1.replacen(r#""threshold":1"#, r#""threshold":1,"threshold":1"#, 1),
    );
    let good = envelope(&trusted_config(4, &t1, LATER_S, ""), &[("k1", &k1)]);
    let good_file = dir.write("good.json", &good);
    let (code, _, err) = verify_with_trust(&repeated_trust, &NOW_S.to_string(), &good_file);
    assert_eq!(code, 1);
    assert!(error_of(&err).contains("threshold: duplicate key"), "{err}");
    let repeated_env = dir.write(
        "repeated-env.json",
        &good.replacen(r#""signed":"#, r#""signed":"e30=","signed":"#, 1),
    );
    let (code, _, err) = verify_with_trust(&t1_file, &NOW_S.to_string(), &repeated_env);
    assert_eq!(code, 1);
    assert!(error_of(&err).contains("signed: duplicate key"), "{err}");
    let payload = dir.write(
        "repeated-payload.json",
        &envelope(
            &trusted_config(4, &t1, LATER_S, r#""version":40"#),
            &[("k1", &k1)],
        ),
    );
    let (code, _, err) = verify_with_trust(&t1_file, &NOW_S.to_string(), &payload);
    assert_eq!(code, 1);
    assert!(error_of(&err).contains("version: duplicate key"), "{err}");
    let (code, out, _) = cli(&[
        "config",
        "check",
        &dir.write("repeated.json", &config(1, r#""version":2"#)),
    ]);
    assert_eq!(code, 1);
    assert_eq!(json_of(&out)["errors"][0]["path"], "version", "{out}");
}
