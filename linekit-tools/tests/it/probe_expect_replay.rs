//! Probes that verify a body: per business line, `detect_method: "GET"` with
//! `detect_expect_length` and/or `detect_expect_status` turns an answer that differs (a body
//! cut short, another status) into a line fault. HEAD without expectations stays the
//! default, and an expectation a probe cannot check is a validation error.

use crate::support;

use linekit_core::config::validate::parse_config;
use serde_json::{json, Value};
use support::replay::{request_methods, requests, run_json};

fn config(detect: Value) -> Value {
    let mut spot = json!({ "match": ["api.example.com"], "http": [
        {"id": "ali", "url": "https://spot-ali.example.com"},
        {"id": "tx",  "url": "https://spot-tx.example.com"}
    ]});
    for (k, v) in detect.as_object().unwrap() {
        spot[k] = v.clone();
    }
    json!({"version": 1, "biz_lines": {"spot": spot}})
}

/// Runs a manual detect, answers probe `ali` with `ali` and `tx` with `tx` (status, body),
/// and returns (probe methods, state of the pool).
fn detect_and_answer(detect: Value, ali: (u16, &str), tx: (u16, &str)) -> (Vec<String>, Value) {
    // The manual detect starts within the jitter (30 s by default).
    let base = vec![
        json!({"at": 1_000, "op": "detect", "biz": "spot"}),
        json!({"at": 40_000, "op": "tick"}),
    ];
    let first = run_json(&json!({"config": config(detect.clone()), "seed": 1, "steps": base}));
    let probes = requests(&first, "probe");
    assert_eq!(probes.len(), 2, "{first:?}");
    let mut steps = vec![json!({"at": 1_000, "op": "detect", "biz": "spot"})];
    let answered = probes[0].0 + 100;
    for (_, id, url) in &probes {
        let (status, body) = if url.contains("spot-ali") { ali } else { tx };
        steps.push(
            json!({"at": answered, "op": "respond", "id": id, "status": status, "body": body}),
        );
    }
    steps.push(json!({"at": answered + 1, "op": "state"}));
    let lines = run_json(&json!({"config": config(detect), "seed": 1, "steps": steps}));
    let state = lines.iter().find(|l| l["op"] == "state").unwrap()["pools"]["spot/http"].clone();
    (request_methods(&first, "probe"), state)
}

fn line<'a>(state: &'a Value, id: &str) -> &'a Value {
    state
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap()
}

#[test]
fn a_get_probe_with_an_expected_length_catches_a_cut_body() {
    let detect =
        json!({"detect_method": "GET", "detect_path": "/line/blob", "detect_expect_length": 8});
    let (methods, state) = detect_and_answer(detect, (200, "abc"), (200, "12345678"));
    assert!(methods.iter().all(|m| m == "GET"));
    let (ali, tx) = (line(&state, "ali"), line(&state, "tx"));
    assert_eq!(ali["failures"], 1, "{state}");
    assert_eq!(ali["last_error"], "http_5xx");
    assert_eq!(tx["successes"], 1);
    assert_eq!(tx["failures"], 0);
    assert_eq!(state[0]["id"], "tx", "the cut line is ranked last: {state}");
}

#[test]
fn an_expected_status_rejects_other_answers() {
    let detect = json!({"detect_expect_status": 204});
    let (methods, state) = detect_and_answer(detect, (200, ""), (204, ""));
    assert!(
        methods.iter().all(|m| m == "HEAD"),
        "HEAD stays the default method"
    );
    assert_eq!(line(&state, "ali")["failures"], 1, "{state}");
    assert_eq!(line(&state, "tx")["successes"], 1);
}

#[test]
fn without_expectations_a_head_probe_accepts_any_success() {
    let (methods, state) = detect_and_answer(json!({}), (200, ""), (301, ""));
    assert!(methods.iter().all(|m| m == "HEAD"));
    assert_eq!(line(&state, "ali")["successes"], 1, "{state}");
    assert_eq!(line(&state, "tx")["successes"], 1);
}

#[test]
fn expectations_a_probe_cannot_check_are_rejected_with_their_path() {
    let paths = |detect: Value| -> Vec<String> {
        let err = parse_config(&config(detect).to_string()).unwrap_err();
        let text = err.to_string();
        ["detect_expect_length", "detect_expect_status"]
            .iter()
            .filter(|k| text.contains(&format!("biz_lines.spot.{k}")))
            .map(|k| k.to_string())
            .collect()
    };
    assert_eq!(
        paths(json!({"detect_expect_length": 10})),
        ["detect_expect_length"],
        "a HEAD answer has no body"
    );
    assert_eq!(
        paths(json!({"detect_method": "GET", "detect_expect_length": 1_000_000})),
        ["detect_expect_length"],
        "longer than a probe body may be"
    );
    assert_eq!(
        paths(json!({"detect_expect_status": 700})),
        ["detect_expect_status"]
    );
    assert!(parse_config(
        &config(
            json!({"detect_method": "GET", "detect_expect_length": 10, "detect_expect_status": 200})
        )
        .to_string()
    )
    .is_ok());
}
