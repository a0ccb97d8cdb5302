//! Router capability (`docs/architecture.md#routing-rules`): business-line matching, URL rewriting
//! that keeps everything but scheme/host/port, private headers, fixed hosts, kill switch,
//! in-call exclusion and the all-open fallback — driven through the engine facade.

use linekit_core::config::validate::parse_config;
use linekit_core::config::RolloutMode;
use linekit_core::engine::{LineKit, Report, RouteDecision, RouteRequest};
use linekit_core::line::{Outcome, Protocol};
use linekit_core::trace::event::NoopSink;
use linekit_core::trace::Reason;
use linekit_core::ManualClock;
use std::sync::Arc;

fn engine() -> (LineKit, ManualClock) {
    engine_of(include_str!("../fixtures/routing.json"))
}

/// An engine on the config document `text`, and its clock.
fn engine_of(text: &str) -> (LineKit, ManualClock) {
    let config = parse_config(text).expect("config is valid");
    let clock = ManualClock::new(1, 0);
    let kit = LineKit::new(config, Arc::new(clock.clone()), Arc::new(NoopSink), 7).unwrap();
    (kit, clock)
}

fn route(kit: &LineKit, url: &str) -> (String, Option<String>, Reason) {
    let d = kit.route(&RouteRequest::new(url, "GET"));
    (d.url(url), d.line.map(|l| l.to_string()), d.reason)
}

/// `url` routed by `method` with `headers` on the http pool, nothing excluded, under the
/// configured rollout mode: the decision and the headers that would be sent.
fn with_headers(
    kit: &LineKit,
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
) -> (RouteDecision, Vec<(String, String)>) {
    kit.route_with_headers(url, method, headers, Some(Protocol::Http), &[], None)
}

/// The line `https://api.example.com/` is routed to now.
fn api_line(kit: &LineKit) -> Option<String> {
    route(kit, "https://api.example.com/").1
}

#[test]
fn path_and_query_are_preserved_byte_for_byte() {
    let (kit, _) = engine();
    for rest in [
        "/v1/a%2Fb/c?x=1",
        "/search?q=a+b&plus=%2B",
        "/ünï/çødé?名前=値",
        "/empty-query?",
        "",
        "?only=query",
        "/p;matrix=1?a=%zz#frag",
    ] {
        let (url, line, reason) = route(&kit, &format!("https://api.example.com{rest}"));
        assert_eq!(url, format!("https://spot-ali.example.com{rest}"), "{rest}");
        assert_eq!(line.as_deref(), Some("ali"));
        assert!(
            matches!(reason, Reason::Sticky | Reason::Ranked),
            "{reason}"
        );
    }
}

#[test]
fn port_of_the_line_replaces_the_logical_port() {
    let (kit, _) = engine();
    let d = kit.route(&RouteRequest {
        exclude: &["ali"],
        ..RouteRequest::new("https://api.example.com:9999/x", "GET")
    });
    assert_eq!(
        d.url("https://api.example.com:9999/x"),
        "https://spot-tx.example.com:8443/x"
    );
    assert_eq!(d.reason, Reason::RetryExcluded);
}

#[test]
fn unmanaged_hosts_and_non_http_urls_are_left_alone() {
    let (kit, _) = engine();
    for url in [
        "https://other.example.org/x",
        "not a url",
        "ftp://api.example.com/x",
    ] {
        let (out, line, reason) = route(&kit, url);
        assert_eq!((out.as_str(), line, reason), (url, None, Reason::Unmanaged));
    }
}

#[test]
fn suffix_match_and_explicit_biz_header() {
    let (kit, _) = engine();
    assert_eq!(
        route(&kit, "https://a.static.example.com/img.png").0,
        "https://cdn.example.com/img.png"
    );
    let (d, sent) = with_headers(
        &kit,
        "https://a.static.example.com/x",
        "GET",
        &[("X-Line-Biz", "cdn"), ("Accept", "*/*")],
    );
    assert_eq!(
        (
            d.url("https://a.static.example.com/x").as_str(),
            d.biz.as_deref()
        ),
        ("https://cdn.example.com/x", Some("cdn"))
    );
    assert_ne!(d.reason, Reason::BizRefused);
    assert_eq!(sent, vec![("Accept".to_string(), "*/*".to_string())]);
}

