//! Warm connections (`docs/architecture.md#warm-connections`): before traffic moves to
//! another line of an HTTP pool, the engine sends that line a `warm` request (a `HEAD` of
//! its detect path) through a transport that warms the business client's pool; once per
//! line per switch, from the probe budget, only under `on`, on a validated network, and
//! never counted on the line.

use crate::support;
use crate::support::transport::RecordingTransport;

use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::net::NetworkState;
use linekit_core::transport::{
    Completion, RequestKind, Transport, TransportError, TransportRequest, TransportResult,
};
use linekit_core::ManualClock;
use std::sync::Arc;

/// A [`RecordingTransport`] that says it sends warms through the business client's pool.
#[derive(Default)]
struct Warming(RecordingTransport);

impl Transport for Warming {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.0.start(request, done)
    }

    fn warms_business_pool(&self) -> bool {
        true
    }
}

impl Warming {
    /// The URLs of the warms sent so far, oldest first.
    fn warms(&self) -> Vec<String> {
        self.0
            .requests_of(RequestKind::Warm)
            .into_iter()
            .map(|r| {
                assert_eq!(r.method, "HEAD");
                r.url
            })
            .collect()
    }
}

/// Lines a, b, c of business line `spot`, with `extra_biz` and `thresholds` added (each
/// starting with a comma); `switch_interval_ms` 10 s unless `thresholds` sets it.
fn config(extra_biz: &str, thresholds: &str) -> String {
    let interval = if thresholds.contains("switch_interval_ms") {
        ""
    } else {
        r#""switch_interval_ms": 10000,"#
    };
    format!(
        r#"{{"version": 1,
        "thresholds": {{{interval} "startup_detect_delay_ms": 600000,
            "detect_cooldown_ms": 600000, "slow_request_ms": 500 {thresholds}}},
        "biz_lines": {{"spot": {{"match": ["api.example.test"], "detect_path": "/ping" {extra_biz},
            "http": [
                {{"id": "a", "url": "https://a.example.test"}},
                {{"id": "b", "url": "https://b.example.test"}},
                {{"id": "c", "url": "https://c.example.test"}}]}}}}}}"#
    )
}

fn engine(config: &str) -> (LineKit, ManualClock, Arc<Warming>) {
    let transport = Arc::new(Warming::default());
    let (kit, clock) = support::manual::engine(config, 7, &transport);
    (kit, clock, transport)
}

fn route(kit: &LineKit) -> String {
    let d = kit.route(&RouteRequest::new("https://api.example.test/x", "GET"));
    d.line.as_deref().unwrap_or("-").to_string()
}

fn report(kit: &LineKit, line: &str, outcome: Outcome, cost_ms: u64) {
    kit.report(&Report {
        status: (outcome == Outcome::Ok).then_some(200),
        ..Report::new("spot", line, outcome, cost_ms)
    });
}

/// Serves `n` fast requests on the serving line, each reported `ok`.
fn serve(kit: &LineKit, clock: &ManualClock, n: usize) -> String {
    let mut line = String::new();
    for _ in 0..n {
        clock.advance(10);
        line = route(kit);
        report(kit, &line, Outcome::Ok, 20);
    }
    line
}

#[test]
fn a_fault_on_the_serving_line_warms_the_line_traffic_moves_to_once_per_switch() {
    let (kit, clock, t) = engine(&config("", ""));
    assert_eq!(serve(&kit, &clock, 5), "a");
    assert!(t.warms().is_empty(), "healthy traffic warms nothing");

    clock.advance(10);
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    assert_eq!(
        t.warms(),
        ["https://b.example.test/ping"],
        "the next line by rank"
    );
    assert_eq!(route(&kit), "b", "and that is where traffic goes");

    // More trouble in the same switch epoch warms nothing again.
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    report(&kit, "b", Outcome::Ok, 900);
    assert_eq!(
        t.warms().len(),
        1 + 1,
        "b is slow: the way out is c, warmed once"
    );
    assert_eq!(t.warms()[1], "https://c.example.test/ping");
    report(&kit, "b", Outcome::Ok, 900);
    assert_eq!(t.warms().len(), 2, "c was already warmed in this epoch");
}

