//! Config validation (`docs/config.md#validation`): every malformed document yields path-qualified errors —
//! all of them, never a panic — and valid documents get the documented defaults.

use linekit_core::config::{parse_config, validate, Config, MAX_CONFIG_BYTES};
use linekit_core::error::{Error, FieldError};
use serde_json::{json, Value};

const REFERENCE_EXAMPLE: &str = include_str!("fixtures/reference_example.json");

/// A small valid config that the cases below break one field at a time.
fn base() -> Value {
    json!({
        "version": 1,
        "biz_lines": {
            "spot": {
                "match": ["api.example.com"],
                "http": [
                    {"id": "ali", "url": "https://spot-ali.example.com"},
                    {"id": "tx", "url": "https://spot-tx.example.com:8443"}
                ],
                "ws": [{"id": "ali-ws", "url": "wss://ws-ali.example.com"}]
            },
            "cdn": {"http": [{"id": "main", "url": "https://cdn.example.com"}]}
        },
        "merge_hosts": [{"host": "image.example.com", "biz": "cdn", "path_prefix": "/image", "rate": 0.5}],
        "httpdns": {
            "providers": [{"id": "ali", "format": "aliyun", "url": "https://203.0.113.7/100000/d"}],
            "hosts": ["*.example.com"]
        }
    })
}

/// Sets `value` at a JSON pointer, creating nothing: the parent must exist.
fn with(pointer: &str, value: Value) -> Value {
    let mut doc = base();
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    let target = doc.pointer_mut(parent).expect("parent exists");
    match target {
        Value::Object(map) => {
            map.insert(key.to_string(), value);
        }
        Value::Array(items) => items[key.parse::<usize>().expect("index")] = value,
        _ => panic!("parent of {pointer} is not a container"),
    }
    doc
}

fn without(pointer: &str) -> Value {
    let mut doc = base();
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    doc.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .expect("parent is an object")
        .remove(key);
    doc
}

fn errors_of(text: &str) -> Vec<FieldError> {
    match parse_config(text) {
        Ok(_) => Vec::new(),
        Err(Error::InvalidConfig(errors)) => errors,
        Err(other) => panic!("unexpected error kind: {other:?}"),
    }
}

fn paths(errors: &[FieldError]) -> Vec<String> {
    let mut p: Vec<String> = errors.iter().map(|e| e.path.clone()).collect();
    p.sort();
    p
}

#[test]
fn the_base_config_is_valid() {
    assert_eq!(errors_of(&base().to_string()), []);
}

