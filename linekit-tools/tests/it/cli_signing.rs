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
