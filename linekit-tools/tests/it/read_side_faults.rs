//! Read-side failures are line faults, replayed through the real engine: a request that was
//! sent and then stalled (`read_timeout`), reset (`connection_reset`) or cut off
//! (`truncated`) moves the pool to the next line at once and counts toward the breaker,
//! exactly like a refused connect; `cancelled` and `http_4xx` do not.

use crate::support;

use linekit_tools::replay;
use serde_json::{json, Value};
use support::replay::run_json;

fn scenario(outcome: &str, repeats: u64) -> Value {
    let mut steps =
        vec![json!({"at": 0, "op": "route", "url": "https://api.example.com/a", "method": "GET"})];
    for i in 0..repeats {
        steps.push(
            json!({"at": 10 + i * 10, "op": "report", "biz": "spot", "line": "ali",
                          "outcome": outcome, "cost_ms": 400}),
        );
    }
    steps.push(
        json!({"at": 1_000, "op": "route", "url": "https://api.example.com/a", "method": "GET"}),
    );
    steps.push(json!({"at": 1_001, "op": "state"}));
    json!({
        "config": {"version": 1,
                   "biz_lines": {"spot": {"match": ["api.example.com"],
                       "http": [{"id": "ali", "url": "https://spot-ali.example.com", "weight": 100},
                                {"id": "tx", "url": "https://spot-tx.example.com"}]}}},
        "seed": 7,
        "steps": steps
    })
}

fn route_at(lines: &[Value], at: u64) -> String {
    lines
        .iter()
        .find(|l| l["op"] == "route" && l["at"] == at)
        .and_then(|l| l["line"].as_str())
        .expect("a routed line")
        .to_string()
}

fn breaker_of(lines: &[Value], id: &str) -> String {
    let state = lines.iter().find(|l| l["op"] == "state").expect("state");
    state["pools"]["spot/http"]
        .as_array()
        .expect("pool")
        .iter()
        .find(|l| l["id"] == id)
        .and_then(|l| l["breaker"].as_str())
        .expect("breaker")
        .to_string()
}

#[test]
fn each_read_side_failure_moves_traffic_at_once() {
    for outcome in ["read_timeout", "connection_reset", "truncated"] {
        let lines = run_json(&scenario(outcome, 1));
        assert_eq!(route_at(&lines, 0), "ali");
        assert_eq!(route_at(&lines, 1_000), "tx", "{outcome} is a line fault");
    }
}

#[test]
fn repeated_read_side_failures_open_the_breaker() {
    for outcome in ["read_timeout", "connection_reset", "truncated"] {
        let lines = run_json(&scenario(outcome, 3));
        assert_eq!(breaker_of(&lines, "ali"), "open", "{outcome}");
    }
}

#[test]
fn cancellations_and_client_errors_are_not_line_faults() {
    for outcome in ["cancelled", "http_4xx"] {
        let lines = run_json(&scenario(outcome, 3));
        assert_eq!(route_at(&lines, 1_000), "ali", "{outcome}");
        assert_eq!(breaker_of(&lines, "ali"), "closed", "{outcome}");
    }
}

#[test]
fn an_unknown_outcome_is_refused_with_the_vocabulary() {
    let mut out = Vec::new();
    let err = replay::run(&scenario("reset_by_peer", 1).to_string(), &mut out)
        .expect_err("unknown outcome");
    let msg = err.to_string();
    assert!(
        msg.contains("connection_reset") && msg.contains("truncated"),
        "{msg}"
    );
}
