//! The counterfactual of an `observe` trace (`docs/trace-format.md#counterfactual`): a trace
//! recorded with every request left on its original URL, replayed under the same config in
//! mode `on`, names the requests `on` would have saved and says how much of that rests on
//! inferred outcomes. A trace recorded under `on` compares exactly as before.
//!
//! The observe scenario (`tests/scenarios/demo_outage_observe.json`) reproduces the demo's
//! outage (`./build.sh demo`) with the simulated world of [`support::world`]: the same three
//! lines and weights and the same thresholds, the primary (the app's own host, so the line
//! observed requests go to) refusing connections from 5 s to 13 s, and from 9 s the backup
//! `on` would then be serving from answering 503 to the end, over 28 s. One GET every 50 ms
//! (the demo's four clients send more; the shape is the same). `LINEKIT_BLESS=1` rewrites
//! the committed scenario and policy.

use crate::support;

use linekit_core::line::Outcome;
use linekit_tools::{replay, whatif};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::sync::Arc;
use support::temp::TempDir;
use support::trace::TraceLines;
use support::world::{Sim, World};

const SCENARIO_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/scenarios/demo_outage_observe.json"
);
const POLICY_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/demo_outage_policy_on.json"
);

/// The demo's config, with the primary on the app's own host and the rollout `mode`.
fn config(mode: &str) -> Value {
    json!({"version": 1, "allow_cleartext": true,
        "rollout": {"mode": mode},
        "thresholds": {"max_retries": 2, "window_ms": 4000, "switch_interval_ms": 2000,
            "open_cooldown_ms": 500, "revive_interval_ms": 1000, "detect_cooldown_ms": 1000,
            "detect_jitter_ms": 200, "probe_budget_per_min": 120},
        "biz_lines": {"spot": {"match": ["api.example.test"], "http": [
            {"id": "primary", "url": "https://api.example.test", "weight": 200},
            {"id": "second", "url": "https://second.example.test", "weight": 100},
            {"id": "third", "url": "https://third.example.test", "weight": 100}]}}})
}

const DOWN: std::ops::Range<u64> = 5_000..13_000;
const BACKUP_503_FROM: u64 = 9_000;
const END: u64 = 28_000;

/// The demo's outage; `failing` is the backup that answers 503 from 9 s.
#[derive(Default)]
struct DemoOutage {
    failing: Option<String>,
}

impl World for DemoOutage {
    fn answer(&self, line: &str, t: u64) -> (Outcome, Option<u16>, u64) {
        if line == "primary" && DOWN.contains(&t) {
            (Outcome::ConnectRefused, None, 3)
        } else if t >= BACKUP_503_FROM && self.failing.as_deref() == Some(line) {
            (Outcome::Http5xx, Some(503), 20)
        } else {
            (Outcome::Ok, Some(200), 30)
        }
    }
}

fn simulate() -> Value {
    let url = "https://api.example.test/api/v1/ticker";
    let mut sim = Sim::new(config("observe"), 7, "spot", url, DemoOutage::default());
    sim.advance(0);
    let mut serving: Option<String> = None;
    for t in (0..END).step_by(50) {
        if t == BACKUP_503_FROM {
            // As in the demo: the backup then serving (here: where `on` would send the
            // requests) starts answering 503.
            sim.world.failing = Some(serving.clone().unwrap_or_else(|| "second".into()));
        }
        let d = sim.call(t).expect("spot owns the URL");
        if let Some(line) = d.would.and_then(|w| w.line) {
            if &*line != "primary" {
                serving = Some(line.to_string());
            }
        }
    }
    sim.finish(END)
}

fn bless(path: &str, text: &str) {
    if std::env::var_os("LINEKIT_BLESS").is_some() {
        std::fs::write(path, text).unwrap();
    }
}

fn scenario() -> String {
    let built = serde_json::to_string_pretty(&simulate()).unwrap() + "\n";
    bless(SCENARIO_PATH, &built);
    built
}

fn policy() -> String {
    let built = serde_json::to_string_pretty(&config("on")).unwrap() + "\n";
    bless(POLICY_PATH, &built);
    built
}

/// The trace of `scenario` (every window recorded).
fn record(scenario: &str) -> String {
    let sink = Arc::new(TraceLines::default());
    let mut out = Vec::new();
    replay::run_traced(scenario, &mut out, Some(sink.clone())).unwrap();
    sink.text()
}

fn trace_events(trace: &str) -> Vec<Value> {
    support::replay::parse_lines(trace)
}

