//! Slow lines lose their traffic quickly, through `linekit replay` on the virtual clock:
//! with the default thresholds, consecutive answers slower than `slow_request_ms` on the
//! serving line move traffic to a line known to be fast within 3 slow answers (and, for
//! sparse traffic, within `slow_switch_ms` of the first), even inside the switch interval
//! and against a heavier weight; without a known fast line the slow answers start an
//! urgent detect that waits at most `urgent_jitter_ms` (10 s, not the 30 s jitter), and its
//! answers move traffic.

use crate::support;

use serde_json::{json, Value};
use support::replay::{routes, run_json};

/// Three lines; the serving line `ali` is the heaviest, so ranking alone would keep it.
fn config(thresholds: Value) -> Value {
    json!({
        "version": 1,
        "thresholds": thresholds,
        "biz_lines": { "spot": { "match": ["api.example.com"], "http": [
            {"id": "ali", "url": "https://spot-ali.example.com", "weight": 100},
            {"id": "tx",  "url": "https://spot-tx.example.com",  "weight": 50},
            {"id": "hw",  "url": "https://spot-hw.example.com",  "weight": 50}
        ]}}
    })
}

fn route(at: u64) -> Value {
    json!({"at": at, "op": "route", "url": "https://api.example.com/v1/x"})
}

fn report(at: u64, line: &str, outcome: &str, cost_ms: u64) -> Value {
    json!({"at": at, "op": "report", "biz": "spot", "line": line, "outcome": outcome, "cost_ms": cost_ms})
}

/// Steps that make every line used and known fast, then route once (on `ali`).
fn warmed_up() -> Vec<Value> {
    let mut steps: Vec<Value> = ["ali", "tx", "hw"]
        .into_iter()
        .map(|line| report(100, line, "ok", 60))
        .collect();
    steps.push(route(200));
    steps
}

/// An `ok` answer on `serving` taking `cost_ms` at each `(at, cost_ms)`, each followed by a
/// route.
fn answers(steps: &mut Vec<Value>, serving: &str, each: impl IntoIterator<Item = (u64, u64)>) {
    for (at, cost_ms) in each {
        steps.push(report(at, serving, "ok", cost_ms));
        steps.push(route(at));
    }
}

/// Two clients' worth of slow answers on `serving` every 10 ms from `from`, each followed
/// by a route, `n` of them.
fn slow_streak(steps: &mut Vec<Value>, serving: &str, from: u64, n: u64, cost_ms: u64) {
    answers(steps, serving, (0..n).map(|k| (from + k * 10, cost_ms)));
}

/// Replays `steps` under `thresholds` with `seed`.
fn replay(thresholds: Value, seed: u64, steps: Vec<Value>) -> Vec<Value> {
    run_json(&json!({"config": config(thresholds), "seed": seed, "steps": steps}))
}

#[test]
fn consecutive_slow_answers_move_traffic_to_a_known_fast_line() {
    let mut steps = warmed_up();
    slow_streak(&mut steps, "ali", 20_000, 10, 2_500);
    let lines = replay(json!({}), 3, steps);
    let r = routes(&lines);
    assert_eq!(r[0].1, "ali", "the heaviest line serves first: {r:?}");
    let moved = r
        .iter()
        .position(|(_, line, _)| line != "ali")
        .expect("traffic leaves the slow line");
    // routes[1..] follow the slow answers one to one.
    assert!(moved <= 5, "moved after {moved} slow answers: {r:?}");
    assert_eq!(moved, 3, "the default streak is 3");
    assert_eq!(r[moved].2, "slow_switch");
    assert!(r[moved].0 - 20_000 <= 3_000);
    assert!(r[moved..].iter().all(|(_, line, _)| line == &r[moved].1));
}

#[test]
fn a_slow_streak_moves_traffic_inside_the_switch_interval() {
    let mut steps = warmed_up();
    // ali fails: traffic moves to tx (a guarded switch at 1 000), then tx turns slow.
    steps.push(report(1_000, "ali", "connect_refused", 5));
    steps.push(route(1_000));
    slow_streak(&mut steps, "tx", 2_000, 5, 2_500);
    let th = json!({"switch_interval_ms": 60_000});
    let lines = replay(th, 3, steps);
    let r = routes(&lines);
    assert_eq!(r[1].1, "tx", "{r:?}");
    let after: Vec<_> = r[2..].iter().map(|(_, l, _)| l.as_str()).collect();
    assert_eq!(
        after,
        ["tx", "tx", "hw", "hw", "hw"],
        "the faulted line is not known fast; hw is"
    );
    assert_eq!(r[4].2, "slow_switch");
}

#[test]
fn sparse_slow_answers_move_traffic_within_the_streak_time() {
    let mut steps = warmed_up();
    answers(
        &mut steps,
        "ali",
        (0..6).map(|k| (20_000 + k * 1_000, 2_500)),
    );
    // A streak of 10 would take 10 s at this rate; the 3 s rule moves earlier.
    let th = json!({"slow_switch_count": 10});
    let lines = replay(th, 3, steps);
    let r = routes(&lines);
    let first_off = r.iter().find(|(_, l, _)| l != "ali").expect("moves");
    assert_eq!(first_off.0, 23_000, "{r:?}");
}

#[test]
fn two_slow_lines_do_not_flap() {
    let mut steps = warmed_up();
    slow_streak(&mut steps, "ali", 20_000, 3, 2_500);
    // tx (where traffic went) turns slow too, and so does hw: no line is known fast.
    steps.push(report(20_100, "hw", "ok", 2_400));
    slow_streak(&mut steps, "tx", 20_200, 6, 2_500);
    let lines = replay(json!({}), 3, steps);
    let r = routes(&lines);
    let tail: Vec<_> = r[4..].iter().map(|(_, l, _)| l.as_str()).collect();
    assert!(tail.iter().all(|l| *l == "tx"), "{r:?}");
}

