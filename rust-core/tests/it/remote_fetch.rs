//! The engine fetching its own config through the transport, on a manual clock with a
//! scripted transport: failover to the next URL within a round, ETag / 304, back-off,
//! every rejection leaving the config in force and the last good one untouched, the
//! schedule (start-up, interval, validated network, refresh), expiry while running and at
//! load, and the app config errors that fail `build`.

use crate::support;

use linekit_core::clock::{Clock, ManualClock};
use linekit_core::config::LastGoodStore;
use linekit_core::engine::{LineKit, RuntimeMode, FIRST_RETRY_MS};
use linekit_core::net::NetworkState;
use linekit_core::trace::{MemorySink, TraceBody, TraceEvent};
use linekit_core::transport::{RequestKind, TransportError, TransportRequest, TransportResult};
use serde_json::Value;
use std::sync::Arc;
use support::signing::*;
use support::transport::RecordingTransport;

/// How these tests read and answer config fetches.
trait ConfigFetches {
    fn config_requests(&self) -> Vec<TransportRequest>;
    fn last(&self) -> TransportRequest;
    fn respond(&self, status: u16, body: &str, etag: Option<&str>);
    fn fail(&self, e: TransportError);
}

impl ConfigFetches for RecordingTransport {
    fn config_requests(&self) -> Vec<TransportRequest> {
        self.requests_of(RequestKind::Config)
    }

    fn last(&self) -> TransportRequest {
        self.config_requests().pop().expect("a config request")
    }

    /// Answers the latest config fetch.
    fn respond(&self, status: u16, body: &str, etag: Option<&str>) {
        self.answer(
            self.last().id,
            TransportResult::Response {
                status,
                body: body.as_bytes().to_vec(),
                headers: etag
                    .map(|e| vec![("ETag".to_string(), e.to_string())])
                    .unwrap_or_default(),
            },
        );
    }

    fn fail(&self, e: TransportError) {
        self.answer(self.last().id, TransportResult::Failed(e));
    }
}

/// The reason codes of the events `sink` received, oldest first.
fn reasons(sink: &MemorySink) -> Vec<String> {
    let reason = |e: TraceEvent| match e.body {
        TraceBody::Config(c) => c.reason,
        TraceBody::Route(r) => Some(r.reason.as_str().to_string()),
        _ => None,
    };
    sink.events().into_iter().filter_map(reason).collect()
}

const URLS: &str = r#""remote":{"urls":["https://cfg-a.example.com/lk.json","https://cfg-b.example.net/lk.json"],"interval_s":600,"jitter_s":0,"timeout_ms":2000}"#;

struct World {
    kit: LineKit,
    t: Arc<RecordingTransport>,
    clock: ManualClock,
    events: Arc<MemorySink>,
    dir: std::path::PathBuf,
}

impl World {
    /// Moves the clock by `ms`, firing due timers.
    fn advance(&self, ms: u64) {
        let end = self.clock.now_ms() + ms;
        while let Some(d) = self.kit.next_deadline().filter(|d| *d <= end) {
            self.clock.set_now(d);
            self.kit.run_due();
        }
        self.clock.set_now(end);
        self.kit.run_due();
    }

    /// How many config fetches have started.
    fn fetches(&self) -> usize {
        self.t.config_requests().len()
    }

    /// The outcome of the last fetch from URL `i`, as `state_json` shows it.
    fn last_outcome(&self, i: usize) -> Value {
        self.config_state()["fetch"][i]["last_outcome"].clone()
    }

    /// Answers the latest fetch (without an ETag), checks that no failover fetch started,
    /// and returns the outcome of URL 0.
    fn answer_in_place(&self, status: u16, body: &str) -> Value {
        let n = self.fetches();
        self.t.respond(status, body, None);
        assert_eq!(self.fetches(), n, "no failover");
        self.last_outcome(0)
    }

    /// Answers the latest fetch (without an ETag), checks that the round failed over to the
    /// second URL, and returns the outcome of URL 0.
    fn answer_failing_over(&self, status: u16, body: &str) -> Value {
        self.t.respond(status, body, None);
        assert_eq!(self.t.last().url, "https://cfg-b.example.net/lk.json");
        self.last_outcome(0)
    }

