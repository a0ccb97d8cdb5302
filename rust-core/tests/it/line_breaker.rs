//! The per-line circuit breaker: open after consecutive line faults, half-open after the
//! cooldown admitting exactly one trial, closed on success, re-opened with a capped
//! back-off on failure — on its own and inside a pool.

use crate::support;

use linekit_core::config::Thresholds;
use linekit_core::line::breaker::MAX_BACKOFF_FACTOR;
use linekit_core::line::{Admission, Breaker, BreakerParams, BreakerState, LinePool, Outcome};
use linekit_core::trace::Reason;
use support::lines::http_pool;

const COOLDOWN: u64 = 30_000;
const TRIAL_TIMEOUT: u64 = 3_000;

fn breaker() -> Breaker {
    Breaker::new(BreakerParams {
        failure_threshold: 3,
        open_cooldown_ms: COOLDOWN,
        trial_timeout_ms: TRIAL_TIMEOUT,
    })
}

/// Opens a closed breaker at `now`.
fn trip(b: &mut Breaker, now: u64) {
    for _ in 0..3 {
        b.on_result(now, true);
    }
    assert_eq!(b.state(now), BreakerState::Open);
}

#[test]
fn state_names() {
    assert_eq!(BreakerState::Closed.as_str(), "closed");
    assert_eq!(BreakerState::Open.as_str(), "open");
    assert_eq!(BreakerState::HalfOpen.as_str(), "half_open");
}

#[test]
fn consecutive_faults_open_it_and_a_success_resets_the_count() {
    let mut b = breaker();
    b.on_result(0, true);
    b.on_result(1, true);
    b.on_result(2, false);
    b.on_result(3, true);
    b.on_result(4, true);
    assert_eq!(b.state(5), BreakerState::Closed);
    assert_eq!(b.try_admit(5), Admission::Closed);
    b.on_result(6, true);
    assert_eq!(b.state(6), BreakerState::Open);
    assert!(b.is_open(6));
    assert_eq!(b.try_admit(6), Admission::Rejected);
    assert_eq!(b.open_until(), Some(6 + COOLDOWN));
}

#[test]
fn late_results_while_open_do_not_close_it() {
    let mut b = breaker();
    trip(&mut b, 0);
    b.on_result(10, false);
    b.on_result(20, false);
    assert_eq!(b.state(30), BreakerState::Open);
}

#[test]
fn half_open_admits_exactly_one_then_closes_on_success() {
    let mut b = breaker();
    trip(&mut b, 0);
    assert_eq!(b.state(COOLDOWN - 1), BreakerState::Open);
    assert_eq!(b.state(COOLDOWN), BreakerState::HalfOpen);
    assert!(!b.is_open(COOLDOWN), "half-open without a trial admits");
    assert_eq!(b.try_admit(COOLDOWN), Admission::Trial);
    assert!(b.is_open(COOLDOWN + 1), "trial in flight");
    for t in 1..10 {
        assert_eq!(b.try_admit(COOLDOWN + t), Admission::Rejected);
    }
    b.on_result(COOLDOWN + 50, false);
    assert_eq!(b.state(COOLDOWN + 50), BreakerState::Closed);
    assert_eq!(b.try_admit(COOLDOWN + 51), Admission::Closed);
    // Closing reset the back-off: the next opening uses the base cooldown.
    trip(&mut b, 100_000);
    assert_eq!(b.open_until(), Some(100_000 + COOLDOWN));
}

#[test]
fn failed_trial_reopens_with_a_doubling_capped_cooldown() {
    let mut b = breaker();
    trip(&mut b, 0);
    let mut now = COOLDOWN;
    let mut expected = Vec::new();
    let mut seen = Vec::new();
    for n in 1..=5u32 {
        assert_eq!(b.try_admit(now), Admission::Trial, "round {n}");
        b.on_result(now, true);
        let until = b.open_until().unwrap_or(0);
        seen.push(until - now);
        expected.push(COOLDOWN * (1u64 << n).min(MAX_BACKOFF_FACTOR));
        assert_eq!(b.state(until - 1), BreakerState::Open);
        now = until;
    }
    assert_eq!(seen, expected);
    assert_eq!(
        seen,
        [
            2 * COOLDOWN,
            4 * COOLDOWN,
            8 * COOLDOWN,
            8 * COOLDOWN,
            8 * COOLDOWN
        ]
    );
}

