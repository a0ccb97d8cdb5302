//! The switch guard: at most one switch per `switch_interval_ms` per pool, so two lines
//! failing alternately cannot make traffic flap — but a line whose breaker is open is left
//! at once.

use crate::support;

use linekit_core::config::Thresholds;
use linekit_core::line::{LinePool, Outcome, SwitchGuard};
use linekit_core::trace::Reason;
use support::lines::http_pool;

const SWITCH: u64 = 10_000;

fn pool(ids: &[&str]) -> LinePool {
    let t = Thresholds {
        switch_interval_ms: SWITCH,
        ..Thresholds::default()
    };
    http_pool(ids, &t)
}

/// A two-line pool where both lines are used and healthy, on line 0, with no switch yet.
fn warm_pair() -> LinePool {
    let mut p = pool(&["a", "b"]);
    p.select(0, &[]);
    for i in 0..10 {
        p.record(i, 0, Outcome::Ok, Some(200), 50);
        p.record(i, 1, Outcome::Ok, Some(200), 50);
    }
    assert_eq!(p.select(20, &[]).index, 0);
    assert_eq!(p.guard().last_switch_at, None);
    p
}

#[test]
fn first_switch_is_always_allowed_then_one_per_interval() {
    let mut g = SwitchGuard::new(SWITCH);
    assert!(g.may_switch(0));
    g.record_switch(5);
    assert!(!g.may_switch(5));
    assert!(!g.may_switch(5 + SWITCH - 1));
    assert!(g.may_switch(5 + SWITCH));
    assert_eq!(g.next_allowed_at(), Some(5 + SWITCH));
}

#[test]
fn zero_interval_never_blocks() {
    let mut g = SwitchGuard::new(0);
    g.record_switch(7);
    assert!(g.may_switch(7));
}

#[test]
fn guard_prevents_flapping_between_two_alternately_failing_lines() {
    let mut p = warm_pair();
    let mut now = 100;
    // a fails: the first switch is allowed, traffic moves to b.
    p.record(now, 0, Outcome::ConnectRefused, None, 5);
    now += 1;
    let s = p.select(now, &[]);
    assert_eq!((s.index, s.reason), (1, Reason::Ranked));
    let mut switches = 1;
    let mut guarded = 0;
    let mut last = s.index;
    // Now the lines fail alternately (never enough to open a breaker), a request every
    // 100 ms for one interval. Each failure demotes the current line, but the guard holds.
    while now < 100 + SWITCH - 200 {
        now += 100;
        let cur = p.current();
        p.record(now, cur, Outcome::ConnectRefused, None, 5);
        p.record(now, cur, Outcome::Ok, Some(200), 50);
        p.record(now, cur, Outcome::ConnectRefused, None, 5);
        let other = 1 - cur;
        p.record(now, other, Outcome::ConnectRefused, None, 5);
        p.record(now, other, Outcome::Ok, Some(200), 50);
        let s = p.select(now + 1, &[]);
        if s.index != last {
            switches += 1;
            last = s.index;
        }
        if s.reason == Reason::Guarded {
            guarded += 1;
        }
    }
    assert_eq!(switches, 1, "no flapping within one interval");
    assert!(guarded > 0, "the guard was exercised");
    assert_eq!(p.current(), 1);
}

#[test]
fn guard_releases_after_the_interval() {
    let mut p = warm_pair();
    p.record(100, 0, Outcome::DnsFailure, None, 5);
    assert_eq!(p.select(101, &[]).index, 1);
    // b faults and a answers again: ranking now prefers a, but the switch was just made.
    p.record(200, 1, Outcome::DnsFailure, None, 5);
    p.record(200, 0, Outcome::Ok, Some(200), 50);
    let s = p.select(201, &[]);
    assert_eq!((s.index, s.reason), (1, Reason::Guarded));
    // Still guarded just before the interval ends ...
    let s = p.select(101 + SWITCH - 1, &[]);
    assert_eq!(s.index, 1);
    // ... and free to switch once it has.
    let s = p.select(101 + SWITCH, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::Ranked));
}

#[test]
fn guard_never_keeps_traffic_on_an_open_line() {
    let t = Thresholds::default();
    let mut p = warm_pair();
    p.record(100, 0, Outcome::DnsFailure, None, 5);
    assert_eq!(p.select(101, &[]).index, 1);
    // b opens right after the switch, well inside the guard interval.
    for i in 0..u64::from(t.failure_threshold) {
        p.record(200 + i, 1, Outcome::TlsFailure, None, 5);
    }
    assert!(p.lines()[1].breaker.is_open(300));
    let s = p.select(300, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::Ranked));
}