#[test]
fn each_malformed_document_reports_exactly_its_paths() {
    let cases: Vec<(&str, Value, Vec<&str>, &str)> = vec![
        // Missing and required fields.
        (
            "missing version",
            without("/version"),
            vec!["version"],
            "missing",
        ),
        (
            "missing biz_lines",
            without("/biz_lines"),
            vec!["biz_lines"],
            "missing",
        ),
        (
            "empty biz_lines",
            with("/biz_lines", json!({})),
            vec!["biz_lines"],
            "at least one",
        ),
        (
            "missing line id",
            without("/biz_lines/spot/http/1/id"),
            vec!["biz_lines.spot.http[1].id"],
            "missing",
        ),
        (
            "missing line url",
            without("/biz_lines/spot/ws/0/url"),
            vec!["biz_lines.spot.ws[0].url"],
            "missing",
        ),
        (
            "missing merge biz",
            without("/merge_hosts/0/biz"),
            vec!["merge_hosts[0].biz"],
            "missing",
        ),
        (
            "missing provider format",
            without("/httpdns/providers/0/format"),
            vec!["httpdns.providers[0].format"],
            "missing",
        ),
        // Wrong types.
        (
            "version as string",
            with("/version", json!("3")),
            vec!["version"],
            "found a string",
        ),
        (
            "negative version",
            with("/version", json!(-1)),
            vec!["version"],
            "negative",
        ),
        (
            "fractional version",
            with("/version", json!(3.5)),
            vec!["version"],
            "floating-point",
        ),
        (
            "downgrade as string",
            with("/downgrade", json!("yes")),
            vec!["downgrade"],
            "boolean",
        ),
        (
            "biz_lines as array",
            with("/biz_lines", json!([])),
            vec!["biz_lines"],
            "an object",
        ),
        (
            "biz line as string",
            with("/biz_lines/cdn", json!("x")),
            vec!["biz_lines.cdn"],
            "an object",
        ),
        (
            "http pool as object",
            with("/biz_lines/cdn/http", json!({})),
            vec!["biz_lines.cdn.http"],
            "an array",
        ),
        (
            "line as number",
            with("/biz_lines/spot/http/1", json!(7)),
            vec!["biz_lines.spot.http[1]"],
            "an object",
        ),
        (
            "url as number",
            with("/biz_lines/spot/http/0/url", json!(1)),
            vec!["biz_lines.spot.http[0].url"],
            "a string",
        ),
        (
            "priority as string",
            with("/biz_lines/spot/http/0/priority", json!("1")),
            vec!["biz_lines.spot.http[0].priority"],
            "unsigned",
        ),
        (
            "negative weight",
            with("/biz_lines/spot/http/0/weight", json!(-5)),
            vec!["biz_lines.spot.http[0].weight"],
            "unsigned",
        ),
        (
            "match as string",
            with("/biz_lines/spot/match", json!("api.example.com")),
            vec!["biz_lines.spot.match"],
            "an array",
        ),
        (
            "match item as number",
            with("/biz_lines/spot/match", json!(["a.example.com", 5])),
            vec!["biz_lines.spot.match[1]"],
            "a string",
        ),
        (
            "thresholds as array",
            with("/thresholds", json!([1])),
            vec!["thresholds"],
            "an object",
        ),
        (
            "timeout as string",
            with("/thresholds", json!({"timeout_ms": "3000"})),
            vec!["thresholds.timeout_ms"],
            "found a string",
        ),
        (
            "timeout as float",
            with("/thresholds", json!({"timeout_ms": 2.5})),
            vec!["thresholds.timeout_ms"],
            "floating-point",
        ),
        (
            "failure threshold over u32",
            with(
                "/thresholds",
                json!({"failure_threshold": 4_294_967_296u64}),
            ),
            vec!["thresholds.failure_threshold"],
            "at most",
        ),
        (
            "rate as string",
            with("/merge_hosts/0/rate", json!("1")),
            vec!["merge_hosts[0].rate"],
            "a number",
        ),
        (
            "merge_hosts as object",
            with("/merge_hosts", json!({})),
            vec!["merge_hosts"],
            "an array",
        ),
        (
            "merge host as null",
            with("/merge_hosts/0", Value::Null),
            vec!["merge_hosts[0]"],
            "null",
        ),
        (
            "providers as string",
            with("/httpdns/providers", json!("ali")),
            vec!["httpdns.providers"],
            "an array",
        ),
        (
            "min ttl as float",
            with("/httpdns/min_ttl_s", json!(1.5)),
            vec!["httpdns.min_ttl_s"],
            "unsigned",
        ),
        (
            "sample rate as bool",
            with("/trace", json!({"sample_rate": true})),
            vec!["trace.sample_rate"],
            "a number",
        ),
        (
            "trace as null",
            with("/trace", Value::Null),
            vec!["trace"],
            "null",
        ),
        // Semantic rules: numbers.
        (
            "zero timeout",
            with("/thresholds", json!({"timeout_ms": 0})),
            vec!["thresholds.timeout_ms"],
            "greater than 0",
        ),
        (
            "zero window",
            with("/thresholds", json!({"window_ms": 0})),
            vec!["thresholds.window_ms"],
            "greater than 0",
        ),
        (
            "zero failure threshold",
            with("/thresholds", json!({"failure_threshold": 0})),
            vec!["thresholds.failure_threshold"],
            "at least 1",
        ),
        (
            "too many retries",
            with("/thresholds", json!({"max_retries": 6})),
            vec!["thresholds.max_retries"],
            "0..=5",
        ),
        (
            "zero weight",
            with("/biz_lines/spot/http/0/weight", json!(0)),
            vec!["biz_lines.spot.http[0].weight"],
            "1..=10000",
        ),
        (
            "huge weight",
            with("/biz_lines/spot/http/0/weight", json!(10_001)),
            vec!["biz_lines.spot.http[0].weight"],
            "1..=10000",
        ),
        // Rates out of range.
        (
            "rate above 1",
            with("/merge_hosts/0/rate", json!(1.5)),
            vec!["merge_hosts[0].rate"],
            "[0, 1]",
        ),
        (
            "negative rate",
            with("/merge_hosts/0/rate", json!(-0.1)),
            vec!["merge_hosts[0].rate"],
            "[0, 1]",
        ),
        (
            "sample rate above 1",
            with("/trace", json!({"sample_rate": 2})),
            vec!["trace.sample_rate"],
            "[0, 1]",
        ),
        (
            "zero refresh ratio",
            with("/httpdns/refresh_ratio", json!(0)),
            vec!["httpdns.refresh_ratio"],
            "(0, 1]",
        ),
        (
            "jitter ratio of 1",
            with("/httpdns/jitter_ratio", json!(1)),
            vec!["httpdns.jitter_ratio"],
            "[0, 1)",
        ),
        (
            "zero min ttl",
            with("/httpdns/min_ttl_s", json!(0)),
            vec!["httpdns.min_ttl_s"],
            "at least 1",
        ),
        (
            "min ttl above max",
            with("/httpdns/max_ttl_s", json!(10)),
            vec!["httpdns.min_ttl_s"],
            "max_ttl_s",
        ),
        // Ids and names.
        (
            "duplicate id in http",
            with("/biz_lines/spot/http/1/id", json!("ali")),
            vec!["biz_lines.spot.http[1].id"],
            "duplicate",
        ),
        (
            "duplicate id across http and ws",
            with("/biz_lines/spot/ws/0/id", json!("tx")),
            vec!["biz_lines.spot.ws[0].id"],
            "http[1]",
        ),
        (
            "empty id",
            with("/biz_lines/spot/http/0/id", json!("")),
            vec!["biz_lines.spot.http[0].id"],
            "empty",
        ),
        (
            "duplicate provider id",
            with(
                "/httpdns/providers",
                json!([
            {"id": "a", "format": "dnspod", "url": "https://d.example/d"},
            {"id": "a", "format": "doh-json", "url": "https://d.example/dns-query"}]),
            ),
            vec!["httpdns.providers[1].id"],
            "duplicate",
        ),
        (
            "upper-case biz name",
            with(
                "/biz_lines/Spot",
                json!({"http": [{"id": "a", "url": "https://a.example.com"}]}),
            ),
            vec!["biz_lines[\"Spot\"]"],
            "a-z",
        ),
        (
            "empty biz name",
            with(
                "/biz_lines/",
                json!({"http": [{"id": "a", "url": "https://a.example.com"}]}),
            ),
            vec!["biz_lines[\"\"]"],
            "non-empty",
        ),
        // URLs.
        (
            "line URL with path",
            with(
                "/biz_lines/spot/http/1/url",
                json!("https://a.example.com/v1"),
            ),
            vec!["biz_lines.spot.http[1].url"],
            "path",
        ),
        (
            "line URL without scheme",
            with("/biz_lines/spot/http/1/url", json!("a.example.com")),
            vec!["biz_lines.spot.http[1].url"],
            "not a URL",
        ),
        (
            "line URL ftp",
            with("/biz_lines/spot/http/1/url", json!("ftp://a.example.com")),
            vec!["biz_lines.spot.http[1].url"],
            "scheme",
        ),
        (
            "line URL port 0",
            with(
                "/biz_lines/spot/http/1/url",
                json!("https://a.example.com:0"),
            ),
            vec!["biz_lines.spot.http[1].url"],
            "port",
        ),
        (
            "line URL bad host",
            with("/biz_lines/spot/http/1/url", json!("https://a_b c")),
            vec!["biz_lines.spot.http[1].url"],
            "host",
        ),
        (
            "cleartext http line",
            with("/biz_lines/spot/http/1/url", json!("http://a.example.com")),
            vec!["biz_lines.spot.http[1].url"],
            "allow_cleartext",
        ),
        (
            "cleartext ws line",
            with("/biz_lines/spot/ws/0/url", json!("ws://a.example.com")),
            vec!["biz_lines.spot.ws[0].url"],
            "allow_cleartext",
        ),
        (
            "ws line in http pool",
            with("/biz_lines/spot/http/1/url", json!("wss://a.example.com")),
            vec!["biz_lines.spot.http[1].url"],
            "http or https",
        ),
        (
            "https line in ws pool",
            with("/biz_lines/spot/ws/0/url", json!("https://a.example.com")),
            vec!["biz_lines.spot.ws[0].url"],
            "ws or wss",
        ),
        (
            "provider over http",
            with("/httpdns/providers/0/url", json!("http://203.0.113.7/d")),
            vec!["httpdns.providers[0].url"],
            "allow_cleartext",
        ),
        (
            "provider without host",
            with("/httpdns/providers/0/url", json!("https:///d")),
            vec!["httpdns.providers[0].url"],
            "host",
        ),
        // Hosts and paths.
        (
            "bad match host",
            with("/biz_lines/spot/match", json!(["api example"])),
            vec!["biz_lines.spot.match[0]"],
            "host",
        ),
        (
            "host matched by two business lines",
            with("/biz_lines/cdn/match", json!(["API.example.com."])),
            vec!["biz_lines.spot.match[0]"],
            "business line cdn",
        ),
        (
            "detect path without slash",
            with("/biz_lines/spot/detect_path", json!("line/ping")),
            vec!["biz_lines.spot.detect_path"],
            "start with /",
        ),
        (
            "merge host wildcard",
            with("/merge_hosts/0/host", json!("*.example.com")),
            vec!["merge_hosts[0].host"],
            "host",
        ),
        (
            "unknown biz in merge_hosts",
            with("/merge_hosts/0/biz", json!("img")),
            vec!["merge_hosts[0].biz"],
            "unknown business line",
        ),
        (
            "prefix without slash",
            with("/merge_hosts/0/path_prefix", json!("image")),
            vec!["merge_hosts[0].path_prefix"],
            "start with /",
        ),
        (
            "prefix with trailing slash",
            with("/merge_hosts/0/path_prefix", json!("/image/")),
            vec!["merge_hosts[0].path_prefix"],
            "not end with /",
        ),
        (
            "bad httpdns host pattern",
            with("/httpdns/hosts", json!(["*"])),
            vec!["httpdns.hosts[0]"],
            "pattern",
        ),
        (
            "bad allow_private pattern",
            with("/httpdns/allow_private", json!(["a..b"])),
            vec!["httpdns.allow_private[0]"],
            "pattern",
        ),
        // Empty pools.
        (
            "business line without lines",
            with("/biz_lines/cdn", json!({"match": ["cdn.example.com"]})),
            vec!["biz_lines.cdn"],
            "empty pool",
        ),
        (
            "explicitly empty http pool",
            with("/biz_lines/cdn/http", json!([])),
            vec!["biz_lines.cdn.http"],
            "empty pool",
        ),
        (
            "explicitly empty ws pool",
            with("/biz_lines/spot/ws", json!([])),
            vec!["biz_lines.spot.ws"],
            "empty pool",
        ),
        (
            "no lines and a malformed match",
            with("/biz_lines/cdn", json!({"match": 5})),
            vec!["biz_lines.cdn", "biz_lines.cdn.match"],
            "",
        ),
        (
            "both pools empty",
            with("/biz_lines/cdn", json!({"http": [], "ws": []})),
            vec!["biz_lines.cdn.http", "biz_lines.cdn.ws"],
            "empty pool",
        ),
    ];
    for (name, doc, want, needle) in cases {
        let errors = errors_of(&doc.to_string());
        let mut want: Vec<String> = want.into_iter().map(String::from).collect();
        want.sort();
        assert_eq!(paths(&errors), want, "{name}: {errors:?}");
        assert!(
            errors.iter().all(|e| e.error.contains(needle)),
            "{name}: expected {needle:?} in {errors:?}"
        );
    }
}

