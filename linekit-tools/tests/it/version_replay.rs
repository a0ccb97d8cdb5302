//! The deployment-version guard through `linekit replay`: probe responses (`respond`
//! headers) and reported attempts (`report` `version`) carry a line's fingerprint;
//! `strict` skips an older backup while a same-version backup is usable and uses it,
//! flagged, when it is the only one left; `report` never changes a choice but flags it;
//! bad header values never become a fingerprint.

use crate::support;

use linekit_tools::replay;
use serde_json::{json, Value};
use support::replay::{line_at, run_json};

fn versions(lines: &[Value], t: u64) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = line_at(lines, "state", t)["pools"]["spot/http"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_str().unwrap().to_string(), l["version"].clone()))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

const HEADER: &str = "X-Deployment-Version";

/// Three lines by priority: `primary` and `same` run v2, `old` (ranked ahead of `same`)
/// runs v1. The primary's fingerprint comes from a reported attempt, the backups' from the
/// start-up probes. Then the primary fails, later `same` fails too.
fn scenario(policy: &str, old_probe_headers: Value) -> Value {
    let fail = |t: u64, line: &str| {
        json!({"at": t, "op": "report", "biz": "spot", "line": line,
               "outcome": "connect_refused", "cost_ms": 5})
    };
    let mut steps = vec![
        json!({"at": 0, "op": "route", "url": "https://api.example.com/a"}),
        json!({"at": 10, "op": "report", "biz": "spot", "line": "primary", "outcome": "ok",
               "status": 200, "cost_ms": 40, "version": "v2"}),
        json!({"at": 150, "op": "respond", "id": 1, "status": 204, "headers": {HEADER: "v2"}}),
        json!({"at": 150, "op": "respond", "id": 2, "status": 204, "headers": old_probe_headers}),
        json!({"at": 150, "op": "respond", "id": 3, "status": 204,
               "headers": {"x-deployment-version": " v2 "}}),
        json!({"at": 200, "op": "state"}),
    ];
    for t in [1_000, 1_001, 1_002] {
        steps.push(fail(t, "primary"));
    }
    steps.push(json!({"at": 1_100, "op": "route", "url": "https://api.example.com/b"}));
    for t in [1_200, 1_201, 1_202] {
        steps.push(fail(t, "same"));
    }
    steps.push(json!({"at": 1_300, "op": "route", "url": "https://api.example.com/c"}));
    steps.push(json!({"at": 1_400, "op": "state"}));
    json!({
        "config": {
            "version": 1,
            "thresholds": {"startup_detect_delay_ms": 100, "detect_jitter_ms": 0,
                           "failure_threshold": 3, "open_cooldown_ms": 600000,
                           "revive_interval_ms": 600000},
            "biz_lines": {"spot": {
                "match": ["api.example.com"],
                "version_header": HEADER,
                "version_policy": policy,
                "http": [
                    {"id": "primary", "url": "https://spot-a.example.com"},
                    {"id": "old", "url": "https://spot-old.example.net"},
                    {"id": "same", "url": "https://spot-b.example.org"}
                ]
            }}
        },
        "seed": 1,
        "steps": steps
    })
}

fn probes_are_the_three_lines(lines: &[Value]) {
    let probes: Vec<(u64, &str)> = lines
        .iter()
        .filter(|l| l["op"] == "request")
        .map(|l| (l["id"].as_u64().unwrap(), l["url"].as_str().unwrap()))
        .collect();
    assert_eq!(
        probes,
        vec![
            (1, "https://spot-a.example.com/line/ping"),
            (2, "https://spot-old.example.net/line/ping"),
            (3, "https://spot-b.example.org/line/ping"),
        ],
        "the scenario answers these ids"
    );
}

#[test]
fn strict_skips_the_older_backup_while_a_same_version_one_is_usable() {
    let lines = run_json(&scenario("strict", json!({HEADER: "v1"})));
    probes_are_the_three_lines(&lines);
    assert_eq!(
        versions(&lines, 200),
        vec![
            ("old".into(), json!("v1")),
            ("primary".into(), json!("v2")),
            ("same".into(), json!("v2")),
        ]
    );
    let first = line_at(&lines, "route", 0);
    assert_eq!(first["line"], "primary");
    assert_eq!(first["version_mismatch"], false);

    let after_primary = line_at(&lines, "route", 1_100);
    assert_eq!(
        after_primary["line"], "same",
        "old ranks ahead but runs v1: {after_primary}"
    );
    assert_eq!(after_primary["version_mismatch"], false);
    assert_eq!(after_primary["url"], "https://spot-b.example.org/b");

    let only_old = line_at(&lines, "route", 1_300);
    assert_eq!(
        only_old["line"], "old",
        "no v2 line is usable: the older one serves"
    );
    assert_eq!(only_old["version_mismatch"], true);
}

#[test]
fn report_only_flags() {
    let lines = run_json(&scenario("report", json!({HEADER: "v1"})));
    probes_are_the_three_lines(&lines);
    let after_primary = line_at(&lines, "route", 1_100);
    assert_eq!(
        after_primary["line"], "old",
        "report keeps the ranking's choice"
    );
    assert_eq!(after_primary["version_mismatch"], true);
    let later = line_at(&lines, "route", 1_300);
    assert_eq!(later["line"], "old");
    assert_eq!(later["version_mismatch"], true);
}

#[test]
fn without_a_known_fingerprint_a_line_is_compatible() {
    // The old backup's probe carries no version header: strict does not skip it.
    let lines = run_json(&scenario("strict", json!({"Server": "x"})));
    assert_eq!(versions(&lines, 200)[0], ("old".into(), Value::Null));
    let after_primary = line_at(&lines, "route", 1_100);
    assert_eq!(after_primary["line"], "old");
    assert_eq!(after_primary["version_mismatch"], false);
}

#[test]
fn bad_header_values_are_rejected_or_truncated_without_harm() {
    for bad in [
        json!("v1\r\nSet-Cookie: a=b"),
        json!("v1\u{0}"),
        json!("\u{7f}"),
        json!("v\u{fffd}1"),
        json!("   "),
    ] {
        let lines = run_json(&scenario("strict", json!({ HEADER: bad })));
        assert_eq!(
            versions(&lines, 200)[0],
            ("old".into(), Value::Null),
            "{bad} is not a fingerprint"
        );
        assert_eq!(line_at(&lines, "route", 1_100)["line"], "old");
    }
    let huge = "v1".repeat(100_000);
    let lines = run_json(&scenario("strict", json!({ HEADER: huge })));
    let (_, kept) = &versions(&lines, 200)[0];
    assert_eq!(kept.as_str().map(str::len), Some(64), "cut to 64 bytes");
    assert_eq!(
        line_at(&lines, "route", 1_100)["line"],
        "same",
        "a cut value is still a different fingerprint"
    );
}

#[test]
fn a_bad_version_policy_is_a_config_error_with_its_path() {
    let mut s = scenario("sometimes", json!({}));
    let mut out = Vec::new();
    let err = replay::run(&s.to_string(), &mut out)
        .unwrap_err()
        .to_string();
    assert!(err.contains("biz_lines.spot.version_policy"), "{err}");
    s["config"]["biz_lines"]["spot"]["version_policy"] = json!("strict");
    s["config"]["biz_lines"]["spot"]["version_header"] = json!("X Bad");
    let err = replay::run(&s.to_string(), &mut out)
        .unwrap_err()
        .to_string();
    assert!(err.contains("biz_lines.spot.version_header"), "{err}");
}
