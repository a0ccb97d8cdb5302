//! Config validation (`docs/config.md#validation`): every malformed document yields path-qualified errors —
//! all of them, never a panic — and valid documents get the documented defaults.
//! The one-field breakages of a small valid config are data (`fixtures/config_errors.json`),
//! run by one driver; the tests that build their documents in code follow it.

use linekit_core::config::{parse_config, validate, Config, MAX_CONFIG_BYTES};
use linekit_core::error::{Error, FieldError};
use serde::Deserialize;
use serde_json::{json, Value};

const REFERENCE_EXAMPLE: &str = include_str!("../fixtures/reference_example.json");
const MALFORMED_CASES: &str = include_str!("../fixtures/config_errors.json");
/// Cases of the bounds of numbers and of the forms of hosts, ports, paths and ids that
/// would validate yet mislead (same format as `config_errors.json`).
const LIMIT_CASES: &str = include_str!("../fixtures/config_limits.json");

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

/// [`base`] with `value` set at a JSON pointer.
fn with(pointer: &str, value: Value) -> Value {
    let mut doc = base();
    set(&mut doc, pointer, value);
    doc
}

/// Sets `value` at a JSON pointer, creating nothing: the parent must exist.
fn set(doc: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    let target = doc.pointer_mut(parent).expect("parent exists");
    match target {
        Value::Object(map) => {
            map.insert(key.to_string(), value);
        }
        Value::Array(items) => items[key.parse::<usize>().expect("index")] = value,
        _ => panic!("parent of {pointer} is not a container"),
    }
}

/// Removes the field at a JSON pointer; its parent must be an object.
fn remove(doc: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    doc.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .expect("parent is an object")
        .remove(key);
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

/// A group of cases in `fixtures/config_errors.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseGroup {
    group: String,
    cases: Vec<MalformedCase>,
}

/// One malformed document: [`base`] without the fields at the `remove` pointers and with
/// the values of `set` at theirs; validating it must report exactly `paths` (in any
/// order), each error's text containing `error`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MalformedCase {
    name: String,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    set: serde_json::Map<String, Value>,
    paths: Vec<String>,
    error: String,
}

/// How many cases the fixture held when they moved out of this file: it may grow, never
/// silently shrink.
const MALFORMED_CASES_AT_LEAST: usize = 75;

/// How many cases `config_limits.json` held when it was written.
const LIMIT_CASES_AT_LEAST: usize = 58;

#[test]
fn each_malformed_document_reports_exactly_its_paths() {
    for (fixture, file, at_least) in [
        (
            MALFORMED_CASES,
            "config_errors.json",
            MALFORMED_CASES_AT_LEAST,
        ),
        (LIMIT_CASES, "config_limits.json", LIMIT_CASES_AT_LEAST),
    ] {
        let run = run_cases(fixture);
        assert!(run >= at_least, "only {run} cases in {file}");
    }
}

/// Runs every case of a fixture (see [`MalformedCase`]); returns how many ran.
fn run_cases(fixture: &str) -> usize {
    let groups: Vec<CaseGroup> =
        serde_json::from_str(fixture).expect("the fixture holds case groups");
    let mut run = 0;
    for CaseGroup { group, cases } in groups {
        for case in cases {
            let name = format!("{group}: {}", case.name);
            let mut doc = base();
            for pointer in &case.remove {
                remove(&mut doc, pointer);
            }
            for (pointer, value) in case.set {
                set(&mut doc, &pointer, value);
            }
            assert_ne!(doc, base(), "{name}: the case changes nothing");
            let errors = errors_of(&doc.to_string());
            let mut want = case.paths;
            want.sort();
            assert_eq!(paths(&errors), want, "{name}: {errors:?}");
            assert!(
                errors.iter().all(|e| e.error.contains(&case.error)),
                "{name}: expected {:?} in {errors:?}",
                case.error
            );
            run += 1;
        }
    }
    run
}