/// The wire format is a cargo feature: with it a `doh-wire` provider validates; without it
/// the same document is rejected at the format's path (checked in `httpdns_engine`).
#[cfg(feature = "doh-wire")]
#[test]
fn a_doh_wire_provider_validates_when_the_feature_is_built() {
    let doc = with(
        "/httpdns/providers",
        json!([{"id": "w", "format": "doh-wire", "url": "https://d.example/dns-query"}]),
    );
    assert_eq!(errors_of(&doc.to_string()), Vec::<FieldError>::new());
}

#[test]
fn cleartext_lines_are_accepted_when_allowed() {
    let mut doc = with(
        "/biz_lines/spot/http/1/url",
        json!("http://a.example.com:8080"),
    );
    doc["allow_cleartext"] = json!(true);
    doc["biz_lines"]["spot"]["ws"][0]["url"] = json!("ws://ws.example.com");
    doc["httpdns"]["providers"][0]["url"] = json!("http://203.0.113.7/100000/d");
    assert_eq!(errors_of(&doc.to_string()), []);
}

#[test]
fn a_malformed_allow_cleartext_does_not_pile_up_url_errors() {
    let mut doc = with("/biz_lines/spot/http/1/url", json!("http://a.example.com"));
    doc["allow_cleartext"] = json!("yes");
    assert_eq!(paths(&errors_of(&doc.to_string())), ["allow_cleartext"]);
}

