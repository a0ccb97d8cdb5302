//! Fuzzes the signed remote config channel: the input as a document offered to an engine
//! under trust and without (`check_remote`), as a persisted last good config
//! (`open_persisted`, alone and as the link of its own chain), as a trust file for `verify`, and as the `trust` section of a config
//! (validation, then verification of a fixed envelope under it). Nothing may panic, and a
//! document that passes under trust must carry at least one valid signature.

use linekit_core::config::accept::{check_remote, open_persisted, verify_envelope};
use linekit_core::config::trust::{TrustConfig, TrustSet};
use linekit_core::config::validate::parse_config;
use linekit_core::config::Config;
use std::sync::OnceLock;

const NOW_S: u64 = 1_700_000_000;
const BIZ: &str = r#""biz_lines":{"spot":{"http":[{"id":"a","url":"https://a.example.com"}]}}"#;
/// The public key of seed [1; 32] (the seeds' envelopes are signed with it).
const KEY: &str = "iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=";

fn trusted() -> &'static (Config, TrustConfig) {
    static CURRENT: OnceLock<(Config, TrustConfig)> = OnceLock::new();
    CURRENT.get_or_init(|| {
        let text = format!(
            r#"{{"version":1,"expires_at":4102444800,"trust":{{"keys":[{{"id":"k1","ed25519":"{KEY}"}}],"threshold":1}},{BIZ}}}"#
        );
        let config = parse_config(&text).expect("fuzz base config");
        let trust = config.trust.clone().expect("trust");
        (config, trust)
    })
}

fn plain() -> &'static Config {
    static PLAIN: OnceLock<Config> = OnceLock::new();
    PLAIN.get_or_init(|| parse_config(&format!(r#"{{"version":1,{BIZ}}}"#)).expect("plain"))
}

/// The signed remote config channel: see the module docs.
pub fn config_envelope(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (current, trust) = trusted();
    if let Ok(accepted) = check_remote(text, current, NOW_S) {
        assert!(
            !accepted.key_ids.is_empty(),
            "accepted under trust without a signature"
        );
        assert!(accepted.config.version > current.version);
    }
    let _ = check_remote(text, plain(), NOW_S);
    let _ = open_persisted(text, &[], Some(trust), NOW_S);
    let _ = open_persisted(text, &[text.to_string()], Some(trust), NOW_S);
    let _ = verify_envelope(text, trust, Some(NOW_S));
    // As a trust section.
    let _ = parse_config(&format!(
        r#"{{"version":2,"expires_at":4102444800,"trust":{text},{BIZ}}}"#
    ));
    if let Ok(t) = serde_json::from_str::<TrustConfig>(text) {
        let set = TrustSet::new(&t);
        let _ = set.threshold();
        let _ = verify_envelope(
            r#"{"signed":"e30=","signatures":[{"key_id":"k1","sig":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="}]}"#,
            &t,
            None,
        );
    }
}