#[test]
fn biz_header_cannot_move_a_request_to_a_business_line_whose_match_excludes_its_host() {
    let (kit, _) = engine();
    let biz = |url: &str, name: &str| {
        let (d, _) = with_headers(
            &kit,
            url,
            "GET",
            &[("X-Line-Biz", name), ("Authorization", "Bearer t")],
        );
        (d.url(url), d.biz.as_deref().map(str::to_string), d.reason)
    };
    // spot's host named for cdn: routed by its host, onto spot's line.
    let (url, owner, reason) = biz("https://api.example.com/pay", "cdn");
    assert_eq!(
        (url.as_str(), owner.as_deref(), reason),
        (
            "https://spot-ali.example.com/pay",
            Some("spot"),
            Reason::BizRefused
        )
    );
    // A host no business line claims stays on its URL.
    let (url, owner, reason) = biz("https://elsewhere.example.org/x", "cdn");
    assert_eq!(
        (url.as_str(), owner, reason),
        ("https://elsewhere.example.org/x", None, Reason::BizRefused)
    );
}

#[test]
fn biz_header_picks_among_business_lines_that_claim_the_host() {
    let (kit, _) = engine_of(
        r#"{"version": 1, "biz_lines": {
            "spot": {"match": ["api.example.com"], "http": [{"id": "a", "url": "https://spot-a.example.com"}]},
            "wide": {"match": ["*.example.com"], "http": [{"id": "w", "url": "https://wide.example.net"}]}}}"#,
    );
    let url = "https://api.example.com/x";
    let (d, _) = with_headers(&kit, url, "GET", &[("X-Line-Biz", "wide")]);
    assert_eq!(
        (d.url(url).as_str(), d.biz.as_deref()),
        ("https://wide.example.net/x", Some("wide"))
    );
    let d = kit.route(&RouteRequest::new(url, "GET"));
    assert_eq!(d.biz.as_deref(), Some("spot"));
}

#[test]
fn every_private_header_is_stripped_case_insensitively() {
    let (kit, _) = engine();
    let headers = [
        ("x-line-biz", "spot"),
        ("X-LINE-TRACE", "1"),
        ("X-Line-Keep-Original-Host", "false"),
        ("Authorization", "Bearer t"),
        ("X-Lines-Not-Private", "kept"),
    ];
    let (_, sent) = with_headers(&kit, "https://api.example.com/", "GET", &headers);
    let names: Vec<&str> = sent.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Authorization", "X-Lines-Not-Private"]);
}

#[test]
fn keep_original_host_leaves_the_request_alone() {
    let (kit, _) = engine();
    let (d, sent) = with_headers(
        &kit,
        "https://api.example.com/pay?id=1",
        "POST",
        &[("X-Line-Keep-Original-Host", "true")],
    );
    assert_eq!(
        (d.url("https://api.example.com/pay?id=1").as_str(), d.reason),
        ("https://api.example.com/pay?id=1", Reason::KeepOriginal)
    );
    assert!(sent.is_empty());
}

/// `https://api.example.com/a?b=c` routed with `X-Line-Fixed-Host: value` and an
/// `Authorization` header: the final URL, the reason and the headers sent.
fn fixed(kit: &LineKit, value: &str) -> (String, Reason, Vec<(String, String)>) {
    let url = "https://api.example.com/a?b=c";
    let (d, sent) = with_headers(
        kit,
        url,
        "GET",
        &[("X-Line-Fixed-Host", value), ("Authorization", "Bearer t")],
    );
    (d.url(url), d.reason, sent)
}

#[test]
fn fixed_host_pins_to_a_line_origin_or_a_listed_one() {
    let (kit, _) = engine();
    // (header value, pinned URL): a line of any pool of any business line (ports compared
    // as connections use them), or a `fixed_hosts` entry (no port: the default port).
    for (value, want) in [
        (
            "https://spot-tx.example.com:8443",
            "https://spot-tx.example.com:8443/a?b=c",
        ),
        (
            "https://cdn-bak.example.net:443",
            "https://cdn-bak.example.net:443/a?b=c",
        ),
        (
            "https://WS-ALI.example.com",
            "https://ws-ali.example.com/a?b=c",
        ),
        (
            "https://pinned.example.com:444",
            "https://pinned.example.com:444/a?b=c",
        ),
        (
            "https://direct.example.com",
            "https://direct.example.com/a?b=c",
        ),
    ] {
        let (url, reason, _) = fixed(&kit, value);
        assert_eq!((url.as_str(), reason), (want, Reason::FixedHost), "{value}");
    }
}

