//! A part of the config this build cannot use — a provider with an unknown `format` or
//! `auth.kind` — is dropped with a warning naming its path; the rest of the config applies
//! and the business lines still route.

use crate::support;

use linekit_core::config::parse_config_with_warnings;
use linekit_core::engine::RouteRequest;
use serde_json::{json, Value};
use std::sync::Arc;
use support::transport::RecordingTransport;

fn config() -> Value {
    json!({
        "version": 2,
        "biz_lines": {"spot": {"match": ["api.example.com"],
            "http": [{"id": "ali", "url": "https://spot-ali.example.com"},
                     {"id": "tx", "url": "https://spot-tx.example.com"}]}},
        "httpdns": {
            "providers": [
                {"id": "future", "format": "svcb-json", "url": "https://d.example/q"},
                {"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/1/d"},
                {"id": "quantum", "format": "dnspod", "url": "https://d.example/d",
                 "auth": {"kind": "dnspod-pqc", "key": "k"}},
                {"id": "doh", "format": "doh-wire", "url": "https://d.example/dns-query"}
            ],
            "hosts": ["*.example.com"]
        }
    })
}

#[test]
fn unknown_provider_format_and_auth_kind_are_dropped_with_warnings() {
    let (c, warnings) = parse_config_with_warnings(&config().to_string()).expect("applies");
    let ids: Vec<&str> = c.httpdns.providers.iter().map(|p| p.id.as_str()).collect();
    let paths: Vec<&str> = warnings.iter().map(|w| w.path.as_str()).collect();
    if cfg!(feature = "doh-wire") {
        assert_eq!(ids, ["ali", "doh"], "doh-wire is in the default build");
        assert_eq!(paths, ["httpdns.providers[0]", "httpdns.providers[2]"]);
    } else {
        assert_eq!(ids, ["ali"]);
        assert_eq!(
            paths,
            [
                "httpdns.providers[0]",
                "httpdns.providers[2]",
                "httpdns.providers[3]"
            ]
        );
    }
    assert!(warnings[0].error.contains("unknown format"));
    assert!(warnings[1].error.contains("unknown auth kind"));
    assert_eq!(c.biz_lines["spot"].http.len(), 2);
}

#[test]
fn a_remote_config_with_an_unusable_provider_still_applies_and_routes() {
    let mut start = config();
    start["version"] = json!(1);
    start["httpdns"]["providers"] = json!([]);
    let mut update = config();
    update["biz_lines"]["spot"]["http"] =
        json!([{"id": "new", "url": "https://spot-new.example.com"}]);
    let transport = Arc::new(RecordingTransport::default());
    let (kit, _clock) = support::manual::engine(start.to_string(), 3, &transport);
    let applied = kit.update_config(&update.to_string());
    assert!(applied.applied, "{:?}", applied.error);
    let url = "https://api.example.com/v1/t";
    let route = kit.route(&RouteRequest::new(url, "GET"));
    assert_eq!(route.line.as_deref(), Some("new"));
    assert_eq!(route.url(url), "https://spot-new.example.com/v1/t");
}

#[test]
fn a_malformed_known_auth_is_refused_loudly_with_its_path() {
    let mut c = config();
    c["httpdns"]["providers"][1]["auth"] = json!({"kind": "aliyun-sign", "validity_s": "soon"});
    let err = parse_config_with_warnings(&c.to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("httpdns.providers[1].auth.secret"), "{err}");
    assert!(
        err.contains("httpdns.providers[1].auth.validity_s"),
        "{err}"
    );
    c["httpdns"]["providers"][1]["auth"] =
        json!({"kind": "dnspod-des", "id": "1", "key": "0123456789"});
    let err = parse_config_with_warnings(&c.to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("applies to format dnspod"), "{err}");
    assert!(!err.contains("0123456789"), "never echoes the key: {err}");
}
