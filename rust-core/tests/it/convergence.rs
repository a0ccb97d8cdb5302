//! Domain convergence (`docs/architecture.md#domain-convergence`): legacy hosts onto a unified line with a path prefix,
//! released by a gray rate over stable per-install buckets, falling back to the original
//! URL when every unified line is open.

use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::trace::event::NoopSink;
use linekit_core::trace::Reason;
use linekit_core::ManualClock;
use std::sync::Arc;

fn engine_with_rate(rate: f64, seed: u64) -> (LineKit, ManualClock) {
    let mut config: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/routing.json")).unwrap();
    config["merge_hosts"][0]["rate"] = serde_json::json!(rate);
    let config = parse_config(&config.to_string()).unwrap();
    let clock = ManualClock::new(1, 0);
    (
        LineKit::new(config, Arc::new(clock.clone()), Arc::new(NoopSink), seed).unwrap(),
        clock,
    )
}

#[test]
fn merged_host_gets_prefix_and_unified_line() {
    let (kit, _) = engine_with_rate(1.0, 1);
    let url = "https://image.example.com/a/b.png?w=100%25";
    let d = kit.route(&RouteRequest::new(url, "GET"));
    assert_eq!(d.url(url), "https://cdn.example.com/image/a/b.png?w=100%25");
    assert_eq!(
        (d.reason, d.line.as_deref(), d.biz.as_deref()),
        (Reason::Merged, Some("main"), Some("cdn"))
    );
}

#[test]
fn rate_zero_half_and_one_over_many_installs() {
    for (rate, lo, hi) in [(0.0, 0, 0), (0.5, 900, 1_100), (1.0, 2_000, 2_000)] {
        let mut merged = 0;
        for seed in 0..2_000u64 {
            let (kit, _) = engine_with_rate(rate, seed);
            let url = "https://image.example.com/x.png";
            let d = kit.route(&RouteRequest::new(url, "GET"));
            match d.reason {
                Reason::Merged => merged += 1,
                Reason::MergeGrayOut => assert_eq!(d.url(url), "https://image.example.com/x.png"),
                other => panic!("unexpected reason {other}"),
            }
        }
        assert!(
            (lo..=hi).contains(&merged),
            "rate {rate}: {merged} of 2000 merged"
        );
    }
}

#[test]
fn an_install_keeps_its_bucket() {
    let (a, _) = engine_with_rate(0.5, 42);
    let (b, _) = engine_with_rate(0.5, 42);
    let first = a
        .route(&RouteRequest::new("https://image.example.com/1", "GET"))
        .reason;
    for _ in 0..20 {
        assert_eq!(
            b.route(&RouteRequest::new("https://image.example.com/1", "GET"))
                .reason,
            first
        );
    }
}

#[test]
fn every_unified_line_open_falls_back_to_the_original_url() {
    let (kit, clock) = engine_with_rate(1.0, 1);
    for line in ["main", "bak"] {
        for _ in 0..3 {
            kit.report(&Report::new("cdn", line, Outcome::ConnectTimeout, 3000));
            clock.advance(1);
        }
    }
    let url = "https://image.example.com/a.png";
    let d = kit.route(&RouteRequest::new(url, "GET"));
    assert_eq!(
        (d.url(url).as_str(), d.reason),
        (
            "https://image.example.com/a.png",
            Reason::MergeFallbackOriginal
        )
    );
}