#[test]
fn documents_that_are_not_config_objects_are_rejected_at_the_root() {
    for text in ["[]", "\"spot\"", "1", "null", "true"] {
        let errors = errors_of(text);
        assert_eq!(paths(&errors), [""], "{text}");
        assert!(
            errors[0].error.contains("JSON object"),
            "{text}: {errors:?}"
        );
    }
    for text in [
        "",
        "{",
        "{\"version\": 1,}",
        "{'a': 1}",
        "\u{feff}{}",
        "{\"a\":\"secret-token",
    ] {
        let errors = errors_of(text);
        assert_eq!(paths(&errors), [""], "{text:?}");
        assert!(
            errors[0].error.contains("line 1 column"),
            "{text:?}: {errors:?}"
        );
        assert!(!errors[0].error.contains("secret-token"));
    }
}

#[test]
fn oversized_input_is_rejected_without_parsing() {
    let ten_mb = format!(
        "{{\"version\":1,\"x\":\"{}\"}}",
        "a".repeat(10 * 1024 * 1024)
    );
    let errors = errors_of(&ten_mb);
    assert_eq!(paths(&errors), [""]);
    assert_eq!(
        errors[0].error,
        format!("config is {} bytes; limit is 1048576 bytes", ten_mb.len())
    );
    // Just under the limit is parsed (and valid: unknown fields are ignored).
    let mut doc = base();
    doc["padding"] = json!("");
    let overhead = doc.to_string().len();
    doc["padding"] = json!("p".repeat(MAX_CONFIG_BYTES - overhead));
    let text = doc.to_string();
    assert_eq!(text.len(), MAX_CONFIG_BYTES);
    assert!(parse_config(&text).is_ok());
}

