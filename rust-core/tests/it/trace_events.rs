//! Observability (`docs/architecture.md#observability`): every route and report can emit a structured event with a
//! reason code; `trace.sample_rate` picks installs per time window (an install that
//! records keeps everything of that window); events never carry URLs, paths, queries,
//! tokens or full host names.

use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::{BreakerState, Outcome, Timings};
use linekit_core::trace::{MemorySink, TraceBody, TraceKind};
use linekit_core::ManualClock;
use std::sync::Arc;

fn engine(rate: f64) -> (LineKit, Arc<MemorySink>) {
    let (kit, sink, _) = engine_with(rate, 1);
    (kit, sink)
}

fn engine_with(rate: f64, seed: u64) -> (LineKit, Arc<MemorySink>, ManualClock) {
    let config = serde_json::json!({"version": 1, "trace": {"sample_rate": rate},
        "biz_lines": {"spot": {"match": ["api.example.com"], "http": [
            {"id": "ali", "url": "https://spot-ali.example.com"}, {"id": "tx", "url": "https://spot-tx.example.com"}]}}});
    let sink = Arc::new(MemorySink::default());
    let clock = ManualClock::new(1, 0);
    let kit = LineKit::new(
        parse_config(&config.to_string()).unwrap(),
        Arc::new(clock.clone()),
        sink.clone(),
        seed,
    )
    .unwrap();
    (kit, sink, clock)
}

#[test]
fn route_and_report_events_explain_themselves_without_secrets() {
    let (kit, sink) = engine(1.0);
    let d = kit.route(&RouteRequest::new(
        "https://api.example.com/v1/orders/42?token=s3cr3t",
        "GET",
    ));
    kit.report(&Report {
        status: Some(200),
        timings: Timings {
            dns_ms: Some(3),
            tls_ms: Some(20),
            ..Timings::default()
        },
        ..Report::new("spot", d.line.as_deref().unwrap(), Outcome::Ok, 80)
    });
    let events = sink.events();
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].kind(), TraceKind::Start);
    let events = &events[1..];
    let route = events[0].to_json();
    let v: serde_json::Value = serde_json::from_str(&route).unwrap();
    assert_eq!(v["kind"], "route");
    assert_eq!(v["reason"], d.reason.as_str());
    assert_eq!(v["line"], "ali");
    assert_eq!(v["biz"], "spot");
    assert_eq!(v["logical_host"], "*.example.com");
    assert_eq!(v["final_host"], "*.example.com");
    for secret in ["s3cr3t", "orders", "token", "api.example.com", "spot-ali"] {
        assert!(!route.contains(secret), "{secret} leaked into {route}");
    }
    let report: serde_json::Value = serde_json::from_str(&events[1].to_json()).unwrap();
    assert_eq!(report["kind"], "report");
    assert_eq!(report["outcome"], "ok");
    assert_eq!(
        (
            report["total_ms"].as_u64(),
            report["dns_ms"].as_u64(),
            report["tls_ms"].as_u64()
        ),
        (Some(80), Some(3), Some(20))
    );
}

#[test]
fn sampling_picks_installs_per_window_and_keeps_their_whole_window() {
    // 1000 installs, each routing 20 requests in window 0 and 20 in window 1.
    let mut recorded = [0usize; 2];
    for seed in 0..1_000u64 {
        let (kit, sink, clock) = engine_with(0.1, seed);
        for window in 0..2u64 {
            clock.set_now(window * 600_000 + 1);
            let before = sink.events().len();
            for _ in 0..20 {
                kit.route(&RouteRequest::new("https://api.example.com/", "GET"));
            }
            let kept = sink.events().len() - before;
            assert!(
                kept == 0 || kept == 20,
                "install {seed} kept {kept} of 20 routes"
            );
            recorded[window as usize] += usize::from(kept == 20);
        }
    }
    for n in recorded {
        assert!(
            (60..=140).contains(&n),
            "{n} of 1000 installs recorded at 0.1"
        );
    }
    let (quiet, sink) = engine(0.0);
    quiet.route(&RouteRequest::new("https://api.example.com/", "GET"));
    assert!(sink.events().is_empty());
}

#[test]
fn a_recording_install_keeps_routes_reports_and_breaker_changes() {
    let (kit, sink, _clock) = engine_with(1.0, 3);
    for _ in 0..3 {
        kit.route(&RouteRequest::new("https://api.example.com/", "GET"));
        kit.report(&Report::new("spot", "ali", Outcome::ConnectRefused, 5));
    }
    let events = sink.events();
    let kinds: Vec<_> = events.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == TraceKind::Route).count(), 3);
    assert_eq!(kinds.iter().filter(|k| **k == TraceKind::Report).count(), 3);
    let opened: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            TraceBody::Breaker(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 1, "the third fault opens the breaker once");
    assert_eq!(opened[0].state, BreakerState::Open);
    assert_eq!(opened[0].on.line, "ali");
    assert!(opened[0].cooldown_ms.is_some());
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>());
    assert!(events.iter().all(|e| e.install == "0000000000000003"));
}

#[test]
fn config_changes_are_always_traced() {
    let (kit, sink) = engine(0.0);
    let update = kit.update_config(r#"{"version": 0, "biz_lines": {"a": {"http": [{"id": "x", "url": "https://x.example.com"}]}}}"#);
    assert!(!update.applied);
    let events = sink.events();
    assert_eq!(events.len(), 1);
    let TraceBody::Config(c) = &events[0].body else {
        panic!("not a config event: {:?}", events[0]);
    };
    assert!(c.detail.as_deref().unwrap().starts_with("rejected"));
}
