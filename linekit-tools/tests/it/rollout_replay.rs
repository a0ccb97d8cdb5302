//! Staged rollout through `linekit replay` (`docs/config.md#rollout`): `observe` sends every
//! request to its original URL with no retry and records what `on` would have done; `off`
//! touches nothing; `percent` splits a seeded population by the stable install bucket; a
//! remote config switching modes takes effect on the next request while a call in flight
//! keeps its mode.

use crate::support;

use linekit_core::config::{Rollout, RolloutMode, Thresholds};
use linekit_core::line::{LinePool, Outcome, Protocol};
use linekit_core::trace::MemorySink;
use linekit_core::trace::Reason;
use serde_json::{json, Value};
use std::sync::Arc;
use support::replay::{line_at, pool_at, requests, run_deterministic};

const OBSERVE: &str = include_str!("../scenarios/rollout_observe.json");
const OFF: &str = include_str!("../scenarios/rollout_off.json");
const SWITCH: &str = include_str!("../scenarios/rollout_switch.json");

/// Every `route` line of `lines`.
fn route_lines(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["op"] == "route").collect()
}

/// The request URL of the `route` step at `at` in `scenario`.
fn step_url(scenario: &Value, at: u64) -> String {
    scenario["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["op"] == "route" && s["at"] == at)
        .and_then(|s| s["url"].as_str())
        .unwrap_or_else(|| panic!("no route step at {at}"))
        .to_string()
}

/// The values of `keys` in the output line `line`, as one JSON array to compare.
fn fields(line: &Value, keys: &[&str]) -> Value {
    Value::Array(keys.iter().map(|k| line[*k].clone()).collect())
}

#[test]
fn observe_keeps_every_url_makes_no_retry_and_records_the_would_be_line() {
    let lines = run_deterministic(OBSERVE);
    let scenario: Value = serde_json::from_str(OBSERVE).unwrap();
    let routes = route_lines(&lines);
    assert_eq!(routes.len(), 6);
    for r in &routes {
        let at = r["at"].as_u64().unwrap();
        assert_eq!(r["url"], step_url(&scenario, at), "at {at}: URL unchanged");
        assert_eq!(
            fields(r, &["mode", "reason", "max_retries"]),
            json!(["observe", "observe", 0]),
            "at {at}"
        );
        assert!(r["would_line"].is_string(), "at {at}: {r}");
        assert!(r["would_reason"].is_string(), "at {at}: {r}");
    }
    // The X-Line-* header is still removed; the app's own header stays.
    assert_eq!(
        line_at(&lines, "route", 0)["headers"],
        json!({"Accept": "text/plain"})
    );
    // The outcome of an observed request is the origin line's.
    assert_eq!(line_at(&lines, "route", 0)["line"], "origin");
    // Before any probe nothing is known healthy; after the start-up probes the origin is.
    let first = line_at(&lines, "route", 0);
    assert_eq!(
        fields(first, &["would_line", "would_healthy"]),
        json!(["origin", false])
    );
    let probed = line_at(&lines, "route", 2000);
    assert_eq!(
        fields(probed, &["would_line", "would_healthy"]),
        json!(["origin", true])
    );
    // Observe pools are probed (the start-up detect probes both lines).
    let probes: Vec<String> = requests(&lines, "probe").into_iter().map(|r| r.2).collect();
    assert_eq!(
        probes,
        [
            "https://api.example.com/line/ping",
            "https://spot-cdn.example.com/line/ping"
        ]
    );
    // Real traffic opened the origin's breaker: `on` would move to the probed cdn line,
    // but the request still goes to its URL, and a "retry" gets the same answer.
    let moved = line_at(&lines, "route", 3100);
    assert_eq!(
        (
            &moved["line"],
            &moved["would_line"],
            &moved["would_reason"],
            &moved["would_healthy"]
        ),
        (
            &json!("origin"),
            &json!("cdn"),
            &json!("ranked"),
            &json!(true)
        )
    );
    let retry = line_at(&lines, "route", 3101);
    assert_eq!(
        fields(retry, &["url", "would_reason"]),
        json!(["https://api.example.com/quote", "retry_excluded"])
    );
    let origin = pool_at(&lines, 3200, "spot/http")
        .iter()
        .find(|l| l["id"] == "origin")
        .unwrap();
    assert_eq!(fields(origin, &["failures", "breaker"]), json!([3, "open"]));
    // A URL whose origin is no line of the pool is measured nowhere.
    let foreign = line_at(&lines, "route", 3103);
    assert_eq!(
        (&foreign["line"], &foreign["would_line"]),
        (&Value::Null, &json!("cdn"))
    );
    assert_eq!(
        line_at(&lines, "state", 3200)["rollout"],
        json!({"spot": "observe"})
    );
}

#[test]
fn observed_routes_are_traced_with_mode_and_would_fields() {
    let sink = Arc::new(MemorySink::default());
    let mut out = Vec::new();
    linekit_tools::replay::run_traced(OBSERVE, &mut out, Some(sink.clone())).unwrap();
    let routes: Vec<Value> = sink
        .events()
        .iter()
        .filter(|e| e.kind() == linekit_core::trace::TraceKind::Route)
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect();
    assert_eq!(routes.len(), 6);
    let moved = routes.iter().find(|e| e["at_ms"] == 3100).unwrap();
    assert_eq!(
        (
            &moved["mode"],
            &moved["reason"],
            &moved["line"],
            &moved["would_line"],
            &moved["would_reason"],
            &moved["would_healthy"]
        ),
        (
            &json!("observe"),
            &json!("observe"),
            &json!("origin"),
            &json!("cdn"),
            &json!("ranked"),
            &json!(true)
        )
    );
    let foreign = routes.iter().find(|e| e["at_ms"] == 3103).unwrap();
    assert!(foreign.get("line").is_none(), "{foreign}");
}

#[test]
fn off_touches_nothing() {
    let lines = run_deterministic(OFF);
    let scenario: Value = serde_json::from_str(OFF).unwrap();
    for at in [0, 1, 2200] {
        let r = line_at(&lines, "route", at);
        assert_eq!(r["url"], step_url(&scenario, at), "at {at}");
        assert_eq!(
            (&r["mode"], &r["reason"], &r["line"], &r["max_retries"]),
            (
                &json!("off"),
                &json!("rollout_off"),
                &Value::Null,
                &json!(0)
            ),
            "at {at}"
        );
        assert!(r.get("would_line").is_none(), "at {at}");
    }
    assert_eq!(line_at(&lines, "route", 1)["protocol"], "ws");
    assert_eq!(
        line_at(&lines, "route", 0)["headers"],
        json!({"Accept": "*/*"})
    );
    // The business line whose override says `on` is routed and probed as usual...
    let trade = line_at(&lines, "route", 2);
    assert_eq!(
        fields(trade, &["mode", "url"]),
        json!(["on", "https://trade-main.example.com/order"])
    );
    let probes = requests(&lines, "probe");
    assert_eq!(probes.len(), 3, "start-up and two revives: {probes:?}");
    // ...while nothing probes the `off` one: not start-up, a manual detect, failed
    // reports nor the revive check.
    assert!(
        probes
            .iter()
            .all(|p| p.2 == "https://trade-main.example.com/line/ping"),
        "{probes:?}"
    );
    for (pool, id) in [("feed/http", "a"), ("feed/http", "b"), ("feed/ws", "push")] {
        let line = pool_at(&lines, 130_000, pool)
            .iter()
            .find(|l| l["id"] == id)
            .unwrap();
        assert_eq!(
            fields(line, &["used", "failures", "breaker"]),
            json!([false, 0, "closed"]),
            "{pool} {id}: reports of an off business line are ignored"
        );
    }
    assert_eq!(
        line_at(&lines, "state", 130_000)["rollout"],
        json!({"feed": "off", "trade": "on"})
    );
}

/// The mode a one-route scenario under top-level `rollout` prints for install `seed`.
fn mode_of(seed: u64, rollout: &Value) -> String {
    let scenario = json!({
        "seed": seed,
        "config": {
            "version": 1,
            "rollout": rollout,
            "biz_lines": {"spot": {"match": ["api.example.com"],
                "http": [{"id": "a", "url": "https://a.example.com"}]}}
        },
        "steps": [{"at": 0, "op": "route", "url": "https://api.example.com/"}]
    });
    let lines = support::replay::run_json(&scenario);
    line_at(&lines, "route", 0)["mode"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The `rollout` map of the engine's state for install `seed`, with business line `a`
/// under the top-level `rollout` and `b` under its own `b_rollout`.
fn rollout_of(seed: u64, rollout: Value, b_rollout: Value) -> Value {
    let scenario = json!({
        "seed": seed,
        "config": {
            "version": 1,
            "rollout": rollout,
            "biz_lines": {
                "a": {"match": ["a.example.com"], "http": [{"id": "x", "url": "https://x.example.com"}]},
                "b": {"match": ["b.example.com"], "rollout": b_rollout,
                      "http": [{"id": "y", "url": "https://y.example.com"}]}
            }
        },
        "steps": [{"at": 0, "op": "state"}]
    });
    let lines = support::replay::run_json(&scenario);
    line_at(&lines, "state", 0)["rollout"].clone()
}

/// The modes install `seed` gets for business lines `a` (top-level 30 % `on`, the others
/// `observe`) and `b` (its own 40 % `on`).
fn modes_of(seed: u64) -> (String, String) {
    let modes = rollout_of(
        seed,
        json!({"mode": "on", "percent": 30, "others": "observe"}),
        json!({"mode": "on", "percent": 40, "others": "observe"}),
    );
    let mode = |biz: &str| modes[biz].as_str().unwrap().to_string();
    (mode("a"), mode("b"))
}

#[test]
fn percent_splits_a_seeded_population_stably() {
    const INSTALLS: usize = 3_000;
    let mut rng = fastrand::Rng::with_seed(25);
    let (mut thirty, mut forty) = (0, 0);
    for _ in 0..INSTALLS {
        let seed = rng.u64(..);
        let (a, b) = modes_of(seed);
        assert!(
            [&a, &b].iter().all(|m| *m == "on" || *m == "observe"),
            "{a} {b}"
        );
        // A restart of the same install lands on the same side.
        assert_eq!((a.clone(), b.clone()), modes_of(seed), "seed {seed}");
        // One bucket for every business line: inside 30 % means inside 40 %.
        assert!(a != "on" || b == "on", "seed {seed}");
        thirty += usize::from(a == "on");
        forty += usize::from(b == "on");
    }
    let share = |n: usize| n as f64 / INSTALLS as f64;
    assert!(
        (0.28..=0.32).contains(&share(thirty)),
        "30 % target: {}",
        share(thirty)
    );
    assert!(
        (0.38..=0.42).contains(&share(forty)),
        "40 % target: {}",
        share(forty)
    );
}

#[test]
fn one_bucket_places_an_install_in_every_business_line() {
    // A business line's override at the same percent puts the same installs inside.
    for seed in 0..300 {
        let modes = rollout_of(
            seed,
            json!({"mode": "on", "percent": 50, "others": "off"}),
            json!({"mode": "observe", "percent": 50}),
        );
        assert_eq!(
            modes["a"] == "on",
            modes["b"] == "observe",
            "seed {seed}: {modes}"
        );
    }
}

#[test]
fn a_remote_config_switching_observe_to_on_applies_to_the_next_request() {
    let lines = run_deterministic(SWITCH);
    let before = line_at(&lines, "route", 0);
    assert_eq!(
        fields(before, &["mode", "url"]),
        json!(["observe", "https://api.example.com/quote"])
    );
    assert_eq!(line_at(&lines, "config", 100)["applied"], true);
    let after = line_at(&lines, "route", 101);
    assert_eq!(
        fields(after, &["mode", "url", "max_retries"]),
        json!(["on", "https://spot-ali.example.com/quote", 1])
    );
    assert!(after.get("would_line").is_none());
    // A call that started under `on` keeps it after a switch back to `observe`: its retry
    // moves to the next line, while a new request is observed.
    assert_eq!(line_at(&lines, "config", 210)["applied"], true);
    let retry = line_at(&lines, "route", 220);
    assert_eq!(
        fields(retry, &["mode", "reason", "url"]),
        json!(["on", "retry_excluded", "https://spot-tx.example.com/order"])
    );
    let fresh = line_at(&lines, "route", 221);
    assert_eq!(
        fields(fresh, &["mode", "url"]),
        json!(["observe", "https://api.example.com/quote"])
    );
    assert_eq!(
        line_at(&lines, "state", 222)["rollout"],
        json!({"spot": "observe"})
    );
}

#[test]
fn an_unknown_call_mode_is_a_scenario_error() {
    let scenario = json!({
        "config": {"version": 1, "biz_lines": {"s": {"http": [{"id": "a", "url": "https://a.example.com"}]}}},
        "steps": [{"at": 0, "op": "route", "url": "https://a.example.com/", "mode": "shadow"}]
    });
    let err = linekit_tools::replay::run(&scenario.to_string(), &mut Vec::new()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("steps[0].mode") && text.contains("off, observe or on"),
        "{text}"
    );
}

#[test]
fn an_observed_selection_leaves_a_half_open_trial_for_a_probe() {
    let thresholds = Thresholds {
        failure_threshold: 1,
        open_cooldown_ms: 1_000,
        ..Thresholds::default()
    };
    let lines: Vec<linekit_core::config::LineConfig> =
        serde_json::from_value(json!([{"id": "only", "url": "https://only.example.com"}])).unwrap();
    let mut pool = LinePool::new(Protocol::Http, &lines, &thresholds, false).unwrap();
    pool.record(0, 0, Outcome::ConnectRefused, None, 10);
    // Half-open after the cooldown: what `on` would do is the trial...
    let observed = pool.select_observed(2_000, &[]);
    assert_eq!(observed.reason, Reason::HalfOpenTrial);
    assert_eq!(
        pool.select_observed(2_001, &[]).reason,
        Reason::HalfOpenTrial
    );
    // ...but the trial is still there for a probe or a request that does go to the line.
    assert_eq!(
        pool.try_admit(2_002, 0),
        linekit_core::line::Admission::Trial
    );
    assert!(!pool.known_healthy(0, 2_002));
}

#[test]
fn the_effective_mode_is_on_by_default() {
    assert_eq!(Rollout::default().mode, RolloutMode::On);
    assert_eq!(Rollout::default().others, RolloutMode::Off);
    assert_eq!(mode_of(1, &json!({})), "on");
}