#[test]
fn deeply_nested_junk_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(paths(&errors_of(&deep)), [""]);
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    assert_eq!(paths(&errors_of(&deep_obj)), [""]);
    // Nested junk under an unknown field, within serde's depth limit, is ignored.
    let mut doc = base();
    let mut junk = json!(1);
    for _ in 0..100 {
        junk = json!([junk, {"k": null}]);
    }
    doc["future_field"] = junk;
    assert_eq!(errors_of(&doc.to_string()), []);
    // Junk where a known object is expected is one error at that path.
    let mut doc = base();
    doc["httpdns"] = json!([[[[[[{"providers": 1}]]]]]]);
    assert_eq!(paths(&errors_of(&doc.to_string())), ["httpdns"]);
}

#[test]
fn a_config_with_many_problems_reports_all_of_them() {
    let doc = json!({
        "version": "three",
        "allow_cleartext": false,
        "thresholds": {"timeout_ms": 0, "max_retries": 9, "window_ms": -1},
        "biz_lines": {
            "spot": {
                "match": ["api.example.com", "bad host"],
                "detect_path": "ping",
                "http": [
                    {"id": "a", "url": "http://a.example.com"},
                    {"id": "a", "url": "https://b.example.com/path", "weight": 0},
                    {"url": "https://c.example.com"},
                    "junk"
                ],
                "ws": []
            },
            "Bad Name": {},
            "cdn": {"match": ["api.example.com"], "http": [{"id": "m", "url": "https://cdn.example.com"}]}
        },
        "merge_hosts": [
            {"host": "image.example.com", "biz": "images", "path_prefix": "image/", "rate": 7},
            {"host": "image.example.com", "biz": "cdn"}
        ],
        "httpdns": {
            "providers": [{"id": "p", "format": "dnspod", "url": "ftp://x"}, {"id": "p", "format": "aliyun"}],
            "refresh_ratio": 1.5, "jitter_ratio": -0.5, "min_ttl_s": 100, "max_ttl_s": 10
        },
        "trace": {"sample_rate": -1}
    });
    let errors = errors_of(&doc.to_string());
    let mut want = vec![
        "version",
        "thresholds.timeout_ms",
        "thresholds.max_retries",
        "thresholds.window_ms",
        "biz_lines.spot.match[1]",
        "biz_lines.spot.detect_path",
        "biz_lines.spot.http[0].url",
        "biz_lines.spot.http[1].id",
        "biz_lines.spot.http[1].url",
        "biz_lines.spot.http[1].weight",
        "biz_lines.spot.http[2].id",
        "biz_lines.spot.http[3]",
        "biz_lines.spot.ws",
        "biz_lines[\"Bad Name\"]",
        "biz_lines.spot.match[0]",
        "merge_hosts[0].biz",
        "merge_hosts[0].path_prefix",
        "merge_hosts[0].rate",
        "merge_hosts[1].host",
        "httpdns.providers[0].url",
        "httpdns.providers[1].id",
        "httpdns.providers[1].url",
        "httpdns.refresh_ratio",
        "httpdns.jitter_ratio",
        "httpdns.min_ttl_s",
        "trace.sample_rate",
    ];
    // "Bad Name" is both badly named and empty.
    want.push("biz_lines[\"Bad Name\"]");
    want.sort();
    assert_eq!(paths(&errors), want, "{errors:#?}");
}

