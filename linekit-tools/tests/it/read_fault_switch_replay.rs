//! A response cut off, reset or stalled on the serving line moves traffic at once to a line
//! known to be fast, even inside the switch interval: a body already handed to the app
//! cannot be retried elsewhere, so waiting for the breaker would cut the next requests too.
//! Without a line known to be fast the rule does not apply (ranking and the breaker decide).

use crate::support;

use serde_json::{json, Value};
use support::replay::{line_at, run};

const FAULT_AT: u64 = 1_000;

/// `ali` (the heaviest) serves with a long switch interval; `tx` answered once, fast when
/// `tx_fast` (so it is known to be fast), else slower than `slow_request_ms`; `ali` then
/// reports `fault`.
fn scenario(fault: &str, tx_fast: bool) -> Value {
    scenario_then(fault, tx_fast, &[])
}

/// [`scenario`] with `after` (outcomes `ali` reports right after the fault) before the route.
fn scenario_then(fault: &str, tx_fast: bool, after: &[&str]) -> Value {
    let th = json!({"switch_interval_ms": 600_000, "startup_detect_delay_ms": 10_000_000});
    let route = |at: u64| json!({"at": at, "op": "route", "url": "https://api.example.com/big"});
    let report = |at: u64, line: &str, outcome: &str, cost_ms: u64| {
        json!({"at": at, "op": "report", "biz": "spot", "line": line,
               "outcome": outcome, "cost_ms": cost_ms})
    };
    let mut steps: Vec<Value> = (0..10).map(|k| report(100 + k, "ali", "ok", 60)).collect();
    steps.push(report(110, "tx", "ok", if tx_fast { 60 } else { 5_000 }));
    steps.extend([route(200), report(FAULT_AT, "ali", fault, 60)]);
    steps.extend(after.iter().map(|o| report(FAULT_AT, "ali", o, 60)));
    steps.push(route(FAULT_AT + 1));
    json!({"config": {"version": 1, "thresholds": th, "biz_lines": {"spot": {
            "match": ["api.example.com"], "http": [
                {"id": "ali", "url": "https://spot-ali.example.com", "weight": 100},
                {"id": "tx",  "url": "https://spot-tx.example.com",  "weight": 50}]}}},
           "seed": 1, "steps": steps})
}

/// The (line, reason) of the route right after the fault.
fn after_fault(fault: &str, tx_fast: bool) -> (String, String) {
    routed_after(&scenario(fault, tx_fast))
}

fn routed_after(scenario: &Value) -> (String, String) {
    let lines = run(&scenario.to_string());
    assert_eq!(line_at(&lines, "route", 200)["line"], "ali", "{lines:?}");
    let r = line_at(&lines, "route", FAULT_AT + 1);
    (
        r["line"].as_str().unwrap_or("-").to_string(),
        r["reason"].as_str().unwrap_or("-").to_string(),
    )
}

#[test]
fn a_read_side_fault_moves_traffic_to_a_line_known_fast_inside_the_interval() {
    for fault in ["truncated", "connection_reset", "read_timeout"] {
        assert_eq!(
            after_fault(fault, true),
            ("tx".to_string(), "read_fault_switch".to_string()),
            "after {fault}"
        );
    }
}

#[test]
fn without_a_line_known_fast_a_read_side_fault_does_not_force_a_move() {
    let (_, reason) = after_fault("truncated", false);
    assert_ne!(reason, "read_fault_switch");
}

#[test]
fn a_connect_fault_is_left_to_ranking_and_the_breaker() {
    let (_, reason) = after_fault("connect_refused", true);
    assert_ne!(reason, "read_fault_switch");
}

/// Another call's headers arriving on the cut line right after the cut (an `ok` report of
/// a response whose body is still streaming) do not keep traffic there.
#[test]
fn a_concurrent_ok_after_the_cut_does_not_keep_traffic_on_the_line() {
    assert_eq!(
        routed_after(&scenario_then("truncated", true, &["ok"])),
        ("tx".to_string(), "read_fault_switch".to_string())
    );
}