#[test]
fn a_line_is_warmed_again_only_after_a_switch_or_once_stale() {
    let (kit, clock, t) = engine(&config("", r#", "switch_interval_ms": 0"#));
    serve(&kit, &clock, 3);
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    assert_eq!(t.warms(), ["https://b.example.test/ping"]);
    // Traffic moves to b (a switch: a new epoch), then b fails and a is the way out...
    assert_eq!(route(&kit), "b");
    clock.advance(10);
    report(&kit, "b", Outcome::ConnectTimeout, 3000);
    assert_eq!(t.warms().len(), 2);
    // ...and back: in the new epoch b may be warmed again.
    let to = route(&kit);
    clock.advance(10);
    report(&kit, &to, Outcome::ConnectTimeout, 3000);
    assert_eq!(t.warms().len(), 3, "{:?}", t.warms());

    // Without a switch, the same line is warmed again only after a minute.
    let (kit, clock, t) = engine(&config("", ""));
    serve(&kit, &clock, 3);
    report(&kit, "a", Outcome::Ok, 900);
    assert_eq!(t.warms().len(), 1);
    clock.advance(59_000);
    report(&kit, "a", Outcome::Ok, 900);
    assert_eq!(t.warms().len(), 1, "within the minute");
    clock.advance(1_000);
    report(&kit, "a", Outcome::Ok, 900);
    assert_eq!(
        t.warms().len(),
        2,
        "a connection idle for a minute may be gone"
    );
}

#[test]
fn a_probe_that_makes_another_line_the_best_warms_it_before_traffic_moves() {
    let cfg = r#"{"version": 1,
        "thresholds": {"switch_interval_ms": 10000, "startup_detect_delay_ms": 600000,
            "detect_jitter_ms": 0, "detect_cooldown_ms": 1000, "window_ms": 20000},
        "biz_lines": {"spot": {"match": ["api.example.test"],
            "http": [
                {"id": "a", "url": "https://a.example.test", "weight": 200},
                {"id": "b", "url": "https://b.example.test"}]}}}"#;
    let (kit, clock, t) = engine(cfg);
    // a is refused (in-call failover to b), its breaker opens after 3 faults; b serves.
    for _ in 0..3 {
        clock.advance(10);
        let line = route(&kit);
        let outcome = if line == "a" {
            Outcome::ConnectRefused
        } else {
            Outcome::Ok
        };
        report(&kit, &line, outcome, 20);
    }
    assert_eq!(serve(&kit, &clock, 3), "b");
    let before = t.warms().len();

    // a recovers: once its faults left the window, a probe finds it healthy, so the next
    // re-rank prefers it (weight 200 against 100).
    clock.advance(40_000);
    assert!(kit.detect("spot"));
    kit.run_due();
    let probes: Vec<_> =
        t.0.take_waiting()
            .into_iter()
            .filter(|(r, _)| r.kind == RequestKind::Probe)
            .collect();
    assert_eq!(probes.len(), 2, "both lines are probed");
    for (_, done) in probes {
        done.complete(TransportResult::Response {
            status: 204,
            body: Vec::new(),
            headers: Vec::new(),
        });
    }
    let warms = t.warms();
    assert_eq!(warms.len(), before + 1, "{warms:?}");
    assert_eq!(
        warms.last().map(String::as_str),
        Some("https://a.example.test/line/ping")
    );
    assert_eq!(
        route(&kit),
        "a",
        "the warmed line is where traffic goes next"
    );
}

#[test]
fn a_warm_is_not_counted_on_its_line() {
    let (kit, clock, t) = engine(&config("", ""));
    serve(&kit, &clock, 3);
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    let (warm, done) = t.0.take_waiting().pop().expect("the warm");
    assert_eq!(warm.kind, RequestKind::Warm);
    let before = kit.state().pools["spot/http"].clone();
    done.complete(TransportResult::Failed(TransportError::ConnectRefused));
    assert_eq!(
        kit.state().pools["spot/http"],
        before,
        "a warm's answer changes no line"
    );
    assert_eq!(route(&kit), "b");
}

#[test]
fn no_warm_without_the_conditions() {
    let trouble = |kit: &LineKit, clock: &ManualClock| {
        serve(kit, clock, 3);
        report(kit, "a", Outcome::ConnectTimeout, 3000);
    };
    // The business line turned it off.
    let (kit, clock, t) = engine(&config(r#", "warm_connections": false"#, ""));
    trouble(&kit, &clock);
    assert!(t.warms().is_empty(), "warm_connections: false");

    // Under observe traffic does not move.
    let (kit, clock, t) = engine(&config(r#", "rollout": {"mode": "observe"}"#, ""));
    trouble(&kit, &clock);
    assert!(t.warms().is_empty(), "observe");

    // The platform reported a network that is not validated (a captive portal).
    let (kit, clock, t) = engine(&config("", ""));
    kit.on_network_changed(NetworkState {
        handle: 9,
        validated: false,
        ..NetworkState::default()
    });
    trouble(&kit, &clock);
    assert!(t.warms().is_empty(), "not validated");
    kit.on_network_changed(NetworkState {
        handle: 9,
        validated: true,
        ..NetworkState::default()
    });
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    assert_eq!(t.warms().len(), 1, "validated");

    // A transport with a pool of its own: a warm there would warm nothing the app uses.
    let plain = Arc::new(RecordingTransport::default());
    let (kit, clock) = support::manual::engine(config("", ""), 7, &plain);
    trouble(&kit, &clock);
    assert!(
        plain.requests_of(RequestKind::Warm).is_empty(),
        "transport without the business pool"
    );

    // The probe budget is spent.
    let (kit, clock, t) = engine(&config("", r#", "probe_budget_per_min": 1"#));
    assert!(kit.detect("spot"));
    kit.run_due();
    clock.advance(30_000);
    kit.run_due();
    assert!(
        !t.0.requests_of(RequestKind::Probe).is_empty(),
        "the detect took the token"
    );
    trouble(&kit, &clock);
    assert!(t.warms().is_empty(), "budget spent");
}

#[test]
fn lines_whose_breaker_is_not_closed_are_never_warmed() {
    let (kit, clock, t) = engine(&config("", r#", "failure_threshold": 1"#));
    serve(&kit, &clock, 2);
    // b and c fail once each: with failure_threshold 1 both breakers open.
    report(&kit, "b", Outcome::ConnectRefused, 10);
    report(&kit, "c", Outcome::ConnectRefused, 10);
    let before = t.warms().len();
    report(&kit, "a", Outcome::ConnectTimeout, 3000);
    assert_eq!(t.warms().len(), before, "{:?}", t.warms());
}

#[test]
fn a_websocket_pool_never_warms() {
    let cfg = r#"{"version": 1,
        "thresholds": {"startup_detect_delay_ms": 600000, "detect_cooldown_ms": 600000},
        "biz_lines": {"spot": {"match": ["api.example.test"],
            "http": [{"id": "a", "url": "https://a.example.test"}],
            "ws": [
                {"id": "wa", "url": "wss://wa.example.test"},
                {"id": "wb", "url": "wss://wb.example.test"}]}}}"#;
    let (kit, _clock, t) = engine(cfg);
    kit.report(&Report {
        protocol: linekit_core::line::Protocol::Ws,
        ..Report::new("spot", "wa", Outcome::ConnectTimeout, 3000)
    });
    assert!(
        t.warms().is_empty(),
        "a WebSocket keeps its own connection: {:?}",
        t.warms()
    );
}