/// Every maximum is inclusive: a config at each of them validates (so the bounds stop
/// only values no real config holds).
#[test]
fn values_at_their_maxima_validate() {
    use linekit_core::config::limits::*;
    let mut doc = base();
    doc["version"] = json!(MAX_VERSION);
    doc["thresholds"] = json!({
        "timeout_ms": MAX_DEADLINE_MS, "slow_request_ms": MAX_DEADLINE_MS,
        "slow_switch_ms": MAX_DEADLINE_MS, "detect_jitter_ms": MAX_DELAY_MS,
        "urgent_jitter_ms": MAX_DELAY_MS, "ws_stable_ms": MAX_DELAY_MS,
        "detect_cooldown_ms": MAX_PERIOD_MS, "switch_interval_ms": MAX_PERIOD_MS,
        "window_ms": MAX_PERIOD_MS, "open_cooldown_ms": MAX_PERIOD_MS,
        "revive_interval_ms": MAX_PERIOD_MS, "startup_detect_delay_ms": MAX_PERIOD_MS,
        "read_fault_hold_ms": MAX_PERIOD_MS, "buffer_body_max_bytes": MAX_BUFFER_BODY_BYTES,
        "failure_threshold": MAX_FAILURE_THRESHOLD, "max_retries": MAX_RETRIES,
        "probe_budget_per_min": MAX_PROBE_BUDGET_PER_MIN,
        "slow_switch_count": MAX_SLOW_SWITCH_COUNT
    });
    doc["biz_lines"]["spot"]["http"][0]["priority"] = json!(MAX_PRIORITY);
    doc["httpdns"]["max_ttl_s"] = json!(MAX_TTL_S);
    doc["httpdns"]["min_ttl_s"] = json!(MAX_TTL_S);
    doc["trace"] = json!({"window_ms": MAX_DELAY_MS});
    doc["remote"] = json!({"urls": ["https://cfg.example.com/c?t=1"],
        "interval_s": MAX_INTERVAL_S, "jitter_s": MAX_INTERVAL_S, "timeout_ms": MAX_DEADLINE_MS});
    doc["expires_at"] = json!(MAX_EXPIRES_AT_S);
    assert_eq!(errors_of(&doc.to_string()), Vec::<FieldError>::new());
}

/// DNSPod's encrypted kinds over plain HTTP are accepted once the config consents to
/// cleartext, and over HTTPS without it.
#[test]
fn unauthenticated_httpdns_over_http_needs_consent() {
    for kind in [
        json!({"kind": "dnspod-des", "id": "1", "key": "8bytekey"}),
        json!({"kind": "dnspod-aes", "id": "1", "key": "0123456789abcdef"}),
    ] {
        let provider =
            |url: &str| json!([{"id": "tx", "format": "dnspod", "url": url, "auth": kind}]);
        let mut doc = with("/httpdns/providers", provider("http://119.29.29.98/d"));
        assert_eq!(
            paths(&errors_of(&doc.to_string())),
            ["httpdns.providers[0].url"]
        );
        doc["allow_cleartext"] = json!(true);
        assert_eq!(errors_of(&doc.to_string()), Vec::<FieldError>::new());
        let https = with("/httpdns/providers", provider("https://119.29.29.98/d"));
        assert_eq!(errors_of(&https.to_string()), Vec::<FieldError>::new());
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

#[test]
fn fixed_hosts_are_exact_host_names_and_never_addresses() {
    let ok = with(
        "/fixed_hosts",
        json!(["pin.example.com", "pin.example.com:8443"]),
    );
    let config = parse_config(&ok.to_string()).expect("valid fixed_hosts");
    assert_eq!(config.fixed_hosts.len(), 2);
    // (entries, bad indices, error text)
    for (entries, bad, error) in [
        (json!(["10.0.0.1"]), vec![0], "IP literal"),
        (json!(["ok.example.com", "[::1]:22"]), vec![1], "IP literal"),
        (
            json!(["2130706433", "127.1"]),
            vec![0, 1],
            "invalid host name",
        ),
        (json!(["https://pin.example.com"]), vec![0], "no scheme"),
        (json!(["*.example.com"]), vec![0], "invalid host name"),
        (json!(["pin.example.com:0"]), vec![0], "port"),
        (
            json!(["a.example.com", "A.example.com."]),
            vec![1],
            "already listed at fixed_hosts[0]",
        ),
        (json!([7]), vec![0], ""),
    ] {
        let errors = errors_of(&with("/fixed_hosts", entries.clone()).to_string());
        let want: Vec<String> = bad.iter().map(|i| format!("fixed_hosts[{i}]")).collect();
        assert_eq!(paths(&errors), want, "{entries}: {errors:?}");
        assert!(
            errors.iter().all(|e| e.error.contains(error)),
            "{entries}: {errors:?}"
        );
    }
    let many: Vec<String> = (0..=linekit_core::config::MAX_FIXED_HOSTS)
        .map(|i| format!("h{i}.example.com"))
        .collect();
    let errors = errors_of(&with("/fixed_hosts", json!(many)).to_string());
    assert_eq!(paths(&errors), ["fixed_hosts"]);
}