/// `seq` of every observed request of `trace` whose outcome was a failure, with its line.
fn observed_failures(trace: &str) -> BTreeSet<u64> {
    let events = trace_events(trace);
    let mut waiting: Vec<u64> = Vec::new();
    let mut failed = BTreeSet::new();
    for e in &events {
        match e["kind"].as_str().unwrap() {
            "route" if e["line"].is_string() => waiting.push(e["seq"].as_u64().unwrap()),
            "report" => {
                let seq = waiting.remove(0);
                if e["outcome"] != "ok" {
                    failed.insert(seq);
                }
            }
            _ => {}
        }
    }
    failed
}

#[test]
fn the_committed_demo_outage_scenario_and_policy_are_the_simulated_ones() {
    let stale = "is stale: run with LINEKIT_BLESS=1";
    let committed = std::fs::read_to_string(SCENARIO_PATH).unwrap_or_default();
    assert!(committed == scenario(), "{SCENARIO_PATH} {stale}");
    let committed = std::fs::read_to_string(POLICY_PATH).unwrap_or_default();
    assert!(committed == policy(), "{POLICY_PATH} {stale}");
}

#[test]
fn the_counterfactual_names_the_requests_on_would_have_saved() {
    let trace = record(&scenario());
    // The recording: every request on its original URL (the primary), never retried.
    let routes: Vec<Value> = trace_events(&trace)
        .into_iter()
        .filter(|e| e["kind"] == "route")
        .collect();
    assert_eq!(routes.len(), (END / 50) as usize);
    assert!(routes
        .iter()
        .all(|r| r["mode"] == "observe" && r["line"] == "primary" && r["attempt"] == 0));
    let failures = observed_failures(&trace);
    assert!(failures.len() > 150, "{} observed failures", failures.len());

    let mut out = Vec::new();
    let w = whatif::run(&trace, &policy(), 30_000, &mut out).unwrap();
    let cf = w.counterfactual_line().expect("an observe trace has one");
    let n = |v: &Value| v.as_u64().unwrap() as usize;
    assert_eq!(n(&cf["requests"]), routes.len(), "{cf}");
    assert_eq!(n(&cf["failed"]["observed"]), failures.len(), "{cf}");
    // The saved requests are observed failures, named by their route's seq, each served
    // by a backup under `on`.
    let saved = cf["saved"]["list"].as_array().unwrap();
    assert_eq!(n(&cf["saved"]["requests"]), saved.len());
    let saved_seqs: BTreeSet<u64> = saved.iter().map(|s| s["seq"].as_u64().unwrap()).collect();
    assert!(saved_seqs.is_subset(&failures), "{cf}");
    for s in saved {
        assert_eq!(
            (&s["line"], &s["outcome"], &s["on_outcome"]),
            (&json!("primary"), &json!("connect_refused"), &json!("ok")),
            "{s}"
        );
        assert_ne!(s["on_line"], "primary", "{s}");
        assert!(DOWN.contains(&s["at"].as_u64().unwrap()), "{s}");
    }
    // `on` would have saved nearly every failed request of the outage: the ones it still
    // fails are the first ones, before anything was known of the backups, and those it
    // sends to the backup that starts failing.
    let still_failed = n(&cf["failed"]["on"]);
    assert_eq!(
        failures.len() - saved.len() + n(&cf["lost"]["requests"]),
        still_failed,
        "{cf}"
    );
    assert!(saved.len() * 10 >= failures.len() * 9, "{cf}");
    // Every saved request rests on an inferred outcome: the recording never tried the
    // backups for a request, only probed them.
    assert_eq!(cf["saved"]["inferred"], cf["saved"]["requests"], "{cf}");
    assert_eq!(cf["saved"]["recorded"], 0, "{cf}");
    assert!(n(&cf["inferred_attempts"]["probe"]) > 0, "{cf}");
    assert!(saved.iter().any(|s| s["basis"] == "probe"), "{cf}");
    // Requests moved off the primary: at least the saved ones.
    assert!(n(&cf["moved"]["requests"]) >= saved.len(), "{cf}");
    assert_eq!(n(&cf["moved"]["recorded"]), 0, "{cf}");
    // Saving a refused request costs a retry on a backup: time added, all of it inferred.
    let latency = &cf["latency"];
    assert!(latency["change_ms"].as_i64().unwrap() > 0, "{cf}");
    assert_eq!(latency["change_ms"], latency["inferred_ms"], "{cf}");
    assert_eq!(latency["recorded_ms"], 0, "{cf}");
}