    fn config_state(&self) -> Value {
        let v: Value = serde_json::from_str(&self.kit.state_json()).unwrap();
        v["config"].clone()
    }

    fn persisted(&self) -> Option<String> {
        LastGoodStore::new(&self.dir).load().unwrap()
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "linekit-remote-{name}-{}-{}",
        std::process::id(),
        fastrand::u64(..)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn world_in(name: &str, app_config: &str, dir: Option<std::path::PathBuf>) -> World {
    let dir = dir.unwrap_or_else(|| temp_dir(name));
    let clock = ManualClock::new(1_000, NOW_S * 1_000);
    let t = Arc::new(RecordingTransport::default());
    let events = Arc::new(MemorySink::default());
    let kit = support::manual::builder_on(app_config, 7, &clock)
        .storage_dir(&dir)
        .transport(t.clone())
        .trace_sink(events.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    World {
        kit,
        t,
        clock,
        events,
        dir,
    }
}

fn unsigned_world(name: &str) -> World {
    world_in(name, &config(1, URLS), None)
}

/// App config under trust k1 (version 1), and the envelope of a newer one.
fn signed_world(name: &str) -> World {
    let k1 = key(1);
    world_in(
        name,
        &trusted_config(1, &trust(&[("k1", &k1)], 1), LATER_S, URLS),
        None,
    )
}

/// A [`signed_world`] whose first fetch (at 1 s) applied the signed version 2.
fn signed_world_on_v2(name: &str) -> World {
    let w = signed_world(name);
    w.advance(1_000);
    w.t.respond(200, &signed_next(2), None);
    w
}

fn signed_next(version: u64) -> String {
    let k1 = key(1);
    envelope(
        &trusted_config(version, &trust(&[("k1", &k1)], 1), LATER_S, URLS),
        &[("k1", &k1)],
    )
}

#[test]
fn first_round_waits_for_the_startup_delay_and_uses_get_on_the_first_url() {
    let w = unsigned_world("startup");
    w.advance(999);
    assert_eq!(w.fetches(), 0);
    w.advance(1);
    let r = w.t.last();
    assert_eq!(
        (r.method.as_str(), r.url.as_str()),
        ("GET", "https://cfg-a.example.com/lk.json")
    );
    assert_eq!(r.timeout_ms, 2000);
    assert!(r.headers.is_empty());
}

#[test]
fn failover_to_the_second_url_in_the_same_round() {
    let w = unsigned_world("failover");
    w.advance(1_000);
    w.t.fail(TransportError::ConnectRefused);
    assert_eq!(w.t.last().url, "https://cfg-b.example.net/lk.json");
    w.t.respond(200, &config(2, URLS), Some("\"v2\""));
    assert_eq!(w.kit.config().version, 2);
    let state = w.config_state();
    assert_eq!(state["source"], "remote");
    assert_eq!(state["fetch"][0]["last_outcome"], "connect_refused");
    assert_eq!(state["fetch"][1]["last_outcome"], "applied");
    assert_eq!(w.persisted().as_deref(), Some(config(2, URLS).as_str()));
    // A 5xx, a timeout and an invalid body also move on.
    w.advance(600_000);
    assert_eq!(w.answer_failing_over(503, ""), "http_503");
    w.advance(600_000 + FIRST_RETRY_MS);
    w.advance(2_000); // the deadline of the first URL
    assert_eq!(w.t.last().url, "https://cfg-b.example.net/lk.json");
    assert_eq!(w.last_outcome(0), "read_timeout");
}

#[test]
fn etag_is_sent_and_304_means_unchanged() {
    let w = unsigned_world("etag");
    w.advance(1_000);
    w.t.respond(200, &config(2, URLS), Some("\"v2\""));
    w.advance(600_000);
    let r = w.t.last();
    assert_eq!(r.url, "https://cfg-a.example.com/lk.json");
    assert_eq!(
        r.headers,
        vec![("If-None-Match".to_string(), "\"v2\"".to_string())]
    );
    let before = w.fetches();
    // Success: no failover, the next round one interval later.
    assert_eq!(w.answer_in_place(304, ""), "not_modified");
    assert_eq!(w.kit.config().version, 2);
    w.advance(599_999);
    assert_eq!(w.fetches(), before);
    w.advance(1);
    assert_eq!(w.fetches(), before + 1);
}

#[test]
fn a_verified_copy_of_the_version_in_force_is_unchanged_not_a_failover() {
    let w = signed_world_on_v2("unchanged");
    w.advance(600_000);
    // A server without ETag support serves the same signed config again.
    assert_eq!(w.answer_in_place(200, &signed_next(2)), "unchanged");
    // A rollback is a rejection: on to the next URL.
    w.advance(600_000);
    assert_eq!(w.answer_failing_over(200, &signed_next(1)), "not_newer");
}

#[test]
fn failed_rounds_back_off_doubling_up_to_the_interval() {
    let w = unsigned_world("backoff");
    w.advance(1_000);
    let mut gaps = Vec::new();
    let mut last_start = w.clock.now_ms();
    for _ in 0..6 {
        w.t.fail(TransportError::Dns);
        w.t.fail(TransportError::Dns);
        let n = w.fetches();
        let mut waited = 0;
        while w.fetches() == n {
            w.advance(1_000);
            waited += 1_000;
            assert!(waited <= 600_000, "no retry within the interval");
        }
        gaps.push(w.clock.now_ms() - last_start);
        last_start = w.clock.now_ms();
    }
    assert_eq!(gaps, [30_000, 60_000, 120_000, 240_000, 480_000, 600_000]);
    // A success resets the back-off.
    w.t.respond(200, &config(2, URLS), None);
    w.advance(599_000);
    let n = w.fetches();
    w.advance(1_000);
    assert_eq!(w.fetches(), n + 1);
}

#[test]
fn every_rejection_keeps_current_and_last_good_and_moves_to_the_next_url() {
    let w = signed_world_on_v2("rejections");
    assert_eq!(w.kit.config().version, 2);
    let good = w.persisted().unwrap();
    let k1 = key(1);
    let k2 = key(2);
    let t1 = trust(&[("k1", &k1)], 1);
    let next = trusted_config(3, &t1, LATER_S, URLS);
    let two = trust(&[("k1", &k1), ("k2", &k2)], 2);
    let cases: Vec<(String, &str)> = vec![
        (next.clone(), "unsigned"),
        (envelope(&next, &[("k1", &k2)]), "bad_signature"),
        (envelope(&next, &[("k7", &k2)]), "unknown_key"),
        (envelope(&next, &[]), "unsigned"),
        (
            envelope(&trusted_config(3, &t1, NOW_S, URLS), &[("k1", &k1)]),
            "expired",
        ),
        (signed_next(1), "not_newer"),
        ("{\"signed\": 1}".to_string(), "malformed"),
        (
            format!("{{\"signed\":\"{}\"}}", "A".repeat(300 * 1024)),
            "oversize",
        ),
        (
            envelope(
                &trusted_config(3, &t1, LATER_S, r#""trace":{"sample_rate":3}"#),
                &[("k1", &k1)],
            ),
            "invalid",
        ),
    ];
    for (body, code) in &cases {
        w.kit.refresh_config();
        w.t.respond(200, body, None);
        assert_eq!(
            w.t.last().url,
            "https://cfg-b.example.net/lk.json",
            "{code}"
        );
        assert_eq!(w.last_outcome(0), *code, "{code}");
        assert_eq!(w.kit.config().version, 2, "{code}");
        assert_eq!(w.persisted().as_deref(), Some(good.as_str()), "{code}");
        assert_eq!(reasons(&w.events).last().map(String::as_str), Some(*code));
        w.t.fail(TransportError::Tls);
    }
    // below_threshold: move to a two-key threshold, then offer one signature.
    let raise = envelope(
        &trusted_config(3, &two, LATER_S, URLS),
        &[("k1", &k1), ("k2", &k2)],
    );
    assert!(w.kit.update_config(&raise).applied);
    let one = envelope(&trusted_config(4, &two, LATER_S, URLS), &[("k1", &k1)]);
    let u = w.kit.update_config(&one);
    assert!(!u.applied);
    assert!(u.error.unwrap().starts_with("below_threshold: "));
    assert_eq!(w.kit.config().version, 3);
}

#[test]
fn update_config_goes_through_the_same_verification() {
    let w = signed_world("update");
    let k1 = key(1);
    let bare = trusted_config(2, &trust(&[("k1", &k1)], 1), LATER_S, URLS);
    let u = w.kit.update_config(&bare);
    assert!(!u.applied);
    assert!(u.error.as_deref().unwrap().starts_with("unsigned: "));
    let u = w.kit.update_config(&signed_next(2));
    assert!(u.applied, "{u:?}");
    assert_eq!(u.version, 2);
}

#[test]
fn rotation_is_accepted_only_when_signed_by_the_current_and_the_new_keys() {
    let w = signed_world("rotation");
    let (k1, k2) = (key(1), key(2));
    let rotated = trusted_config(2, &trust(&[("k2", &k2)], 1), LATER_S, URLS);
    let u = w.kit.update_config(&envelope(&rotated, &[("k2", &k2)]));
    assert!(u.error.unwrap().starts_with("unknown_key: "));
    let u = w.kit.update_config(&envelope(&rotated, &[("k1", &k1)]));
    assert!(u
        .error
        .unwrap()
        .starts_with("unknown_key: under the trust it introduces"));
    let both = envelope(&rotated, &[("k1", &k1), ("k2", &k2)]);
    assert!(w.kit.update_config(&both).applied);
    let next = trusted_config(3, &trust(&[("k2", &k2)], 1), LATER_S, URLS);
    assert!(
        !w.kit
            .update_config(&envelope(&next, &[("k1", &k1)]))
            .applied
    );
    assert!(
        w.kit
            .update_config(&envelope(&next, &[("k2", &k2)]))
            .applied
    );
}

#[test]
fn a_running_engine_keeps_routing_after_expiry_and_fetches_at_once() {
    let k1 = key(1);
    let slow = URLS.replace("\"interval_s\":600", "\"interval_s\":7200");
    let app = trusted_config(1, &trust(&[("k1", &k1)], 1), NOW_S + 3_600, &slow);
    let w = world_in("expiry", &app, None);
    w.advance(1_000);
    w.t.respond(304, "", None);
    assert_eq!(w.config_state()["status"], "ok");
    let n = w.fetches();
    w.advance(3_597_000);
    assert!(!w.kit.config_expired());
    assert_eq!(w.fetches(), n);
    w.advance(2_000);
    assert!(w.kit.config_expired());
    let state = w.config_state();
    assert_eq!(state["status"], "config_expired");
    assert_eq!(state["expired"], true);
    assert!(reasons(&w.events).iter().any(|r| r == "config_expired"));
    assert_eq!(w.fetches(), n + 1, "a fetch starts at expiry");
    assert_eq!(w.kit.in_flight(), 1);
    // Routing still uses the expired config.
    let url = "https://api.example.com/x";
    let d = w.kit.route(&linekit_core::engine::RouteRequest {
        url,
        method: "GET",
        biz: None,
        keep_original: false,
        fixed_host: None,
        protocol: linekit_core::line::Protocol::Http,
        exclude: &[],
        mode: None,
        reported: true,
    });
    assert_eq!(d.url(url), "https://spot-a.example.com/x");
    // A fresh signed config ends the expired state.
    w.t.respond(200, &signed_next(2), None);
    assert_eq!(w.kit.config().version, 2);
    assert_eq!(w.config_state()["status"], "ok");
}

#[test]
fn an_expired_persisted_config_is_skipped_at_load() {
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let app = trusted_config(1, &t1, LATER_S + 86_400 * 30, URLS);
    let seal_key = [9u8; 32];
    let sealed = linekit_core::config::seal(app.as_bytes(), &seal_key).unwrap();
    let dir = temp_dir("persisted");
    let build = |wall_s: u64| {
        LineKit::builder()
            .sealed_config(sealed.as_str(), seal_key.to_vec())
            .storage_dir(&dir)
            .clock(Arc::new(ManualClock::new(1_000, wall_s * 1_000)))
            .runtime_mode(RuntimeMode::Manual)
            .build()
            .unwrap()
    };
    let kit = build(NOW_S);
    assert_eq!(kit.config_status().source, "sealed");
    let short = envelope(&trusted_config(5, &t1, NOW_S + 60, URLS), &[("k1", &k1)]);
    assert!(kit.update_config(&short).applied);
    kit.close();
    drop(kit);
    // Restart before expiry: the persisted config wins.
    let kit = build(NOW_S + 30);
    assert_eq!(kit.config().version, 5);
    assert_eq!(kit.config_status().source, "last_good");
    kit.close();
    drop(kit);
    // Restart after expiry: skipped with `expired`, the chain goes on to the sealed one.
    let kit = build(NOW_S + 61);
    assert_eq!(kit.config().version, 1);
    let status = kit.config_status();
    assert_eq!(status.source, "sealed");
    assert_eq!(status.skipped[0].source, "last_good");
    let reason = &status.skipped[0].reason;
    assert!(reason.starts_with("expired: "), "{reason}");
    // The file itself is kept (a newer fetch replaces it).
    assert!(LastGoodStore::new(&dir).load().unwrap().is_some());
}

#[test]
fn a_validated_network_fetches_only_when_the_last_round_is_older_than_the_interval() {
    let w = unsigned_world("network");
    w.advance(1_000);
    w.t.respond(200, &config(2, URLS), None);
    let n = w.fetches();
    let net = |handle| NetworkState {
        handle,
        validated: true,
        ..NetworkState::default()
    };
    w.advance(10_000);
    w.kit.on_network_changed(net(1));
    assert_eq!(w.fetches(), n, "a recent round is enough");
    w.kit.close();
    // Older than the interval: a validated network starts a round at once.
    let w = unsigned_world("network-old");
    w.advance(1_000);
    w.t.fail(TransportError::Dns);
    w.t.fail(TransportError::Dns);
    w.clock.set_now(w.clock.now_ms() + 600_000);
    let n = w.fetches();
    w.kit.on_network_changed(net(2));
    assert_eq!(w.fetches(), n + 1);
}

#[test]
fn refresh_config_starts_a_round_now_and_never_two_at_once() {
    let w = unsigned_world("refresh");
    assert!(w.kit.refresh_config());
    assert_eq!(w.fetches(), 1);
    assert!(w.kit.refresh_config());
    assert_eq!(w.fetches(), 1);
    // The start-up timer was replaced by the manual round.
    w.t.respond(200, &config(2, URLS), None);
    w.advance(5_000);
    assert_eq!(w.fetches(), 1);
}

#[test]
fn without_remote_or_transport_nothing_is_fetched() {
    let clock = ManualClock::new(1_000, NOW_S * 1_000);
    let t = Arc::new(RecordingTransport::default());
    let kit = LineKit::builder()
        .config_json(config(1, ""))
        .clock(Arc::new(clock.clone()))
        .transport(t.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    assert!(!kit.refresh_config());
    clock.set_now(10_000_000);
    kit.run_due();
    assert!(t.config_requests().is_empty());
}

#[test]
fn an_invalid_app_config_fails_build_with_every_path() {
    let bad = r#"{"version":1,"biz_lines":{"spot":{"http":[{"id":"a","url":"ftp://x"}]}},"trace":{"sample_rate":2}}"#;
    let build = |fallback: bool| {
        LineKit::builder()
            .config_json(bad)
            .fallback_on_invalid_config(fallback)
            .runtime_mode(RuntimeMode::Manual)
            .build()
    };
    let err = build(false).unwrap_err();
    let linekit_core::Error::InvalidConfig(errors) = err else {
        panic!("expected InvalidConfig, got {err:?}");
    };
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["biz_lines.spot.http[0].url", "trace.sample_rate"]);
    // Told to fall back: builds on the next level and the state says why.
    let kit = build(true).unwrap();
    let state: Value = serde_json::from_str(&kit.state_json()).unwrap();
    assert_eq!(state["config"]["source"], "hard_coded");
    let reason = state["config"]["skipped"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("trace.sample_rate"), "{reason}");
}
