//! Requests waiting on the serving line count toward its slow streak once they have
//! waited `slow_request_ms`, each once: their answers do not count them again, a fast
//! answer still ends the streak, probes and WebSocket pools are not tracked.

use crate::support;

use linekit_core::config::{LineConfig, Thresholds};
use linekit_core::line::{LinePool, Outcome, Protocol};
use linekit_core::trace::Reason;
use support::lines::{http_pool, line_config};

/// The answer to a request on line 0 at `now`, costing `cost_ms`, as the engine records it.
fn answer(p: &mut LinePool, now: u64, cost_ms: u64) {
    p.finish_request(now, 0, Outcome::Ok, cost_ms);
    p.record(now, 0, Outcome::Ok, Some(200), cost_ms);
}

/// Three lines, each answered once in 40 ms at 0 (all known fast), serving `a`.
fn warmed() -> LinePool {
    let mut p = http_pool(&["a", "b", "c"], &Thresholds::default());
    for i in 0..3 {
        p.record(0, i, Outcome::Ok, Some(200), 40);
    }
    assert_eq!(p.select(1, &[]).index, 0);
    p
}

#[test]
fn three_requests_waiting_past_slow_request_ms_move_the_next_one() {
    let mut p = warmed();
    for at in [1_000, 1_010, 1_020] {
        let s = p.select(at, &[]);
        assert_eq!(s.index, 0);
        p.start_request(s.index, at);
    }
    // 2 s after the first two: a streak of 2, below the default 3.
    assert_eq!(p.select(3_015, &[]).index, 0);
    assert_eq!(p.lines()[0].slow_streak, 2);
    let moved = p.select(3_021, &[]);
    assert_eq!(moved.reason, Reason::SlowSwitch);
    assert_ne!(moved.index, 0);
    assert_eq!(p.lines()[0].slow_since, Some(3_000));
}

#[test]
fn an_answer_counted_while_it_waited_is_not_counted_again() {
    let mut p = warmed();
    p.start_request(0, 1_000);
    p.select(3_001, &[]);
    assert_eq!(p.lines()[0].slow_streak, 1);
    answer(&mut p, 3_500, 2_500);
    assert_eq!(
        p.lines()[0].slow_streak,
        1,
        "one slow request, counted once"
    );
    assert!(p.lines()[0].in_flight.is_empty());
    p.start_request(0, 3_600);
    answer(&mut p, 5_000, 1_400);
    assert_eq!(p.lines()[0].slow_streak, 0, "a fast answer ends the streak");
    // A slow answer of a request no route saw waiting (no select since it left) counts.
    p.start_request(0, 5_100);
    answer(&mut p, 7_300, 2_200);
    assert_eq!(p.lines()[0].slow_streak, 1);
}

#[test]
fn a_probe_answer_takes_no_request_out_of_flight() {
    let mut p = warmed();
    p.start_request(0, 1_000);
    // A probe sent at the same time answers fast: the request still waits.
    p.record(1_050, 0, Outcome::Ok, Some(200), 50);
    assert_eq!(p.lines()[0].in_flight.len(), 1);
    p.select(3_001, &[]);
    assert_eq!(p.lines()[0].slow_streak, 1);
}

#[test]
fn websocket_pools_do_not_track_open_connections() {
    let mut p = LinePool::new(
        Protocol::Ws,
        &[LineConfig {
            url: "wss://a.example.com".to_string(),
            ..line_config("a")
        }],
        &Thresholds::default(),
        false,
    )
    .expect("pool");
    p.start_request(0, 1_000);
    assert!(p.lines()[0].in_flight.is_empty());
}