#[test]
fn a_policy_that_leaves_requests_on_their_url_saves_nothing() {
    let trace = record(&scenario());
    let mut out = Vec::new();
    let same = serde_json::to_string(&config("observe")).unwrap();
    let w = whatif::run(&trace, &same, 30_000, &mut out).unwrap();
    let cf = w.counterfactual_line().unwrap();
    assert_eq!(cf["saved"]["requests"], 0, "{cf}");
    assert_eq!(cf["moved"]["requests"], 0, "{cf}");
    assert_eq!(cf["failed"]["on"], cf["failed"]["observed"], "{cf}");
    assert_eq!(cf["latency"]["change_ms"], 0, "{cf}");
}

/// `linekit replay SCENARIO --trace-out TRACE`, then `linekit replay --from-trace TRACE
/// --config POLICY --html REPORT` with `extra` arguments: the second run's output and the
/// report (empty when none was written).
fn cli_what_if(scenario: &str, policy: &str, extra: &[&str]) -> (support::cli::Output, Vec<u8>) {
    let dir = TempDir::new("cli-counterfactual");
    let scenario_file = dir.file("scenario.json");
    std::fs::write(&scenario_file, scenario).unwrap();
    let policy_file = dir.file("policy.json");
    std::fs::write(&policy_file, policy).unwrap();
    let trace = dir.file("trace.jsonl");
    let html = dir.file("report.html");
    let r = support::cli::run(&["replay", &scenario_file, "--trace-out", &trace], b"");
    assert_eq!(r.code, 0, "{}", r.err);
    let mut args = vec![
        "replay",
        "--from-trace",
        &trace,
        "--config",
        &policy_file,
        "--html",
        &html,
    ];
    args.extend_from_slice(extra);
    let r = support::cli::run(&args, b"");
    assert_eq!(r.code, 0, "{}", r.err);
    let report = std::fs::read(&html).unwrap_or_default();
    (r, report)
}

#[test]
fn the_cli_prints_the_counterfactual_before_the_last_compare_line_and_draws_three_panels() {
    let (r, report) = cli_what_if(&scenario(), &policy(), &["--compare"]);
    let lines = support::replay::parse_lines(&r.out);
    let [.., cf, compare] = lines.as_slice() else {
        panic!("too few lines")
    };
    assert_eq!(compare["op"], "compare");
    assert_eq!(cf["op"], "counterfactual");
    assert!(cf["saved"]["requests"].as_u64().unwrap() > 0, "{cf}");
    let report = String::from_utf8(report).unwrap();
    for run in ["recorded", "replayed", "health"] {
        assert_eq!(
            report.matches(&format!("data-run=\"{run}\"")).count(),
            1,
            "{run}"
        );
    }
    assert_eq!(report.matches("<g class=\"health-lane\"").count(), 3);
    assert!(report.contains("class=\"health health-open\""));
    assert!(report.contains("class=\"health health-healthy\""));
    assert!(report.contains("<table class=\"summary counterfactual\">"));
    assert!(report.contains("<rect class=\"inferred\""));
    // Without --compare: no counterfactual line, still the three panels.
    let (r, report) = cli_what_if(&scenario(), &policy(), &[]);
    assert!(!r.out.contains("\"op\":\"counterfactual\""));
    let report = String::from_utf8(report).unwrap();
    assert!(report.contains("data-run=\"health\""));
}

/// The output of a trace recorded under `on`, pinned when the counterfactual was added:
/// `--compare` prints the same lines and `--html` the same report, byte for byte.
#[test]
fn an_on_mode_trace_compares_and_draws_exactly_as_before() {
    let golden: Value = serde_json::from_str(include_str!(
        "../fixtures/whatif_outage_on_mode.golden.json"
    ))
    .unwrap();
    let (r, report) = cli_what_if(
        include_str!("../scenarios/whatif_outage.json"),
        include_str!("../../../rust-core/tests/fixtures/whatif_policy_threshold1.json"),
        &["--compare"],
    );
    assert_eq!(r.out.lines().last().unwrap(), golden["compare_line"]);
    assert_eq!(r.out.lines().count() as u64, golden["stdout_lines"]);
    let hex = |bytes: &[u8]| -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(hex(r.out.as_bytes()), golden["stdout_sha256"]);
    assert_eq!(hex(&report), golden["html_sha256"]);
}
