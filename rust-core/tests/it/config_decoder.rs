//! The config has one decoder: the validator's walk over the JSON value builds the typed
//! [`Config`] itself. These tests pin that the walk reads exactly what the model's serde
//! `Deserialize` would read — every field, every default — so dropping the second decode
//! changed no config's meaning.

use linekit_core::config::{parse_config, Config};
use serde_json::Value;

/// A valid config that sets every field of the model to a value other than its default
/// (every optional field present, every provider auth kind once).
const EVERY_FIELD: &str = r#"{
  "version": 42,
  "downgrade": true,
  "allow_cleartext": true,
  "expires_at": 4102444800,
  "thresholds": {
    "timeout_ms": 3100, "slow_request_ms": 2100, "detect_cooldown_ms": 31000,
    "switch_interval_ms": 11000, "window_ms": 310000, "failure_threshold": 4,
    "open_cooldown_ms": 31000, "revive_interval_ms": 610000, "max_retries": 2,
    "detect_jitter_ms": 29000, "startup_detect_delay_ms": 3100, "probe_budget_per_min": 21,
    "ws_stable_ms": 31000, "buffer_body_max_bytes": 1000, "slow_switch_count": 4,
    "slow_switch_ms": 3100, "urgent_jitter_ms": 1100, "read_fault_hold_ms": 61000
  },
  "biz_lines": {
    "spot": {
      "match": ["api.example.com", "*.spot.example.com"],
      "detect_path": "/health", "detect_method": "GET",
      "detect_expect_status": 204, "detect_expect_length": 2,
      "version_header": "X-Spot-Version", "version_policy": "strict", "warm_connections": false,
      "rollout": {"mode": "off", "percent": 50, "others": "observe"},
      "http": [
        {"id": "ali", "url": "https://spot-ali.example.com", "priority": 1, "weight": 50},
        {"id": "tx", "url": "http://spot-tx.example.com:8080", "priority": 0, "weight": 7}
      ],
      "ws": [{"id": "ws", "url": "wss://ws.example.com", "priority": 3, "weight": 9}]
    }
  },
  "fixed_hosts": ["pin.example.com:8443"],
  "merge_hosts": [{"host": "img.example.com", "biz": "spot", "path_prefix": "/img", "rate": 0.5}],
  "httpdns": {
    "providers": [
      {"id": "a", "format": "aliyun", "url": "https://203.0.113.7/1/d",
       "auth": {"kind": "aliyun-sign", "secret": "s3cret", "validity_s": 300}},
      {"id": "b", "format": "dnspod", "url": "http://203.0.113.8/d",
       "auth": {"kind": "dnspod-des", "id": "12", "key": "8bytekey"}},
      {"id": "c", "format": "dnspod", "url": "http://203.0.113.9/d",
       "auth": {"kind": "dnspod-aes", "id": "13", "key": "sixteen-byte-key"}},
      {"id": "d", "format": "dnspod", "url": "https://203.0.113.10/d",
       "auth": {"kind": "dnspod-https", "token": "tok"}},
      {"id": "e", "format": "doh-json", "url": "https://dns.example/resolve"}
    ],
    "hosts": ["*.example.com"], "allow_private": ["intranet.example.com"],
    "pre_resolve": ["api.example.com"],
    "refresh_ratio": 0.5, "jitter_ratio": 0.2, "min_ttl_s": 20, "max_ttl_s": 1800,
    "serve_stale": {"hosts": ["api.example.com"], "max_stale_s": 120},
    "bootstrap": {"api.example.com": ["198.51.100.1", "2001:db8::1"]}
  },
  "trace": {"sample_rate": 0.5, "window_ms": 60000},
  "rollout": {"mode": "observe", "percent": 30, "others": "on"},
  "remote": {"urls": ["https://config.example.com/linekit.json"], "interval_s": 900,
             "jitter_s": 60, "timeout_ms": 4000},
  "trust": {"keys": [{"id": "k1", "ed25519": "FkmaqbuNvekDDE6Dj5M4OOCchY/2EbStDuSSQSFyRbw="}],
            "threshold": 1}
}"#;

/// What the model's serde derive reads from `text`.
fn serde_decode(text: &str) -> Config {
    serde_json::from_str(text).expect("the model deserializes the document")
}

/// Fails naming the first key serde writes for the decoded config that `doc` does not
/// set: the document must exercise every field the model has.
fn assert_document_sets(written: &Value, doc: &Value, path: &str) {
    match (written, doc) {
        (Value::Object(w), Value::Object(d)) => {
            for (key, wv) in w {
                let at = format!("{path}.{key}");
                let dv = d
                    .get(key)
                    .unwrap_or_else(|| panic!("EVERY_FIELD does not set {at}: add it"));
                assert_document_sets(wv, dv, &at);
            }
        }
        (Value::Array(w), Value::Array(d)) => {
            for (i, (wv, dv)) in w.iter().zip(d).enumerate() {
                assert_document_sets(wv, dv, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn the_full_document_sets_every_field_the_model_writes() {
    let decoded = serde_decode(EVERY_FIELD);
    let written = serde_json::to_value(&decoded).unwrap();
    let doc: Value = serde_json::from_str(EVERY_FIELD).unwrap();
    assert_document_sets(&written, &doc, "");
    let defaults = serde_json::to_value(Config::default()).unwrap();
    for (key, value) in defaults.as_object().unwrap() {
        assert_ne!(
            &written[key], value,
            "EVERY_FIELD leaves {key} at its default"
        );
    }
}

#[test]
fn the_walk_reads_every_field_as_serde_does() {
    let walked = parse_config(EVERY_FIELD).expect("EVERY_FIELD is a valid config");
    assert_eq!(walked, serde_decode(EVERY_FIELD));
}

#[test]
fn the_walk_and_serde_agree_on_the_defaults_of_a_minimal_document() {
    let text = r#"{"version": 1, "biz_lines": {"b": {"http": [{"id": "x", "url": "https://x.example.com"}]}},
                   "merge_hosts": [{"host": "old.example.com", "biz": "b"}],
                   "httpdns": {"serve_stale": {"hosts": [], "max_stale_s": 1}},
                   "remote": {"urls": ["https://c.example.com/c.json"]}, "trust": {}}"#;
    assert_eq!(parse_config(text).unwrap(), serde_decode(text));
}

#[test]
fn the_walk_and_serde_agree_on_every_fixture_config() {
    for (name, text) in [
        (
            "reference_example",
            include_str!("../fixtures/reference_example.json"),
        ),
        ("routing", include_str!("../fixtures/routing.json")),
        (
            "whatif_policy_threshold1",
            include_str!("../fixtures/whatif_policy_threshold1.json"),
        ),
        (
            "signing/config",
            include_str!("../fixtures/signing/config.json"),
        ),
    ] {
        let walked = parse_config(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(walked, serde_decode(text), "{name}");
    }
}

#[test]
fn a_provider_this_build_cannot_use_is_dropped_as_serde_never_saw_it() {
    let text = r#"{"version": 1, "biz_lines": {"b": {"http": [{"id": "x", "url": "https://x.example.com"}]}},
                   "httpdns": {"providers": [
                     {"id": "new", "format": "future-format", "url": "https://203.0.113.1/d"},
                     {"id": "ok", "format": "doh-json", "url": "https://dns.example/resolve"},
                     {"id": "odd", "format": "aliyun", "url": "https://203.0.113.2/d",
                      "auth": {"kind": "future-kind"}}]}}"#;
    let walked = parse_config(text).unwrap();
    let ids: Vec<&str> = walked
        .httpdns
        .providers
        .iter()
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(ids, ["ok"]);
}
