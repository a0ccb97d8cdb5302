//! The sticky routing path allocates exactly once: the final URL string
//! (`docs/architecture.md#hot-path`).
//! A counting global allocator wraps the system one for this test binary only (it counts
//! every thread's allocations, so no other test may share the binary).

use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::trace::event::NoopSink;
use linekit_core::ManualClock;
use std::sync::Arc;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{allocations, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn sticky_route_allocates_only_the_url_and_report_allocates_nothing() {
    let lines: Vec<serde_json::Value> = (0..8)
        .map(|i| serde_json::json!({"id": format!("l{i}"), "url": format!("https://line{i}.example.com")}))
        .collect();
    let config = serde_json::json!({"version": 1, "trace": {"sample_rate": 0.0},
        "biz_lines": {"spot": {"match": ["api.example.com"], "http": lines}}});
    let kit = LineKit::new(
        parse_config(&config.to_string()).unwrap(),
        Arc::new(ManualClock::new(1, 0)),
        Arc::new(NoopSink),
        1,
    )
    .unwrap();
    let req = RouteRequest::new("https://api.example.com/v1/ticker?sym=BTC", "GET");
    let report = Report::new("spot", "l0", Outcome::Ok, 40);
    kit.route(&req);
    kit.report(&report);
    kit.route(&req);

    let before = allocations();
    let d = kit.route(&req);
    let after_route = allocations();
    kit.report(&report);
    let after_report = allocations();

    assert_eq!(
        after_route - before,
        0,
        "route allocates nothing: the final URL is built on demand"
    );
    assert_eq!(
        d.url(req.url),
        "https://line0.example.com/v1/ticker?sym=BTC"
    );
    assert_eq!(after_report - after_route, 0, "report allocates nothing");
}