#[test]
fn the_reference_example_parses_with_defaults_applied() {
    let c = parse_config(REFERENCE_EXAMPLE).expect("the reference example is valid");
    assert_eq!(c.version, 3);
    assert!(!c.downgrade && !c.allow_cleartext);
    assert_eq!(c.thresholds, linekit_core::config::Thresholds::default());
    let spot = &c.biz_lines["spot"];
    assert_eq!(spot.match_hosts, ["api.example.com"]);
    assert_eq!(spot.http[0].weight, 100);
    assert_eq!(spot.http[1].priority, Some(1));
    assert_eq!(spot.http[1].weight, 100, "weight defaults to 100");
    assert_eq!(spot.ws[0].priority, None);
    let cdn = &c.biz_lines["cdn"];
    assert_eq!(cdn.detect_path, "/line/ping", "detect_path defaults");
    assert!(cdn.match_hosts.is_empty() && cdn.ws.is_empty());
    assert_eq!(c.merge_hosts[0].rate, 1.0);
    assert_eq!(c.httpdns.providers.len(), 2);
    assert_eq!(c.httpdns.allow_private, ["intranet.example.com"]);
    assert_eq!((c.httpdns.min_ttl_s, c.httpdns.max_ttl_s), (30, 3600));
    assert_eq!(c.trace.sample_rate, 0.01);

    // A minimal document gets every default from the model.
    let minimal = r#"{"version": 0, "biz_lines": {"a": {"http": [{"id": "x", "url": "https://a.example.com"}]}}}"#;
    let m = parse_config(minimal).expect("minimal config");
    assert_eq!(m.thresholds, linekit_core::config::Thresholds::default());
    assert_eq!(m.httpdns, linekit_core::config::HttpDnsConfig::default());
    assert_eq!(m.trace, linekit_core::config::TraceConfig::default());
    assert!(m.merge_hosts.is_empty());
}

#[test]
fn unknown_fields_are_ignored_everywhere() {
    let mut doc = base();
    doc["new_top_level"] = json!({"x": 1});
    doc["biz_lines"]["spot"]["new_field"] = json!(true);
    doc["biz_lines"]["spot"]["http"][0]["region"] = json!("eu");
    doc["merge_hosts"][0]["note"] = json!(null);
    doc["httpdns"]["providers"][0]["secret"] = json!("s");
    assert_eq!(errors_of(&doc.to_string()), []);
}

#[test]
fn error_texts_never_echo_urls_or_values() {
    let doc = with(
        "/biz_lines/spot/http/1/url",
        json!("https://user:secret-token@a.example.com/secret-path"),
    );
    let mut doc2 = doc.clone();
    doc2["httpdns"]["providers"][0]["url"] = json!("http://secret-token.example/x");
    doc2["version"] = json!("secret-token");
    for d in [doc, doc2] {
        let errors = errors_of(&d.to_string());
        assert!(!errors.is_empty());
        for e in errors {
            assert!(
                !e.error.contains("secret") && !e.path.contains("secret"),
                "{e:?}"
            );
        }
    }
}