#[test]
fn fixed_host_to_an_unknown_origin_is_refused_and_the_request_routes_as_without_it() {
    let (kit, _) = engine();
    for value in [
        "https://evil.example.net",
        "https://10.0.0.1",
        "https://[::1]:22",
        "https://127.0.0.1:443",
        // A known host on another port, a listed host on a port its entry does not name.
        "https://spot-tx.example.com",
        "https://pinned.example.com",
        "https://direct.example.com:8443",
    ] {
        let (url, reason, sent) = fixed(&kit, value);
        assert_eq!(
            (url.as_str(), reason),
            (
                "https://spot-ali.example.com/a?b=c",
                Reason::FixedHostRefused
            ),
            "{value}"
        );
        assert!(
            sent.iter().all(|(n, _)| !n.starts_with("X-Line")),
            "{sent:?}"
        );
    }
    // Outside any business line the refused request keeps its own URL.
    let (d, _) = with_headers(
        &kit,
        "https://elsewhere.example.org/x",
        "GET",
        &[("X-Line-Fixed-Host", "https://[::1]:22")],
    );
    assert_eq!(
        (
            d.url("https://elsewhere.example.org/x").as_str(),
            d.reason,
            d.target
        ),
        (
            "https://elsewhere.example.org/x",
            Reason::FixedHostRefused,
            None
        )
    );
}

#[test]
fn an_invalid_fixed_host_changes_nothing() {
    let (kit, _) = engine();
    for bad in [
        "http://pinned.example.com",
        "https://pinned.example.com:0",
        "wss://x.example.com",
        "junk",
        "https://x.example.com/path",
    ] {
        let (url, reason, _) = fixed(&kit, bad);
        assert_eq!(
            (url.as_str(), reason),
            ("https://api.example.com/a?b=c", Reason::FixedHostInvalid),
            "{bad}"
        );
    }
}

#[test]
fn an_ip_literal_fixed_host_pins_only_to_a_line_with_exactly_that_origin() {
    let (kit, _) = engine_of(
        r#"{"version": 1, "biz_lines": {"spot": {"match": ["api.example.com"],
            "http": [{"id": "a", "url": "https://spot-a.example.com"},
                     {"id": "ip", "url": "https://[2001:db8::7]:8443"}]}}}"#,
    );
    let (url, reason, _) = fixed(&kit, "https://[2001:db8::7]:8443");
    assert_eq!(
        (url.as_str(), reason),
        ("https://[2001:db8::7]:8443/a?b=c", Reason::FixedHost)
    );
    for other in ["https://[2001:db8::7]", "https://[2001:db8::8]:8443"] {
        assert_eq!(fixed(&kit, other).1, Reason::FixedHostRefused, "{other}");
    }
}

#[test]
fn downgrade_returns_first_line_by_priority() {
    let (kit, clock) = engine();
    // Move traffic to tx first.
    route(&kit, "https://api.example.com/");
    kit.report(&Report::new("spot", "ali", Outcome::ConnectRefused, 10));
    clock.advance(1);
    assert_eq!(api_line(&kit).as_deref(), Some("tx"));
    kit.set_downgrade(true);
    assert_eq!(route(&kit, "https://api.example.com/").2, Reason::Downgrade);
    assert_eq!(api_line(&kit).as_deref(), Some("ali"));
    kit.set_downgrade(false);
    assert_eq!(api_line(&kit).as_deref(), Some("tx"));
}

#[test]
fn websocket_requests_use_the_ws_pool() {
    let (kit, _) = engine();
    let d = kit.route(&RouteRequest {
        protocol: Protocol::Ws,
        ..RouteRequest::new("https://api.example.com/stream", "GET")
    });
    assert_eq!(
        (
            d.url("https://api.example.com/stream").as_str(),
            d.line.as_deref()
        ),
        ("https://ws-ali.example.com/stream", Some("ali-ws"))
    );
    let none = kit.route(&RouteRequest {
        protocol: Protocol::Ws,
        ..RouteRequest::new("https://a.static.example.com/stream", "GET")
    });
    assert_eq!(none.reason, Reason::Unmanaged);
}

