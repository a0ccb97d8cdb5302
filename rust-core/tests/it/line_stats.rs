//! Sliding-window line statistics: what counts, how failures are weighted, and how old
//! outcomes expire (so a recovered line comes back).

use crate::support;

use linekit_core::config::Thresholds;
use linekit_core::line::{Admission, Outcome, WindowStats};
use linekit_core::trace::Reason;
use support::lines::http_pool;

const WINDOW: u64 = 300_000;

/// A window that recorded each `(at, outcome, cost_ms)`, in order.
fn window(outcomes: &[(u64, Outcome, u64)]) -> WindowStats {
    let mut s = WindowStats::new(WINDOW);
    for &(at, outcome, cost_ms) in outcomes {
        s.record(at, outcome, cost_ms);
    }
    s
}

#[test]
fn ok_and_4xx_are_successes_and_4xx_adds_its_small_weight() {
    let s = window(&[(0, Outcome::Ok, 100), (1, Outcome::Http4xx, 50)]);
    assert_eq!(s.successes(1), 2);
    assert_eq!(s.failures(1), 0);
    assert_eq!(s.total(1), 2);
    let wf = s.weighted_failures(1);
    assert!(
        (wf - Outcome::Http4xx.failure_weight()).abs() < 1e-9,
        "{wf}"
    );
    let rate = s.weighted_success_rate(1).unwrap_or(0.0);
    assert!(rate < 1.0 && rate > 0.95, "{rate}");
}

#[test]
fn failures_are_counted_raw_and_weighted() {
    let s = window(&[
        (0, Outcome::Ok, 100),
        (0, Outcome::DnsFailure, 10),
        (0, Outcome::ReadTimeout, 3_000),
    ]);
    assert_eq!((s.successes(0), s.failures(0), s.total(0)), (1, 2, 3));
    let expected = Outcome::DnsFailure.failure_weight() + Outcome::ReadTimeout.failure_weight();
    assert!((s.weighted_failures(0) - expected).abs() < 1e-9);
    let rate = s.weighted_success_rate(0).unwrap_or(1.0);
    assert!((rate - 1.0 / (1.0 + expected)).abs() < 1e-9, "{rate}");
}

#[test]
fn latency_averages_answered_requests_only() {
    let mut s = WindowStats::new(WINDOW);
    assert_eq!(s.avg_latency_ms(0), None);
    s.record(0, Outcome::Ok, 100);
    s.record(0, Outcome::Http4xx, 200);
    s.record(0, Outcome::Http5xx, 300);
    // Not answered: excluded from the latency average.
    s.record(0, Outcome::ConnectTimeout, 10_000);
    s.record(0, Outcome::ReadTimeout, 10_000);
    assert_eq!(s.avg_latency_ms(0), Some(200));
}

#[test]
fn empty_window_has_no_rate() {
    let s = WindowStats::new(WINDOW);
    assert_eq!(s.weighted_success_rate(0), None);
    assert_eq!(s.total(0), 0);
}

#[test]
fn local_network_and_cancelled_are_never_counted() {
    let s = window(&[(0, Outcome::LocalNetwork, 10), (0, Outcome::Cancelled, 10)]);
    assert_eq!(s.total(0), 0);
    assert_eq!(s.weighted_success_rate(0), None);
    assert_eq!(s.avg_latency_ms(0), None);
}

#[test]
fn outcomes_expire_after_the_window() {
    let s = window(&[(0, Outcome::DnsFailure, 10), (WINDOW / 2, Outcome::Ok, 40)]);
    assert_eq!(s.total(WINDOW / 2), 2);
    // The first bucket has left the window; the second has not.
    assert_eq!(
        (s.successes(WINDOW + 1), s.failures(WINDOW + 1)),
        (1, 0),
        "old failure expired"
    );
    assert_eq!(s.avg_latency_ms(WINDOW + 1), Some(40));
    assert_eq!(s.total(WINDOW / 2 + WINDOW), 0, "everything expired");
    assert_eq!(s.weighted_success_rate(2 * WINDOW), None);
}

#[test]
fn many_records_do_not_overflow_or_panic() {
    let mut s = WindowStats::new(WINDOW);
    for i in 0..100_000u64 {
        s.record(i, Outcome::Ok, u64::MAX / 2);
    }
    assert_eq!(s.successes(99_999), 100_000);
    assert!(s.avg_latency_ms(99_999).is_some());
}

#[test]
fn pool_records_last_cost_error_and_used() {
    let t = Thresholds::default();
    let mut pool = http_pool(&["a", "b"], &t);
    pool.record(5, 0, Outcome::TlsFailure, None, 70);
    pool.record(6, 0, Outcome::Ok, Some(200), 30);
    let a = &pool.lines()[0];
    assert!(a.used);
    assert_eq!(a.last_cost_ms, Some(30));
    assert_eq!(a.last_error, Some(Outcome::TlsFailure));
    assert_eq!(a.consecutive_faults, 0, "reset by a non-fault");
    // Ignored outcomes change nothing at all.
    pool.record(7, 1, Outcome::LocalNetwork, None, 9);
    pool.record(7, 1, Outcome::Cancelled, None, 9);
    let b = &pool.lines()[1];
    assert!(!b.used && b.last_cost_ms.is_none() && b.stats.total(7) == 0);
    // Out-of-range index is ignored, not a panic.
    pool.record(8, 99, Outcome::DnsFailure, None, 1);
}

#[test]
fn window_expiry_restores_a_recovered_line() {
    let t = Thresholds::default();
    let mut pool = http_pool(&["a", "b"], &t);
    let mut now = 0;
    assert_eq!(pool.select(now, &[]).index, 0);
    // "a" fails three times: traffic moves to "b" and a's breaker opens.
    for _ in 0..t.failure_threshold {
        pool.record(now, 0, Outcome::DnsFailure, None, 20);
        now += 10;
    }
    assert_eq!(pool.select(now, &[]).index, 1);
    pool.record(now, 1, Outcome::Ok, Some(200), 120);
    // After the cooldown a probe succeeds on "a": breaker closed, but its window still
    // holds three DNS failures, so "b" stays.
    now += t.open_cooldown_ms;
    assert_eq!(pool.try_admit(now, 0), Admission::Trial);
    pool.record(now, 0, Outcome::Ok, Some(200), 50);
    for _ in 0..5 {
        now += t.switch_interval_ms;
        let s = pool.select(now, &[]);
        assert_eq!(s.index, 1, "a still has failures in its window");
        pool.record(now, 1, Outcome::Ok, Some(200), 120);
    }
    // Once a's failures leave the window it is a healthy, faster line again.
    now += WINDOW;
    pool.record(now, 1, Outcome::Ok, Some(200), 120);
    let s = pool.select(now, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::Ranked));
}