/// Every leaf of the reference example replaced by every kind of JSON value: the walk and the
/// serde model must agree (walk accepts ⇒ serde accepts), and nothing panics.
#[test]
fn the_walk_agrees_with_the_model_for_every_field_and_type() {
    let example: Value = serde_json::from_str(REFERENCE_EXAMPLE).expect("fixture is JSON");
    let mut pointers = Vec::new();
    collect_pointers(&example, String::new(), &mut pointers);
    assert!(pointers.len() > 50, "{}", pointers.len());
    let replacements = [
        Value::Null,
        json!(true),
        json!("s"),
        json!(-1),
        json!(0),
        json!(1),
        json!(0.5),
        json!(u64::MAX),
        json!([]),
        json!({}),
        json!(["a.example.com"]),
    ];
    let mut checked = 0;
    for pointer in &pointers {
        for replacement in &replacements {
            let mut doc = example.clone();
            if let Some(slot) = doc.pointer_mut(pointer) {
                *slot = replacement.clone();
            }
            match parse_config(&doc.to_string()) {
                Ok(_) => {}
                Err(Error::InvalidConfig(errors)) => {
                    assert!(!errors.is_empty());
                    assert!(
                        errors
                            .iter()
                            .all(|e| e.error != "config does not match the model"),
                        "{pointer} = {replacement}: the walk missed a shape error"
                    );
                }
                Err(other) => panic!("{pointer}: unexpected {other:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked > 500);
}

fn collect_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    if !at.is_empty() {
        out.push(at.clone());
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                collect_pointers(child, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect_pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn validate_applies_the_same_rules_to_typed_configs() {
    let mut c = parse_config(REFERENCE_EXAMPLE).expect("valid");
    assert_eq!(validate(&c), Ok(()));
    c.biz_lines.get_mut("spot").expect("spot").http[1].weight = 0;
    c.merge_hosts[0].rate = f64::NAN;
    c.merge_hosts[0].biz = "nope".into();
    c.thresholds.max_retries = 6;
    c.biz_lines.get_mut("cdn").expect("cdn").http.clear();
    let Err(Error::InvalidConfig(errors)) = validate(&c) else {
        panic!("expected errors");
    };
    assert_eq!(
        paths(&errors),
        [
            "biz_lines.cdn",
            "biz_lines.spot.http[1].weight",
            "merge_hosts[0].biz",
            "merge_hosts[0].rate",
            "thresholds.max_retries"
        ]
    );
    // An empty config (no business lines: nothing is rerouted) is a valid typed config.
    assert_eq!(validate(&Config::default()), Ok(()));
}

#[test]
fn single_line_builds_a_valid_fallback() {
    let c = Config::single_line("spot", "api.example.com", "https://spot-ali.example.com")
        .expect("valid single line");
    let spot = &c.biz_lines["spot"];
    assert_eq!(spot.match_hosts, ["api.example.com"]);
    assert_eq!(spot.http.len(), 1);
    assert_eq!(spot.http[0].id, "default");
    assert_eq!(validate(&c), Ok(()));

    let Err(Error::InvalidConfig(errors)) =
        Config::single_line("spot", "api.example.com", "http://spot.example.com")
    else {
        panic!("cleartext must be refused");
    };
    assert_eq!(paths(&errors), ["biz_lines.spot.http[0].url"]);
    let Err(Error::InvalidConfig(errors)) =
        Config::single_line("Spot Line", "bad host", "https://spot.example.com")
    else {
        panic!("bad names must be refused");
    };
    assert_eq!(
        paths(&errors),
        [
            "biz_lines[\"Spot Line\"]",
            "biz_lines[\"Spot Line\"].match[0]"
        ]
    );
}

#[test]
fn a_megabyte_of_malformed_items_is_reported_with_a_bounded_list() {
    let mut doc = base();
    doc["biz_lines"]["spot"]["match"] = json!(vec![1; 200_000]);
    let text = doc.to_string();
    assert!(text.len() < MAX_CONFIG_BYTES);
    let errors = errors_of(&text);
    assert_eq!(
        errors.len(),
        linekit_core::config::MAX_REPORTED_ERRORS + 1,
        "capped list plus one note"
    );
    assert_eq!(errors[0].path, "biz_lines.spot.match[0]");
    assert_eq!(errors[1].path, "biz_lines.spot.match[1]");
    let note = errors.last().expect("note");
    assert_eq!(note.path, "");
    assert!(note.error.contains("more problems"), "{note:?}");
}
