//! A probe that sees no body cannot vouch for a line real traffic just found cutting,
//! resetting or stalling responses: for `read_fault_hold_ms` after such a fault, a passing
//! HEAD probe neither clears the fault nor ranks the line first again (so the next large
//! GET is not sent back to be cut). A probe that verifies a body (`GET` with
//! `detect_expect_length`) still brings the line back, and so does any passing probe once
//! the hold is over.

use crate::support;

use serde_json::{json, Value};
use support::replay::{line_at, pool_at, run};

const FAULT_AT: u64 = 1_000;

/// `ali` (the heaviest) serves; a read-side fault at [`FAULT_AT`] moves traffic to `tx`;
/// a manual detect at `detect_at` (no jitter) probes both lines and both answer at once
/// with `body`. Routes once at `detect_at + 200` and prints the pool at `detect_at + 201`.
fn scenario(fault: &str, detect_at: u64, thresholds: Value, detect: Value, body: &str) -> Value {
    let mut th = json!({"detect_jitter_ms": 0, "switch_interval_ms": 0,
                        "startup_detect_delay_ms": 10_000_000});
    for (k, v) in thresholds.as_object().unwrap() {
        th[k] = v.clone();
    }
    let mut spot = json!({"match": ["api.example.com"], "http": [
        {"id": "ali", "url": "https://spot-ali.example.com", "weight": 100},
        {"id": "tx",  "url": "https://spot-tx.example.com",  "weight": 50}
    ]});
    for (k, v) in detect.as_object().unwrap() {
        spot[k] = v.clone();
    }
    let route = |at: u64| json!({"at": at, "op": "route", "url": "https://api.example.com/big"});
    let report = |at: u64, line: &str, outcome: &str| {
        json!({"at": at, "op": "report", "biz": "spot", "line": line,
               "outcome": outcome, "cost_ms": 60})
    };
    // Enough earlier successes that one fault leaves `ali` in the healthy tier.
    let mut steps: Vec<Value> = (0..10).map(|k| report(100 + k, "ali", "ok")).collect();
    steps.extend([
        report(110, "tx", "ok"),
        route(200),
        report(FAULT_AT, "ali", fault),
        route(FAULT_AT + 1),
        json!({"at": detect_at, "op": "detect", "biz": "spot"}),
    ]);
    // The probes get ids 1 and 2 (nothing else goes through the transport here).
    for id in [1, 2] {
        steps.push(json!({"at": detect_at + 100, "op": "respond", "id": id,
                          "status": 200, "body": body}));
    }
    steps.push(route(detect_at + 200));
    steps.push(json!({"at": detect_at + 201, "op": "state"}));
    json!({"config": {"version": 1, "thresholds": th, "biz_lines": {"spot": spot}},
           "seed": 1, "steps": steps})
}

/// The line routed after the probes answered, and `ali`'s state then.
fn after_probes(scenario: &Value, detect_at: u64) -> (String, Value) {
    let lines = run(&scenario.to_string());
    assert_eq!(line_at(&lines, "route", 200)["line"], "ali", "{lines:?}");
    assert_eq!(
        line_at(&lines, "route", FAULT_AT + 1)["line"],
        "tx",
        "the fault moves traffic"
    );
    let probes = lines
        .iter()
        .filter(|l| l["op"] == "request" && l["kind"] == "probe")
        .count();
    assert_eq!(probes, 2, "{lines:?}");
    let ali = pool_at(&lines, detect_at + 201, "spot/http")
        .iter()
        .find(|l| l["id"] == "ali")
        .unwrap()
        .clone();
    let routed = line_at(&lines, "route", detect_at + 200)["line"]
        .as_str()
        .unwrap()
        .to_string();
    (routed, ali)
}

#[test]
fn a_head_probe_success_does_not_bring_back_a_line_that_cut_a_body() {
    for fault in ["truncated", "connection_reset", "read_timeout"] {
        let s = scenario(fault, 2_000, json!({}), json!({}), "");
        let (routed, ali) = after_probes(&s, 2_000);
        assert_eq!(routed, "tx", "{fault}: the HEAD success is held: {ali}");
        assert_eq!(ali["failures"], 1, "{ali}");
        assert_eq!(ali["successes"], 10, "the probe is not counted: {ali}");
    }
}

#[test]
fn without_the_hold_the_head_probe_ranks_the_cut_line_first_again() {
    let s = scenario(
        "truncated",
        2_000,
        json!({"read_fault_hold_ms": 0}),
        json!({}),
        "",
    );
    let (routed, ali) = after_probes(&s, 2_000);
    assert_eq!(routed, "ali", "{ali}");
    assert_eq!(ali["successes"], 11);
}

#[test]
fn a_probe_that_verifies_a_body_brings_the_line_back() {
    let detect =
        json!({"detect_method": "GET", "detect_path": "/line/blob", "detect_expect_length": 8});
    let s = scenario("truncated", 2_000, json!({}), detect, "12345678");
    let (routed, ali) = after_probes(&s, 2_000);
    assert_eq!(routed, "ali", "{ali}");
}

#[test]
fn after_the_hold_a_head_probe_success_counts_again() {
    let detect_at = FAULT_AT + 60_000;
    let s = scenario("truncated", detect_at, json!({}), json!({}), "");
    let (routed, ali) = after_probes(&s, detect_at);
    assert_eq!(routed, "ali", "the default hold is 60 s: {ali}");
}

#[test]
fn connect_side_faults_are_not_held() {
    let s = scenario("connect_refused", 2_000, json!({}), json!({}), "");
    let (routed, _) = after_probes(&s, 2_000);
    assert_eq!(
        routed, "ali",
        "a refused connect is what a HEAD probe does test"
    );
}
