//! `linekit replay` drives the real engine with a virtual clock (`docs/replay.md`): the outage
//! scenario in `tests/scenarios/outage_failover.json` must move traffic within one failed
//! request, open and later close the primary's breaker, return to the primary once the
//! outage leaves the window, and print byte-identical output on every run.

use crate::support;

use linekit_tools::replay;
use serde_json::Value;
use support::replay::{breaker_at, output, routes, run};

const OUTAGE: &str = include_str!("../scenarios/outage_failover.json");

#[test]
fn outage_moves_traffic_within_one_failed_request_and_recovers() {
    let lines = run(OUTAGE);
    let r = routes(&lines);
    let at = |t: u64| r.iter().find(|(a, _, _)| *a == t).cloned().unwrap();
    assert_eq!(at(0).1, "ali");
    let probes: Vec<&Value> = lines.iter().filter(|l| l["op"] == "request").collect();
    assert_eq!(
        probes.len(),
        2,
        "one start-up detect probes both lines once"
    );
    assert!(probes
        .iter()
        .all(|p| p["kind"] == "probe" && p["method"] == "HEAD"));
    assert_eq!(probes[0]["url"], "https://spot-ali.example.com/line/ping");
    assert_eq!(probes[1]["url"], "https://spot-tx.example.com/line/ping");
    let started = probes[0]["at"].as_u64().unwrap();
    assert!(
        (3_000..=5_000).contains(&started),
        "start-up delay plus jitter: {started}"
    );
    assert_eq!(
        at(10000).1,
        "ali",
        "the probe verified tx, so traffic stays on the heavier line"
    );
    assert_eq!(at(20000).1, "ali");
    assert_eq!(at(30000).1, "ali", "the request that hits the outage");
    assert_eq!(
        (at(30004).1.as_str(), at(30004).2.as_str()),
        ("tx", "retry_excluded")
    );
    assert_eq!(
        (at(30100).1.as_str(), at(30100).2.as_str()),
        ("tx", "ranked"),
        "moved after one failure"
    );
    assert_eq!(at(31000).1, "tx");
    assert_eq!(breaker_at(&lines, 31300, "spot/http", "ali"), "open");
    assert_eq!(at(40000).1, "tx");
    assert_eq!(breaker_at(&lines, 61300, "spot/http", "ali"), "half_open");
    assert_eq!(
        at(62011).1,
        "ali",
        "the half-open primary takes the retry as its trial"
    );
    assert_eq!(breaker_at(&lines, 62100, "spot/http", "ali"), "closed");
    assert_eq!(
        at(63000).1,
        "ali",
        "the read timeout on tx is a line fault: traffic moves to the primary that just answered"
    );
    assert_eq!(
        (at(340000).1.as_str(), at(340000).2.as_str()),
        ("ali", "sticky"),
        "after the window the preferred line keeps the traffic"
    );
    assert_eq!(
        (at(341000).1.as_str(), at(341000).2.as_str()),
        ("ali", "sticky")
    );
}

#[test]
fn output_is_byte_identical_across_runs() {
    let a = output(OUTAGE);
    assert!(!a.is_empty());
    assert_eq!(a, output(OUTAGE));
}

#[test]
fn route_output_strips_private_headers_and_keeps_the_query() {
    let lines = run(OUTAGE);
    let first = &lines[0];
    assert_eq!(
        first["url"],
        "https://spot-ali.example.com/v1/ticker?sym=BTC%2FUSDT"
    );
    assert_eq!(
        first["headers"],
        serde_json::json!({"Accept": "application/json"})
    );
}

#[test]
fn config_op_applies_newer_and_rejects_older_versions() {
    let scenario = serde_json::json!({
        "config": {"version": 5, "biz_lines": {"a": {"match": ["a.example.com"], "http": [{"id": "x", "url": "https://x.example.com"}]}}},
        "seed": 1,
        "steps": [
            {"at": 0, "op": "config", "config": {"version": 4, "biz_lines": {"a": {"http": [{"id": "y", "url": "https://y.example.com"}]}}}},
            {"at": 1, "op": "config", "config": {"version": 5, "biz_lines": {"a": {"http": [{"id": "y", "url": "https://y.example.com"}]}}}},
            {"at": 2, "op": "config", "config": {"version": 6, "biz_lines": {"a": {"http": []}}}},
            {"at": 3, "op": "route", "url": "https://a.example.com/"},
            {"at": 4, "op": "config", "config": {"version": 6, "biz_lines": {"a": {"match": ["a.example.com"], "http": [{"id": "y", "url": "https://y.example.com"}]}}}},
            {"at": 5, "op": "route", "url": "https://a.example.com/"},
            {"at": 6, "op": "downgrade", "on": true},
            {"at": 7, "op": "route", "url": "https://a.example.com/"}
        ]
    });
    let lines = run(&scenario.to_string());
    assert_eq!(
        (lines[0]["applied"].as_bool(), lines[0]["version"].as_u64()),
        (Some(false), Some(5))
    );
    assert!(lines[0]["error"].as_str().unwrap().contains("not newer"));
    assert_eq!(lines[1]["applied"], false);
    assert_eq!(lines[2]["applied"], false, "an invalid config is rejected");
    assert!(lines[2]["error"]
        .as_str()
        .unwrap()
        .contains("biz_lines.a.http"));
    assert_eq!(lines[3]["line"], "x");
    assert_eq!(
        (lines[4]["applied"].as_bool(), lines[4]["version"].as_u64()),
        (Some(true), Some(6))
    );
    assert_eq!(lines[5]["line"], "y");
    assert_eq!(lines[6]["reason"], "downgrade");
}

#[test]
fn bad_scenarios_fail_with_the_step_index_and_print_nothing() {
    let base = |steps: &str| {
        format!(
            r#"{{"config": {{"version": 1, "biz_lines": {{"a": {{"http": [{{"id": "x", "url": "https://x.example.com"}}]}}}}}}, "steps": {steps}}}"#
        )
    };
    for (steps, needle) in [
        (
            r#"[{"at": 5, "op": "tick"}, {"at": 4, "op": "tick"}]"#,
            "steps[1].at",
        ),
        (r#"[{"at": 0, "op": "fly"}]"#, "steps[0]"),
        (
            r#"[{"at": 0, "op": "report", "line": "x", "outcome": "meh"}]"#,
            "steps[0].outcome",
        ),
        (
            r#"[{"at": 0, "op": "report", "outcome": "ok"}]"#,
            "needs `line` or `host`",
        ),
        (r#"[{"at": 0, "op": "route"}]"#, "steps[0]"),
        (
            r#"[{"at": 0, "op": "network", "handle": 1, "validated": true, "private_dns": "maybe"}]"#,
            "private_dns",
        ),
    ] {
        let mut out = Vec::new();
        let err = replay::run(&base(steps), &mut out).unwrap_err().to_string();
        assert!(err.contains(needle), "{steps}: {err}");
        assert!(out.is_empty());
    }
    for junk in ["", "[]", "{", "{\"config\": 1, \"steps\": []}", "null"] {
        assert!(replay::run(junk, &mut Vec::new()).is_err(), "{junk:?}");
    }
}
