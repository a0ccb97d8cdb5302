//! What-if replays from traces: a scenario's trace replayed under the same config takes
//! the same decisions; replayed under another policy it shows what that policy would have
//! done; bad traces are refused with their line number.
//!
//! The outage scenario (`tests/scenarios/whatif_outage.json`) is built here by a small
//! simulated world ([`support::world`]) that behaves like the demo: three lines, clients calling every 50 ms
//! through an interceptor that retries line faults on the next line, the primary refusing
//! connections from 6 s to 18 s, the second line answering 503 from 12 s to 15 s, probes
//! answered by the same world, and a move from Wi-Fi to cellular at 21 s.
//! `LINEKIT_BLESS=1` rewrites the committed file.

use crate::support;

use linekit_core::line::Outcome;
use linekit_core::net::{NetworkState, PrivateDnsMode};
use linekit_tools::{replay, whatif};
use serde_json::{json, Value};
use std::sync::Arc;
use support::trace::TraceLines;
use support::world::{Sim, World};

const SCENARIO_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/scenarios/whatif_outage.json"
);

fn config() -> Value {
    json!({"version": 1, "allow_cleartext": true,
        "thresholds": {"max_retries": 2, "window_ms": 4000, "switch_interval_ms": 2000,
            "open_cooldown_ms": 1000, "revive_interval_ms": 1000, "detect_cooldown_ms": 1000,
            "detect_jitter_ms": 200, "probe_budget_per_min": 120, "timeout_ms": 1000,
            "failure_threshold": 3},
        "biz_lines": {"spot": {"match": ["api.example.test"], "http": [
            {"id": "primary", "url": "https://primary.example.test", "weight": 200},
            {"id": "second", "url": "https://second.example.test", "weight": 100},
            {"id": "third", "url": "https://third.example.test", "weight": 100}]}}})
}

/// The outage: the primary refuses connections from 6 s to 18 s, the second line answers
/// 503 from 12 s to 15 s.
struct Outage;

impl World for Outage {
    fn answer(&self, line: &str, t: u64) -> (Outcome, Option<u16>, u64) {
        match line {
            "primary" if (6_000..18_000).contains(&t) => (Outcome::ConnectRefused, None, 3),
            "second" if (12_000..15_000).contains(&t) => (Outcome::Http5xx, Some(503), 20),
            _ => (Outcome::Ok, Some(200), 30),
        }
    }
}

/// Runs the world against the engine and returns the scenario of what happened.
fn simulate() -> Value {
    let mut sim = Sim::new(
        config(),
        7,
        "spot",
        "https://api.example.test/v1/ticker",
        Outage,
    );
    let end = 30_000;
    sim.advance(0);
    for t in (0..end).step_by(50) {
        if t == 21_000 {
            // The device moves from Wi-Fi to cellular.
            sim.kit.on_network_changed(NetworkState {
                handle: 102,
                validated: true,
                vpn: false,
                private_dns: PrivateDnsMode::Off,
                proxy: false,
                transport: Some("cellular".to_string()),
            });
            sim.steps
                .push(json!({"at": t, "op": "network", "handle": 102,
                "validated": true, "transport": "cellular"}));
            sim.kit.run_due();
            sim.take_started(t);
        }
        sim.call(t);
    }
    sim.finish(end)
}

fn scenario() -> String {
    let built = serde_json::to_string_pretty(&simulate()).unwrap() + "\n";
    if std::env::var_os("LINEKIT_BLESS").is_some() {
        std::fs::write(SCENARIO_PATH, &built).unwrap();
    }
    built
}

/// Runs the scenario, returning its output lines and its trace.
fn record(scenario: &str) -> (Vec<Value>, String) {
    let sink = Arc::new(TraceLines::default());
    let mut out = Vec::new();
    replay::run_traced(scenario, &mut out, Some(sink.clone())).unwrap();
    (parse_lines(&out), sink.text())
}

fn parse_lines(out: &[u8]) -> Vec<Value> {
    support::replay::parse_lines(std::str::from_utf8(out).unwrap())
}

fn what_if(trace: &str, policy: &Value) -> (Vec<Value>, Value) {
    let mut out = Vec::new();
    let w = whatif::run(trace, &policy.to_string(), 30_000, &mut out).unwrap();
    (parse_lines(&out), w.compare_line())
}