#[test]
fn local_network_failures_do_not_move_traffic() {
    let (kit, clock) = engine();
    assert_eq!(api_line(&kit).as_deref(), Some("ali"));
    for _ in 0..10 {
        kit.report(&Report::new("spot", "ali", Outcome::LocalNetwork, 5));
        kit.report(&Report::new("spot", "ali", Outcome::Cancelled, 5));
        clock.advance(100);
        assert_eq!(api_line(&kit).as_deref(), Some("ali"));
    }
}

#[test]
fn reports_for_unknown_lines_are_ignored() {
    let (kit, _) = engine();
    kit.report(&Report::new("nope", "ali", Outcome::DnsFailure, 5));
    kit.report(&Report::new("spot", "nope", Outcome::DnsFailure, 5));
    let state: serde_json::Value = serde_json::from_str(&kit.state_json()).unwrap();
    assert_eq!(state["pools"]["spot/http"][0]["failures"], 0);
}

#[test]
fn report_by_host_finds_the_line() {
    let (kit, clock) = engine();
    route(&kit, "https://api.example.com/");
    kit.report(&Report {
        line: None,
        host: Some("spot-ali.example.com"),
        ..Report::new("spot", "", Outcome::DnsFailure, 5)
    });
    clock.advance(1);
    assert_eq!(api_line(&kit).as_deref(), Some("tx"));
}

/// A request routed to its line counts as in flight until its report: three left
/// unanswered past `slow_request_ms` move the next request off a slow line. A caller that
/// only asks where a request would go (`reported: false`) adds nothing in flight.
#[test]
fn only_routes_whose_outcome_is_reported_count_as_in_flight() {
    for (reported, moves) in [(true, true), (false, false)] {
        let (kit, clock) = engine();
        // Both lines answered fast once: each is known fast.
        for line in ["ali", "tx"] {
            kit.report(&Report::new("spot", line, Outcome::Ok, 40));
        }
        assert_eq!(api_line(&kit).as_deref(), Some("ali"));
        kit.report(&Report::new("spot", "ali", Outcome::Ok, 0));
        for _ in 0..3 {
            clock.advance(10);
            let d = kit.route(&RouteRequest {
                reported,
                ..RouteRequest::new("https://api.example.com/", "GET")
            });
            assert_eq!(d.line.as_deref(), Some("ali"));
        }
        clock.advance(2_100);
        let (_, line, reason) = route(&kit, "https://api.example.com/");
        if moves {
            assert_eq!((line.as_deref(), reason), (Some("tx"), Reason::SlowSwitch));
        } else {
            assert_eq!(line.as_deref(), Some("ali"), "nothing was in flight");
        }
    }
}

#[test]
fn a_decision_carries_the_limits_of_the_config_that_made_it() {
    let (kit, _) = engine_of(
        r#"{"version": 1, "thresholds": {"max_retries": 3, "buffer_body_max_bytes": 4096},
            "biz_lines": {
            "spot": {"match": ["api.example.com"], "http": [{"id": "a", "url": "https://spot-a.example.com"}]},
            "seen": {"match": ["seen.example.com"], "rollout": {"mode": "observe"},
                     "http": [{"id": "s", "url": "https://seen-s.example.net"}]}}}"#,
    );
    let limits = |url: &str| {
        let d = kit.route(&RouteRequest::new(url, "GET"));
        (d.mode, d.max_retries, d.buffer_body_max_bytes)
    };
    assert_eq!(
        limits("https://api.example.com/x"),
        (RolloutMode::On, 3, 4096)
    );
    // Observed requests are sent once, to their own URL.
    assert_eq!(
        limits("https://seen.example.com/x"),
        (RolloutMode::Observe, 0, 4096)
    );
    let update = kit.update_config(
        r#"{"version": 2, "thresholds": {"max_retries": 1, "buffer_body_max_bytes": 10},
            "biz_lines": {"spot": {"match": ["api.example.com"],
                "http": [{"id": "a", "url": "https://spot-a.example.com"}]}}}"#,
    );
    assert!(update.applied, "{:?}", update.error);
    assert_eq!(
        limits("https://api.example.com/x"),
        (RolloutMode::On, 1, 10)
    );
}
