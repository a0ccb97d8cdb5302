//! The decoder and the rules name a map entry by the same path step, so a problem found
//! while decoding silences the rules at that entry: one mistake, one error, also for a
//! bootstrap host longer than the 64 characters a path shows.

use linekit_core::config::parse_config;
use linekit_core::error::Error;
use serde_json::json;

fn errors_of(doc: serde_json::Value) -> Vec<(String, String)> {
    match parse_config(&doc.to_string()) {
        Err(Error::InvalidConfig(errors)) => {
            errors.into_iter().map(|e| (e.path, e.error)).collect()
        }
        other => panic!("expected errors, got {other:?}"),
    }
}

fn with_bootstrap(host: &str, addrs: serde_json::Value) -> serde_json::Value {
    json!({
        "version": 1,
        "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}},
        "httpdns": {"bootstrap": {host: addrs}}
    })
}

#[test]
fn a_malformed_address_of_a_long_bootstrap_host_is_reported_once() {
    let host = format!("{}.{}.example.com", "a".repeat(40), "b".repeat(40));
    let shown = format!("httpdns.bootstrap[\"{}\"]", &host[..64]);
    assert_eq!(
        errors_of(with_bootstrap(&host, json!([7]))),
        [(
            format!("{shown}[0]"),
            "expected a string, found an unsigned integer".to_string()
        )]
    );
    assert_eq!(
        errors_of(with_bootstrap(&host, json!("198.51.100.1"))),
        [(shown, "expected an array, found a string".to_string())]
    );
}

#[test]
fn a_short_bootstrap_host_is_named_whole() {
    assert_eq!(
        errors_of(with_bootstrap("api.example.com", json!([7]))),
        [(
            "httpdns.bootstrap[\"api.example.com\"][0]".to_string(),
            "expected a string, found an unsigned integer".to_string()
        )]
    );
}
