//! Detect scheduler through `linekit replay` (`docs/architecture.md#detect-scheduler`, `docs/replay.md`): single-flight, cooldown
//! after failures, seeded jitter, revive probes, the global budget and the start-up detect.
//! Each scenario lives in `tests/scenarios/detect_*.json`.

use crate::support;

use serde_json::Value;
use support::replay::{breaker_at, output, request_field, run};

#[test]
fn a_burst_of_slow_reports_starts_one_detect() {
    let lines = run(include_str!("../scenarios/detect_single_flight.json"));
    let after: Vec<_> = request_field(&lines, "url")
        .into_iter()
        .filter(|(at, _)| *at >= 40_000)
        .collect();
    assert_eq!(after.len(), 2, "one detect = one probe per line: {after:?}");
    assert!(
        after.iter().all(|(at, _)| (40_000..=41_000).contains(at)),
        "jittered start"
    );
}

#[test]
fn failed_probes_cool_down_too() {
    let lines = run(include_str!("../scenarios/detect_cooldown.json"));
    let reqs = request_field(&lines, "url");
    let first = reqs[0].0;
    assert_eq!(
        reqs.iter().filter(|(at, _)| *at == first).count(),
        2,
        "start-up detect"
    );
    let later: Vec<_> = reqs.iter().filter(|(at, _)| *at > first).collect();
    assert!(
        later.iter().all(|(at, _)| *at >= first + 30_000),
        "nothing inside the cooldown counted from the start: {later:?}"
    );
    assert_eq!(
        later.len(),
        2,
        "the slow request after the cooldown starts one detect"
    );
}

#[test]
fn startup_jitter_is_bounded_and_depends_on_the_seed() {
    let base: Value =
        serde_json::from_str(include_str!("../scenarios/detect_single_flight.json")).unwrap();
    let mut starts = Vec::new();
    for seed in 0..20u64 {
        let mut s = base.clone();
        s["seed"] = seed.into();
        s["steps"] = serde_json::json!([{"at": 10_000, "op": "tick"}]);
        let reqs = request_field(&run(&s.to_string()), "url");
        assert_eq!(reqs.len(), 2, "the start-up detect happens once");
        assert_eq!(reqs[0].0, reqs[1].0);
        starts.push(reqs[0].0);
    }
    assert!(
        starts.iter().all(|at| (3_000..=4_000).contains(at)),
        "{starts:?}"
    );
    starts.sort_unstable();
    starts.dedup();
    assert!(
        starts.len() > 5,
        "different seeds, different jitter: {starts:?}"
    );
}

#[test]
fn revive_probe_closes_an_open_line_and_traffic_returns() {
    let text = include_str!("../scenarios/detect_revive.json");
    let lines = run(text);
    assert_eq!(breaker_at(&lines, 10_030, "spot/http", "ali"), "open");
    let route_at = |at: u64| {
        lines
            .iter()
            .find(|l| l["op"] == "route" && l["at"] == at)
            .unwrap()["line"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(route_at(10_010), "tx");
    assert_eq!(route_at(60_000), "tx");
    // The revive timer (every 120 s) probes the half-open primary; answer it.
    let revive: Vec<_> = request_field(&lines, "url")
        .into_iter()
        .filter(|(at, url)| *at >= 120_000 && url.contains("spot-ali"))
        .collect();
    assert_eq!(revive.len(), 1, "{revive:?}");
    assert_eq!(
        breaker_at(&lines, 130_000, "spot/http", "ali"),
        "open",
        "an unanswered revive probe re-opens it"
    );
    assert_eq!(route_at(130_001), "tx");
    let id = lines
        .iter()
        .find(|l| {
            l["op"] == "request"
                && l["at"].as_u64().unwrap() >= 120_000
                && l["url"].as_str().unwrap().contains("spot-ali")
        })
        .unwrap()["id"]
        .as_u64()
        .unwrap();
    let mut scenario: Value = serde_json::from_str(text).unwrap();
    let steps = scenario["steps"].as_array_mut().unwrap();
    let at = revive[0].0 + 50;
    let pos = steps
        .iter()
        .position(|s| s["at"].as_u64().unwrap() > at)
        .unwrap();
    steps.insert(
        pos,
        serde_json::json!({"at": at, "op": "respond", "id": id, "status": 204}),
    );
    let lines = run(&scenario.to_string());
    assert_eq!(breaker_at(&lines, 130_000, "spot/http", "ali"), "closed");
    let back = lines
        .iter()
        .find(|l| l["op"] == "route" && l["at"] == 130_001)
        .unwrap();
    assert_eq!(back["line"], "ali", "traffic returns to the preferred line");
}

#[test]
fn the_global_budget_caps_probes_during_a_long_outage() {
    let lines = run(include_str!("../scenarios/detect_budget.json"));
    let reqs = request_field(&lines, "url");
    assert!(!reqs.is_empty());
    // 4 per minute with a bucket of 4: at most 4 + 4 per sliding minute, 4 + 40 in ten minutes.
    assert!(reqs.len() <= 44, "{} probes in ten minutes", reqs.len());
    for (start, _) in &reqs {
        let in_minute = reqs
            .iter()
            .filter(|(at, _)| *at >= *start && *at < start + 60_000)
            .count();
        assert!(
            in_minute <= 8,
            "{in_minute} probes in the minute from {start}"
        );
    }
    // Without the budget, three business lines × three lines every 20 s would be ~270.
    assert!(
        reqs.len() >= 30,
        "the budget still lets probes through: {}",
        reqs.len()
    );
}

#[test]
fn replay_with_probes_is_deterministic() {
    let text = include_str!("../scenarios/detect_budget.json");
    assert_eq!(output(text), output(text));
}
