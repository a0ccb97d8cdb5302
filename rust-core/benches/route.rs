//! Engine hot path: `route` on the sticky path of an 8-line pool and `report`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::trace::event::NoopSink;
use linekit_core::ManualClock;
use std::sync::Arc;

fn engine() -> LineKit {
    let lines: Vec<serde_json::Value> = (0..8)
        .map(|i| serde_json::json!({"id": format!("l{i}"), "url": format!("https://line{i}.example.com"), "priority": i}))
        .collect();
    let config = serde_json::json!({
        "version": 1,
        "trace": {"sample_rate": 0.0},
        "biz_lines": {"spot": {"match": ["api.example.com"], "http": lines}}
    });
    let config = parse_config(&config.to_string()).unwrap();
    LineKit::new(
        config,
        Arc::new(ManualClock::new(1, 0)),
        Arc::new(NoopSink),
        1,
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let kit = engine();
    let req = RouteRequest::new("https://api.example.com/v1/ticker?sym=BTC-USDT", "GET");
    kit.route(&req);
    c.bench_function("route_sticky_8_lines", |b| {
        b.iter(|| black_box(kit.route(black_box(&req))))
    });
    let report = Report::new("spot", "l0", Outcome::Ok, 42);
    c.bench_function("report_ok", |b| b.iter(|| kit.report(black_box(&report))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