#[test]
fn a_trial_that_never_reports_allows_a_new_trial_after_the_timeout() {
    let mut b = breaker();
    trip(&mut b, 0);
    assert_eq!(b.try_admit(COOLDOWN), Admission::Trial);
    assert_eq!(
        b.try_admit(COOLDOWN + TRIAL_TIMEOUT - 1),
        Admission::Rejected
    );
    assert_eq!(b.try_admit(COOLDOWN + TRIAL_TIMEOUT), Admission::Trial);
}

#[test]
fn half_open_result_without_a_trial_is_ignored() {
    let mut b = breaker();
    trip(&mut b, 0);
    b.on_result(COOLDOWN + 1, false);
    assert_eq!(b.state(COOLDOWN + 1), BreakerState::HalfOpen);
    b.on_result(COOLDOWN + 2, true);
    assert_eq!(b.state(COOLDOWN + 2), BreakerState::HalfOpen);
}

#[test]
fn next_deadline_names_the_cooldown_end_and_the_trial_timeout() {
    let mut b = breaker();
    assert_eq!(b.next_deadline(0), None);
    trip(&mut b, 0);
    assert_eq!(b.next_deadline(1), Some(COOLDOWN));
    assert_eq!(
        b.next_deadline(COOLDOWN),
        None,
        "half-open, nothing pending"
    );
    b.try_admit(COOLDOWN);
    assert_eq!(b.next_deadline(COOLDOWN), Some(COOLDOWN + TRIAL_TIMEOUT));
}

fn pool(ids: &[&str]) -> LinePool {
    http_pool(ids, &Thresholds::default())
}

#[test]
fn pool_opens_a_line_after_failure_threshold_line_faults() {
    let t = Thresholds::default();
    let mut p = pool(&["a", "b"]);
    for i in 0..u64::from(t.failure_threshold) {
        assert!(!p.lines()[0].breaker.is_open(i));
        p.record(i, 0, Outcome::ConnectTimeout, None, 3_000);
    }
    assert_eq!(p.lines()[0].breaker.state(10), BreakerState::Open);
    // 500 is not a line fault and never opens a breaker.
    for i in 0..10 {
        p.record(i, 1, Outcome::Http5xx, Some(500), 10);
    }
    assert_eq!(p.lines()[1].breaker.state(10), BreakerState::Closed);
}

#[test]
fn pool_gives_a_half_open_line_exactly_one_trial_then_closes_it() {
    let t = Thresholds::default();
    let mut p = pool(&["only"]);
    p.select(0, &[]);
    for i in 0..3 {
        p.record(i, 0, Outcome::DnsFailure, None, 10);
    }
    assert_eq!(p.select(10, &[]).reason, Reason::AllOpenFallback);
    let half = 2 + t.open_cooldown_ms;
    let s = p.select(half, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::HalfOpenTrial));
    // The trial is in flight: nothing else is admitted.
    assert_eq!(p.select(half + 1, &[]).reason, Reason::AllOpenFallback);
    p.record(half + 100, 0, Outcome::Ok, Some(200), 100);
    assert_eq!(p.lines()[0].breaker.state(half + 100), BreakerState::Closed);
    assert_eq!(p.select(half + 101, &[]).reason, Reason::Sticky);
}

#[test]
fn pool_probe_uses_the_same_single_trial() {
    let t = Thresholds::default();
    let mut p = pool(&["a", "b"]);
    for i in 0..3 {
        p.record(i, 0, Outcome::DnsFailure, None, 10);
    }
    let half = 2 + t.open_cooldown_ms;
    assert_eq!(p.try_admit(half, 0), Admission::Trial);
    assert_eq!(p.try_admit(half, 0), Admission::Rejected);
    p.record(half + 5, 0, Outcome::DnsFailure, None, 10);
    assert_eq!(
        p.lines()[0].breaker.open_until(),
        Some(half + 5 + 2 * t.open_cooldown_ms),
        "failed probe doubles the cooldown"
    );
    assert_eq!(
        p.try_admit(half + 6, 99),
        Admission::Rejected,
        "unknown index"
    );
}

#[test]
fn pool_re_ranks_when_a_breaker_timer_elapses() {
    let t = Thresholds {
        switch_interval_ms: 1_000_000,
        ..Thresholds::default()
    };
    let mut p = http_pool(&["a", "b"], &t);
    p.select(0, &[]);
    for i in 0..3 {
        p.record(i, 0, Outcome::DnsFailure, None, 10);
        p.record(i, 1, Outcome::DnsFailure, None, 10);
    }
    assert_eq!(p.select(5, &[]).reason, Reason::AllOpenFallback);
    // Far before the periodic re-rank, the cooldown end alone triggers a re-rank.
    let s = p.select(2 + t.open_cooldown_ms, &[]);
    assert_eq!(s.reason, Reason::HalfOpenTrial);
}