#[test]
fn fast_answers_end_a_streak() {
    let mut steps = warmed_up();
    let alternating = (0..8).map(|k| (20_000 + k * 10, if k % 2 == 0 { 2_500 } else { 100 }));
    answers(&mut steps, "ali", alternating);
    let lines = replay(json!({}), 3, steps);
    assert!(routes(&lines).iter().all(|(_, l, _)| l == "ali"));
}

/// Without a known fast line (the others' statistics have left the window), the slow
/// answers start an urgent detect at once — not after a jitter spanning the cooldown — and
/// the slowed line is ranked after lines not known to be slow.
#[test]
fn without_a_known_fast_line_an_urgent_detect_starts_at_once() {
    let mut steps = warmed_up();
    // 400 s later the 300 s window is empty: no line is known fast any more.
    slow_streak(&mut steps, "ali", 400_000, 3, 2_500);
    steps.push(route(400_100));
    steps.push(json!({"at": 411_000, "op": "tick"}));
    let lines = replay(json!({}), 5, steps);
    let probes: Vec<(u64, String)> = lines
        .iter()
        .filter(|l| {
            l["op"] == "request" && l["kind"] == "probe" && l["at"].as_u64() >= Some(400_000)
        })
        .map(|l| {
            (
                l["at"].as_u64().unwrap(),
                l["method"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(probes.len(), 3, "one probe per line: {probes:?}");
    assert!(
        probes
            .iter()
            .all(|(at, _)| (400_000..=410_100).contains(at)),
        "the urgent detect waits at most urgent_jitter_ms (10 s), not the cooldown: {probes:?}"
    );
    assert!(
        probes.iter().all(|p| p.1 == "HEAD"),
        "HEAD stays the default"
    );
    let r = routes(&lines);
    assert_ne!(r.last().unwrap().1, "ali", "{r:?}");
}

/// With a line known to be fast, traffic moves without a probe, so the detect the slow
/// answers start is not urgent: it keeps the jitter that spans the cooldown.
#[test]
fn with_a_known_fast_line_the_detect_keeps_the_long_jitter() {
    let starts: Vec<u64> = (1..=12)
        .filter_map(|seed| {
            let mut steps = warmed_up();
            slow_streak(&mut steps, "ali", 20_000, 3, 2_500);
            steps.push(json!({"at": 60_000, "op": "tick"}));
            // The start-up detect comes late, so the first probe is the one the slow
            // answers asked for.
            let th = json!({"startup_detect_delay_ms": 100_000});
            let lines = replay(th, seed, steps);
            lines
                .iter()
                .find(|l| l["op"] == "request" && l["kind"] == "probe")
                .and_then(|l| l["at"].as_u64())
        })
        .collect();
    assert_eq!(starts.len(), 12, "every run probes: {starts:?}");
    assert!(
        starts.iter().all(|at| (20_000..=50_000).contains(at)),
        "{starts:?}"
    );
    assert!(
        starts.iter().filter(|at| **at > 21_000).count() >= 6,
        "spread over the long jitter, not the urgent one: {starts:?}"
    );
}

/// Requests still waiting on the serving line count as slow once they have waited
/// `slow_request_ms`: three requests sent at 20 s to a line that has turned slow move the
/// next request at 22 s (after `slow_request_ms`), before any of their answers (2.5 s
/// late) arrive; their answers then do not count them a second time.
#[test]
fn requests_waiting_past_slow_request_ms_move_traffic_before_their_answers() {
    let mut steps = warmed_up();
    // The warm-up route's request was answered at once.
    steps.push(report(200, "ali", "ok", 0));
    for at in [20_000, 20_010, 20_020] {
        steps.push(route(at));
    }
    // Two of them have waited 2 s at 22 021 — not yet the default streak of 3.
    steps.push(route(22_015));
    steps.push(route(22_100));
    // Their answers, 2.5 s after they were sent.
    for at in [22_500, 22_510, 22_520] {
        steps.push(report(at, "ali", "ok", 2_500));
    }
    let lines = replay(json!({}), 3, steps);
    let r = routes(&lines);
    let lines_at: Vec<(u64, &str, &str)> = r
        .iter()
        .map(|(at, line, reason)| (*at, line.as_str(), reason.as_str()))
        .collect();
    assert!(
        lines_at[1..4].iter().all(|(_, line, _)| *line == "ali"),
        "{lines_at:?}"
    );
    assert_eq!(
        lines_at[4].1, "ali",
        "two waiting requests are not a streak of 3"
    );
    assert_eq!(lines_at[5].0, 22_100);
    assert_ne!(lines_at[5].1, "ali", "{lines_at:?}");
    assert_eq!(lines_at[5].2, "slow_switch");
}

/// Without any request waiting, a line whose answers are fast keeps its traffic however
/// long the gaps between requests (an answered request is no longer in flight).
#[test]
fn answered_requests_do_not_count_as_waiting() {
    let mut steps = warmed_up();
    steps.push(report(200, "ali", "ok", 0));
    for k in 0..6u64 {
        let at = 20_000 + k * 3_000;
        steps.push(route(at));
        steps.push(report(at + 80, "ali", "ok", 80));
    }
    steps.push(route(40_000));
    let lines = replay(json!({}), 3, steps);
    assert!(routes(&lines).iter().all(|(_, l, _)| l == "ali"));
}