/// The decisions of a run: every route (time, line, reason) and every started request.
fn decisions(lines: &[Value]) -> Vec<(u64, String, String)> {
    lines
        .iter()
        .filter_map(|l| {
            let at = l["at"].as_u64().unwrap();
            match l["op"].as_str().unwrap() {
                "route" => Some((
                    at,
                    l["line"].as_str().unwrap_or("-").to_string(),
                    l["reason"].as_str().unwrap().to_string(),
                )),
                "request" => Some((
                    at,
                    l["kind"].as_str().unwrap().to_string(),
                    l["url"].as_str().unwrap().to_string(),
                )),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn the_committed_outage_scenario_is_the_simulated_one() {
    let committed = std::fs::read_to_string(SCENARIO_PATH).unwrap_or_default();
    assert!(
        committed == scenario(),
        "tests/scenarios/whatif_outage.json is stale: run with LINEKIT_BLESS=1"
    );
}

#[test]
fn a_trace_replayed_under_its_own_config_takes_the_same_decisions() {
    let scenario = scenario();
    let (recorded, trace) = record(&scenario);
    let (replayed, compare) = what_if(&trace, &config());
    let (a, b) = (decisions(&recorded), decisions(&replayed));
    assert!(a.len() > 600, "{} decisions", a.len());
    assert!(a.iter().any(|d| d.1 == "probe"), "the run probes");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "decision {i} differs");
    }
    assert_eq!(a.len(), b.len());
    assert!(replayed.iter().all(|l| l.get("inferred").is_none()));
    assert_eq!(compare["recorded"], {
        let mut r = compare["replayed"].clone();
        r.as_object_mut().unwrap().remove("inferred_attempts");
        r.as_object_mut().unwrap().remove("inferred_probes");
        r
    });
    assert_eq!(compare["replayed"]["inferred_attempts"], 0);
    assert_eq!(compare["outage"]["line"], "primary");
    assert!(trace.contains(r#""kind":"network""#));
    assert!(
        compare["recorded"]["requests_on_failing_lines"]
            .as_u64()
            .unwrap()
            > 0
    );
}

fn with_thresholds(patch: Value) -> Value {
    let mut c = config();
    for (k, v) in patch.as_object().unwrap() {
        c["thresholds"][k] = v.clone();
    }
    c
}

#[test]
fn failure_threshold_one_opens_breakers_at_the_first_fault() {
    let (_, trace) = record(&scenario());
    let (_, compare) = what_if(&trace, &with_thresholds(json!({"failure_threshold": 1})));
    let (rec, rep) = (&compare["recorded"], &compare["replayed"]);
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    // Recorded with 3: the primary's breaker opened after three faults (a report and two
    // probes, ~3 s); with 1 it opens on the first fault, and the second line's single
    // 503 now opens its breaker too.
    assert!(n(rec, "time_to_open_ms") > 2_000, "{compare}");
    assert_eq!(n(rep, "time_to_open_ms"), 0, "{compare}");
    assert!(
        n(rep, "breaker_opens") > n(rec, "breaker_opens"),
        "{compare}"
    );
    // Traffic already leaves a line at its first fault, so the threshold barely changes
    // how many requests meet a failing line.
    assert_eq!(n(rep, "requests"), n(rec, "requests"));
    assert!(n(rep, "requests_on_failing_lines") <= n(rec, "requests_on_failing_lines") + 2);
    assert_eq!(n(rep, "failed_requests"), 0, "{compare}");
    assert!(
        n(rep, "inferred_attempts") > 0,
        "the policy tried lines the recording did not"
    );
    assert!(rep["time_to_move_back_ms"].as_u64().is_some(), "{compare}");
}

#[test]
fn the_kill_switch_keeps_everything_on_the_first_line() {
    let (_, trace) = record(&scenario());
    let mut policy = config();
    policy["downgrade"] = json!(true);
    let (replayed, compare) = what_if(&trace, &policy);
    let (rec, rep) = (&compare["recorded"], &compare["replayed"]);
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    let routes: Vec<&Value> = replayed.iter().filter(|l| l["op"] == "route").collect();
    assert!(routes
        .iter()
        .all(|l| l["line"] == "primary" && l["reason"] == "downgrade"));
    assert_eq!(n(rep, "switches"), 0, "{compare}");
    assert_eq!(n(rep, "retries"), 0, "{compare}");
    assert!(rep["time_to_move_away_ms"].is_null());
    // Every call of the 12 s outage (one per 50 ms) meets the dead primary and fails.
    assert!(n(rep, "requests_on_failing_lines") >= 230, "{compare}");
    assert_eq!(
        n(rep, "requests_on_failing_lines"),
        n(rep, "failed_requests")
    );
    assert!(n(rec, "requests_on_failing_lines") < 10, "{compare}");
    assert_eq!(n(rec, "failed_requests"), 0, "{compare}");
}

#[test]
fn extreme_numbers_in_a_trace_never_panic() {
    let (_, trace) = record(&scenario());
    let policy = config().to_string();
    for field in ["total_ms", "cooldown_ms", "status", "handle"] {
        let max = if field == "status" {
            "65535"
        } else {
            "18446744073709551615"
        };
        let pattern = format!("\"{field}\":");
        let text: String = trace
            .lines()
            .map(|l| match l.find(&pattern) {
                Some(i) => {
                    let start = i + pattern.len();
                    let end = start + l[start..].find([',', '}']).unwrap();
                    format!("{}{max}{}\n", &l[..start], &l[end..])
                }
                None => format!("{l}\n"),
            })
            .collect();
        let mut out = Vec::new();
        let w = whatif::run(&text, &policy, 30_000, &mut out).unwrap();
        let html = whatif::html::render(&w, true);
        assert!(html.ends_with("</html>\n"), "{field}");
        assert_eq!(w.compare_line()["op"], "compare");
    }
}

#[test]
fn bad_traces_are_refused_with_their_line_number() {
    let (_, trace) = record(&scenario());
    let lines: Vec<&str> = trace.lines().collect();
    let policy = config().to_string();
    let run = |text: String| {
        let mut out = Vec::new();
        let e = whatif::run(&text, &policy, 30_000, &mut out).unwrap_err();
        assert!(out.is_empty(), "nothing printed for a bad trace");
        e.to_string()
    };
    let truncated = format!("{}\n{}", lines[..10].join("\n"), &lines[10][..25]);
    let e = run(truncated);
    assert!(e.contains("trace line 11: truncated"), "{e}");
    let mut swapped: Vec<&str> = lines.clone();
    swapped.swap(20, 21);
    let e = run(swapped.join("\n"));
    assert!(e.contains("trace line 21:"), "{e}");
    let mut foreign = lines.clone();
    foreign.insert(
        5,
        r#"{"ts":"2026-12-01T12:00:00Z","level":"INFO","msg":"GET /"}"#,
    );
    let e = run(foreign.join("\n"));
    assert!(e.contains("trace line 6: not a Linekit trace event"), "{e}");
    let other = lines[7].replace("0000000000000007", "00000000000000ff");
    let mut mixed = lines.clone();
    mixed[7] = &other;
    let e = run(mixed.join("\n"));
    assert!(
        e.contains("trace line 8: event of install 00000000000000ff"),
        "{e}"
    );
    assert!(e.contains("one install"), "{e}");
    assert!(run(String::new()).contains("no events"));
    assert!(run("[1,2]".to_string()).contains("line 1: not a JSON object"));
}

#[test]
fn the_html_report_is_self_contained_with_one_lane_per_line() {
    let (_, trace) = record(&scenario());
    let mut out = Vec::new();
    let policy = with_thresholds(json!({"failure_threshold": 1})).to_string();
    let w = whatif::run(&trace, &policy, 30_000, &mut out).unwrap();
    let html = whatif::html::render(&w, true);
    for banned in ["<script", "<link", "<img", "@import", "url(", "src="] {
        assert!(!html.contains(banned), "{banned} in the report");
    }
    let links = html.matches("://").count();
    let svg_ns = html.matches("\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(links, svg_ns, "the only URL is the SVG namespace");
    assert_eq!(html.matches("<svg class=\"run\"").count(), 2);
    assert_eq!(
        html.matches("<g class=\"lane\"").count(),
        6,
        "3 lines, 2 runs"
    );
    assert!(html.contains("class=\"band band-open\""));
    assert!(html.contains("class=\"band band-half_open\""));
    assert!(html.contains("class=\"net\""));
    assert!(html.contains("class=\"fail fail-connect_refused\""));
    assert!(
        html.contains("<rect class=\"inferred\""),
        "inferred outcomes are marked"
    );
    assert!(html.contains(">half_open_trial</text>") || html.contains(">ranked</text>"));
    let single = whatif::html::render(&w, false);
    assert_eq!(single.matches("<svg class=\"run\"").count(), 1);
}
