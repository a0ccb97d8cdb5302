//! After an outage, revive probes close the preferred line's breaker and traffic returns to
//! it (`docs/architecture.md#revive`), with the engine driven the way the JVM demo drives it: continuous traffic
//! on the serving backup, a second backup that answers 503, probes answered by a transport
//! that knows which lines are up — all in virtual time.

use crate::support;

use linekit_core::engine::{Report, RouteRequest, RuntimeMode};
use linekit_core::line::Outcome;
use linekit_core::transport::{
    Completion, Transport, TransportError, TransportRequest, TransportResult,
};
use linekit_core::ManualClock;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::sync::Arc;

/// Answers probes at once: 204 for lines that are up, refused or 503 for the others.
#[derive(Default)]
struct World {
    down: Mutex<HashSet<&'static str>>,
    failing: Mutex<HashSet<&'static str>>,
}

impl Transport for World {
    fn start(&self, request: TransportRequest, done: Completion) {
        let host = request
            .url
            .split("://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or("");
        let result = if self.down.lock().iter().any(|h| *h == host) {
            TransportResult::Failed(TransportError::ConnectRefused)
        } else if self.failing.lock().iter().any(|h| *h == host) {
            TransportResult::Response {
                status: 503,
                body: Vec::new(),
                headers: Vec::new(),
            }
        } else {
            TransportResult::Response {
                status: 204,
                body: Vec::new(),
                headers: Vec::new(),
            }
        };
        done.complete(result);
    }
}

#[test]
fn traffic_returns_to_the_preferred_line_after_revive() {
    let config = r#"{"version": 1,
        "thresholds": {"max_retries": 2, "window_ms": 4000, "switch_interval_ms": 2000,
            "open_cooldown_ms": 1000, "revive_interval_ms": 1000, "detect_cooldown_ms": 1000,
            "detect_jitter_ms": 200, "probe_budget_per_min": 120},
        "biz_lines": {"spot": {"match": ["api.example.test"], "http": [
            {"id": "primary", "url": "https://primary.example.test", "weight": 200},
            {"id": "second", "url": "https://second.example.test"},
            {"id": "third", "url": "https://third.example.test"}]}}}"#;
    let clock = ManualClock::new(1, 1_700_000_000_000);
    let world = Arc::new(World::default());
    let kit = support::manual::builder_on(config, 5, &clock)
        .transport(world.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    let serving = |_second: u64| -> String {
        // One request every 10 ms, reported as the world answers it.
        let mut line = String::new();
        for _ in 0..100 {
            clock.advance(10);
            kit.run_due();
            let d = kit.route(&RouteRequest::new("https://api.example.test/x", "GET"));
            line = d.line.as_deref().unwrap_or("-").to_string();
            let host = format!("{line}.example.test");
            let outcome = if world.down.lock().contains(host.as_str()) {
                Outcome::ConnectRefused
            } else if world.failing.lock().contains(host.as_str()) {
                Outcome::Http5xx
            } else {
                Outcome::Ok
            };
            kit.report(&Report {
                status: (outcome == Outcome::Http5xx).then_some(503),
                ..Report::new("spot", &line, outcome, 1)
            });
        }
        line
    };
    // Start-up probes verify every line; then the heaviest line serves.
    let mut start = Vec::new();
    for s in 0..6 {
        start.push(serving(s));
    }
    assert_eq!(
        start.last().map(String::as_str),
        Some("primary"),
        "{start:?}"
    );
    world.down.lock().insert("primary.example.test");
    let mut during = Vec::new();
    for s in 6..12 {
        during.push(serving(s));
    }
    assert!(during.iter().all(|l| l != "primary"), "{during:?}");
    world.failing.lock().insert("second.example.test");
    for s in 12..18 {
        let l = serving(s);
        assert_ne!(l, "primary", "second {s}");
    }
    world.down.lock().clear();
    let mut after = Vec::new();
    for s in 18..26 {
        after.push(serving(s));
    }
    let pools = serde_json::to_value(kit.pools()).unwrap();
    assert_eq!(
        after.last().map(String::as_str),
        Some("primary"),
        "after recovery: {after:?} {pools}"
    );
}
