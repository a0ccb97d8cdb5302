//! Observability (DESIGN 1.11): every route and report can emit a structured event with a
//! reason code, sampled by `trace.sample_rate`, and events never carry URLs, paths,
//! queries, tokens or full host names.

use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::trace::{TraceEvent, TraceSink};
use linekit_core::ManualClock;
use parking_lot::Mutex;
use std::sync::Arc;

#[derive(Default)]
struct Collect(Mutex<Vec<TraceEvent>>);

impl TraceSink for Collect {
    fn emit(&self, event: &TraceEvent) {
        self.0.lock().push(event.clone());
    }
}

fn engine(rate: f64) -> (LineKit, Arc<Collect>) {
    let config = serde_json::json!({"version": 1, "trace": {"sample_rate": rate},
        "biz_lines": {"spot": {"match": ["api.example.com"], "http": [
            {"id": "ali", "url": "https://spot-ali.example.com"}, {"id": "tx", "url": "https://spot-tx.example.com"}]}}});
    let sink = Arc::new(Collect::default());
    let kit = LineKit::new(
        parse_config(&config.to_string()).unwrap(),
        Arc::new(ManualClock::new(1, 0)),
        sink.clone(),
        1,
    )
    .unwrap();
    (kit, sink)
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
        dns_ms: Some(3),
        tls_ms: Some(20),
        ..Report::new("spot", d.line.as_deref().unwrap(), Outcome::Ok, 80)
    });
    let events = sink.0.lock().clone();
    assert_eq!(events.len(), 2);
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
fn sampling_keeps_the_configured_share() {
    let (kit, sink) = engine(0.1);
    for _ in 0..5_000 {
        kit.route(&RouteRequest::new("https://api.example.com/", "GET"));
    }
    let n = sink.0.lock().len();
    assert!((400..=600).contains(&n), "{n} of 5000 sampled at 0.1");
    let (quiet, sink) = engine(0.0);
    quiet.route(&RouteRequest::new("https://api.example.com/", "GET"));
    assert!(sink.0.lock().is_empty());
}

#[test]
fn config_changes_are_always_traced() {
    let (kit, sink) = engine(0.0);
    let update = kit.update_config(r#"{"version": 0, "biz_lines": {"a": {"http": [{"id": "x", "url": "https://x.example.com"}]}}}"#);
    assert!(!update.applied);
    let events = sink.0.lock().clone();
    assert_eq!(events.len(), 1);
    assert!(events[0].detail.as_deref().unwrap().starts_with("rejected"));
}
