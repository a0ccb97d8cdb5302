//! `cargo bench --bench whatif`: replaying a 30-minute trace of 100,000 requests on 10 lines
//! (two business lines of five) under another policy, with and without `--compare` and the
//! HTML report. The trace is recorded here from the engine: calls every 18 ms, alternating
//! business lines; the first line of each refuses connections from minute 10 to minute 15
//! and failed attempts are retried on the next line like the interceptor does.
//! `WHATIF_TRACE_OUT=FILE` also writes the trace (for a timed `linekit` run).

#[path = "../../rust-core/tests/support/manual.rs"]
mod manual;
#[path = "../tests/support/trace.rs"]
mod trace;

use criterion::{criterion_group, criterion_main, Criterion};
use linekit_core::engine::{Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_tools::whatif;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use trace::TraceLines;

const REQUESTS: u64 = 100_000;
const SPAN_MS: u64 = 30 * 60 * 1000;

fn config(failure_threshold: u32) -> String {
    let pool = |biz: &str| {
        (0..5)
            .map(|i| {
                json!({"id": format!("{biz}{i}"), "url": format!("https://{biz}{i}.example.test"),
                "weight": if i == 0 { 200 } else { 100 }})
            })
            .collect::<Vec<_>>()
    };
    json!({"version": 1, "trace": {"sample_rate": 1.0},
        "thresholds": {"failure_threshold": failure_threshold, "max_retries": 2},
        "biz_lines": {
            "spot": {"match": ["spot.example.test"], "http": pool("spot")},
            "dex": {"match": ["dex.example.test"], "http": pool("dex")}}})
    .to_string()
}

fn record() -> String {
    let sink = Arc::new(TraceLines::default());
    let (builder, clock) = manual::builder(config(3), 42);
    let kit = builder.trace_sink(sink.clone()).build().unwrap();
    for n in 0..REQUESTS {
        let t = n * SPAN_MS / REQUESTS;
        clock.set_now(t);
        let biz = if n % 2 == 0 { "spot" } else { "dex" };
        let url = format!("https://{biz}.example.test/v1/x");
        let mut tried: Vec<String> = Vec::new();
        for _ in 0..3 {
            let exclude: Vec<&str> = tried.iter().map(String::as_str).collect();
            let req = RouteRequest {
                exclude: &exclude,
                ..RouteRequest::new(&url, "GET")
            };
            let d = kit.route(&req);
            let Some(line) = d.line.as_deref().map(str::to_string) else {
                break;
            };
            let down = line.ends_with('0') && (600_000..900_000).contains(&t);
            let (outcome, cost) = if down {
                (Outcome::ConnectRefused, 3)
            } else {
                (Outcome::Ok, 20 + n % 17)
            };
            kit.report(&Report::new(biz, &line, outcome, cost));
            if !down {
                break;
            }
            tried.push(line);
        }
    }
    kit.close();
    sink.text()
}

fn bench(c: &mut Criterion) {
    let trace = record();
    if let Some(path) = std::env::var_os("WHATIF_TRACE_OUT") {
        std::fs::write(path, &trace).unwrap();
    }
    eprintln!(
        "whatif: trace of {} events, {} bytes",
        trace.lines().count(),
        trace.len()
    );
    let policy = config(1);
    let mut g = c.benchmark_group("whatif_100k");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(1));
    g.bench_function("replay", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(32 << 20);
            whatif::run(&trace, &policy, 30_000, &mut out).unwrap();
            out.len()
        })
    });
    g.bench_function("replay_compare_html", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(32 << 20);
            let w = whatif::run(&trace, &policy, 30_000, &mut out).unwrap();
            let compare = w.compare_line().to_string();
            whatif::html::render(&w, true).len() + compare.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
