//! Ranking and selection in a line pool: untried lines get verified, healthy lines are
//! ordered by weight and latency with an error penalty, failed lines are demoted at once,
//! and the all-open / all-slow fallbacks and in-call exclusion behave as specified.

use crate::support;

use linekit_core::config::{LineConfig, Thresholds};
use linekit_core::line::rank::{all_slow, effective_latency_ms, rank, tier, Tier};
use linekit_core::line::{LinePool, Outcome, Protocol};
use linekit_core::trace::Reason;
use linekit_core::Error;
use support::lines::{http_pool, line_config};

fn pool(ids: &[&str]) -> LinePool {
    http_pool(ids, &Thresholds::default())
}

/// A pool of `ids` serving its first line, which answered once, in 40 ms, at 0.
fn serving_first(ids: &[&str]) -> LinePool {
    let mut p = pool(ids);
    assert_eq!(p.select(0, &[]).index, 0);
    p.record(0, 0, Outcome::Ok, Some(200), 40);
    p
}

/// Three DNS failures on each of `lines`, at 0, 1 and 2 ms: enough to open their breakers.
fn dns_failures(p: &mut LinePool, lines: &[usize]) {
    for i in 0..3 {
        for &line in lines {
            p.record(i, line, Outcome::DnsFailure, None, 10);
        }
    }
}

fn ranked_ids(p: &LinePool, now: u64) -> Vec<String> {
    let mut out = Vec::new();
    rank(p.lines(), now, &mut out);
    out.iter().map(|&i| p.lines()[i].id.to_string()).collect()
}

fn id(p: &LinePool, i: usize) -> &str {
    &p.lines()[i].id
}

const SWITCH: u64 = 10_000;

#[test]
fn lines_are_sorted_by_priority_then_position() {
    let mut lines = vec![line_config("a"), line_config("b"), line_config("c")];
    lines[0].priority = Some(5);
    lines[2].priority = Some(0);
    // b defaults to its position, 1.
    let p = LinePool::new(Protocol::Http, &lines, &Thresholds::default(), false).expect("pool");
    let ids: Vec<&str> = p.lines().iter().map(|l| &*l.id).collect();
    assert_eq!(ids, ["c", "b", "a"]);
    assert_eq!(p.first_by_priority(), 0);
    assert_eq!(p.index_of("a"), Some(2));
    assert_eq!(p.index_of("zz"), None);
}

#[test]
fn first_select_takes_the_first_line_by_priority() {
    let mut p = pool(&["a", "b", "c"]);
    let s = p.select(0, &[]);
    assert_eq!(s.index, 0);
    assert_eq!(s.reason, Reason::Sticky);
}

#[test]
fn untried_line_is_verified_before_the_incumbent() {
    let mut p = serving_first(&["a", "b"]);
    // Within the interval the current line stays.
    assert_eq!(p.select(SWITCH - 1, &[]).reason, Reason::Sticky);
    // The periodic re-rank puts the untried line first so it gets verified.
    assert_eq!(ranked_ids(&p, SWITCH), ["b", "a"]);
    let s = p.select(SWITCH, &[]);
    assert_eq!((id(&p, s.index), s.reason), ("b", Reason::Ranked));
}

#[test]
fn steady_300ms_line_beats_flaky_80ms_line() {
    let mut p = pool(&["flaky", "steady"]);
    let now = 1_000;
    for i in 0..20 {
        p.record(now + i, 0, Outcome::Ok, Some(200), 80);
        p.record(now + i, 1, Outcome::Ok, Some(200), 300);
    }
    p.record(now + 30, 0, Outcome::ConnectTimeout, None, 3_000);
    p.record(now + 31, 0, Outcome::ConnectTimeout, None, 3_000);
    p.record(now + 32, 0, Outcome::Ok, Some(200), 80);
    let at = now + 40;
    let lines = p.lines();
    // Both are in the healthy tier; the error penalty decides.
    assert_eq!(tier(&lines[0], at), Tier::Healthy);
    assert_eq!(tier(&lines[1], at), Tier::Healthy);
    assert!(effective_latency_ms(&lines[0], at) > effective_latency_ms(&lines[1], at));
    assert_eq!(ranked_ids(&p, at), ["steady", "flaky"]);
}

#[test]
fn lower_latency_wins_among_clean_lines_and_weight_comes_first() {
    let mut lines = vec![
        line_config("slow"),
        line_config("fast"),
        line_config("heavy"),
    ];
    lines[2].weight = 200;
    let mut p = LinePool::new(Protocol::Http, &lines, &Thresholds::default(), false).expect("pool");
    p.record(0, 0, Outcome::Ok, Some(200), 300);
    p.record(0, 1, Outcome::Ok, Some(200), 100);
    p.record(0, 2, Outcome::Ok, Some(200), 900);
    assert_eq!(ranked_ids(&p, 1), ["heavy", "fast", "slow"]);
}

#[test]
fn dns_failure_line_ranks_below_http_4xx_line() {
    let mut p = pool(&["dns", "client"]);
    for i in 0..10 {
        p.record(i, 0, Outcome::Ok, Some(200), 50);
        p.record(i, 1, Outcome::Ok, Some(200), 50);
    }
    p.record(20, 0, Outcome::DnsFailure, None, 50);
    p.record(20, 1, Outcome::Http4xx, Some(404), 50);
    assert_eq!(ranked_ids(&p, 21), ["client", "dns"]);
    // Even after the DNS line answers again (no longer demoted), its weighted failures
    // keep it behind the line that only saw a 4xx.
    p.record(22, 0, Outcome::Ok, Some(200), 50);
    p.record(22, 1, Outcome::Ok, Some(200), 50);
    assert_eq!(ranked_ids(&p, 23), ["client", "dns"]);
}

#[test]
fn tiers_order_healthy_unstable_failing() {
    let mut p = pool(&["failing", "unstable", "healthy"]);
    // failing: 2 dns failures, then 1 ok → 1/3.
    p.record(0, 0, Outcome::DnsFailure, None, 10);
    p.record(0, 0, Outcome::DnsFailure, None, 10);
    p.record(0, 0, Outcome::Ok, Some(200), 10);
    // unstable: 3 ok, 1 dns failure → 0.75.
    for _ in 0..3 {
        p.record(0, 1, Outcome::Ok, Some(200), 10);
    }
    p.record(0, 1, Outcome::DnsFailure, None, 10);
    p.record(0, 1, Outcome::Ok, Some(200), 10);
    p.record(0, 2, Outcome::Ok, Some(200), 500);
    let l = p.lines();
    assert_eq!(tier(&l[0], 1), Tier::Failing);
    assert_eq!(tier(&l[1], 1), Tier::Unstable);
    assert_eq!(tier(&l[2], 1), Tier::Healthy);
    assert_eq!(ranked_ids(&p, 1), ["healthy", "unstable", "failing"]);
}

#[test]
fn a_failed_line_is_demoted_never_removed() {
    let mut p = pool(&["a", "b", "c"]);
    p.record(0, 0, Outcome::TlsFailure, None, 10);
    assert_eq!(ranked_ids(&p, 1), ["b", "c", "a"]);
    assert_eq!(p.lines().len(), 3);
}

#[test]
fn local_network_failures_do_not_move_traffic() {
    let mut p = serving_first(&["a", "b"]);
    for i in 1..50 {
        p.record(i, 0, Outcome::LocalNetwork, None, 10);
        p.record(i, 0, Outcome::Cancelled, None, 10);
        let s = p.select(i, &[]);
        assert_eq!((s.index, s.reason), (0, Reason::Sticky));
    }
    let a = &p.lines()[0];
    assert_eq!((a.consecutive_faults, a.stats.failures(50)), (0, 0));
}

#[test]
fn a_line_fault_on_the_current_line_moves_the_next_request() {
    let mut p = serving_first(&["a", "b", "c"]);
    p.record(100, 0, Outcome::ConnectRefused, None, 5);
    let s = p.select(101, &[]);
    assert_eq!((id(&p, s.index), s.reason), ("b", Reason::Ranked));
}

#[test]
fn a_non_fault_failure_does_not_force_a_re_rank() {
    let mut p = serving_first(&["a", "b"]);
    // A 500 is an application error, not a line fault: the sticky line stays.
    p.record(1, 0, Outcome::Http5xx, Some(500), 40);
    assert_eq!(p.select(2, &[]).reason, Reason::Sticky);
}

#[test]
fn sticky_selection_keeps_the_current_line_between_re_ranks() {
    let mut p = pool(&["a", "b"]);
    p.select(0, &[]);
    p.record(0, 0, Outcome::Ok, Some(200), 400);
    p.record(0, 1, Outcome::Ok, Some(200), 40);
    // b is better, but nothing forces a re-rank before the interval.
    for now in [1, 500, SWITCH - 1] {
        let s = p.select(now, &[]);
        assert_eq!((s.index, s.reason), (0, Reason::Sticky));
    }
    let s = p.select(SWITCH, &[]);
    assert_eq!((s.index, s.reason), (1, Reason::Ranked));
    assert_eq!(p.current(), 1);
}

#[test]
fn all_open_falls_back_to_the_first_line_by_priority() {
    let mut p = pool(&["a", "b"]);
    p.select(0, &[]);
    dns_failures(&mut p, &[0, 1]);
    assert!(p.lines().iter().all(|l| l.breaker.is_open(5)));
    let s = p.select(5, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::AllOpenFallback));
}

#[test]
fn all_slow_falls_back_to_the_first_line_by_priority() {
    let t = Thresholds::default();
    let mut p = pool(&["a", "b", "c"]);
    p.select(0, &[]);
    p.record(0, 0, Outcome::Ok, Some(200), t.timeout_ms + 500);
    p.record(0, 1, Outcome::Ok, Some(200), t.timeout_ms + 100);
    p.record(0, 2, Outcome::Ok, Some(200), t.timeout_ms + 900);
    assert!(all_slow(p.lines(), 1, t.timeout_ms));
    let s = p.select(SWITCH, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::AllSlowFallback));
    // One fast line ends the fallback.
    p.record(SWITCH, 2, Outcome::Ok, Some(200), 100);
    assert!(!all_slow(p.lines(), SWITCH, t.timeout_ms));
}

#[test]
fn all_slow_needs_every_line_used() {
    let t = Thresholds::default();
    let mut p = pool(&["a", "b"]);
    p.record(0, 0, Outcome::Ok, Some(200), t.timeout_ms + 1);
    assert!(!all_slow(p.lines(), 1, t.timeout_ms));
    assert!(!all_slow(&[], 1, t.timeout_ms));
}

#[test]
fn exclude_picks_the_next_line_without_moving_the_sticky_line() {
    let mut p = serving_first(&["a", "b", "c"]);
    p.record(0, 1, Outcome::Ok, Some(200), 40);
    p.record(0, 2, Outcome::Ok, Some(200), 40);
    let s = p.select(1, &["a"]);
    assert_eq!((id(&p, s.index), s.reason), ("b", Reason::RetryExcluded));
    let s = p.select(2, &["a", "b"]);
    assert_eq!((id(&p, s.index), s.reason), ("c", Reason::RetryExcluded));
    assert_eq!(p.current(), 0);
    let s = p.select(3, &[]);
    assert_eq!((s.index, s.reason), (0, Reason::Sticky));
}

#[test]
fn exclude_with_nothing_left_falls_back_by_priority() {
    let mut p = pool(&["a", "b", "c"]);
    p.select(0, &[]);
    dns_failures(&mut p, &[1, 2]);
    // b and c are open, a is excluded: first non-excluded line by priority.
    let s = p.select(5, &["a"]);
    assert_eq!((id(&p, s.index), s.reason), ("b", Reason::AllOpenFallback));
    // Everything excluded: the first line by priority.
    let s = p.select(5, &["a", "b", "c"]);
    assert_eq!((s.index, s.reason), (0, Reason::AllOpenFallback));
}

#[test]
fn snapshot_is_the_ranked_list_as_json() {
    let mut p = pool(&["a", "b"]);
    p.select(0, &[]);
    p.record(0, 0, Outcome::DnsFailure, None, 10);
    p.record(0, 1, Outcome::Ok, Some(200), 40);
    let snap = p.snapshot(1);
    let json = serde_json::to_value(&snap).expect("serialise");
    assert_eq!(
        json,
        serde_json::json!([
            {"id": "b", "host": "b.example.com", "breaker": "closed", "successes": 1,
             "failures": 0, "avg_latency_ms": 40, "used": true, "last_error": null,
             "current": false, "version": null},
            {"id": "a", "host": "a.example.com", "breaker": "closed", "successes": 0,
             "failures": 1, "avg_latency_ms": null, "used": true,
             "last_error": "dns_failure", "current": true, "version": null}
        ])
    );
    assert_eq!(
        serde_json::to_string(&p.snapshot(1)).ok(),
        serde_json::to_string(&snap).ok()
    );
}

#[test]
fn snapshot_host_keeps_an_explicit_port() {
    let lines = vec![LineConfig {
        id: "tx".into(),
        url: "https://spot-tx.example.com:8443".into(),
        priority: None,
        weight: 100,
    }];
    let p = LinePool::new(Protocol::Http, &lines, &Thresholds::default(), false).expect("pool");
    assert_eq!(p.snapshot(0).lines[0].host, "spot-tx.example.com:8443");
}

#[test]
fn carry_over_keeps_what_was_learned_for_unchanged_lines() {
    let mut old = pool(&["a", "b", "c"]);
    old.select(0, &[]);
    dns_failures(&mut old, &[0]);
    old.record(3, 1, Outcome::Ok, Some(200), 40);
    old.record(3, 2, Outcome::Ok, Some(200), 40);
    let s = old.select(4, &[]);
    assert_eq!(id(&old, s.index), "b");

    // New config: a unchanged, b moved to a new host, c gone, d new.
    let mut lines = vec![line_config("a"), line_config("b"), line_config("d")];
    lines[1].url = "https://b2.example.com".into();
    let mut new =
        LinePool::new(Protocol::Http, &lines, &Thresholds::default(), false).expect("pool");
    new.carry_over(&old);
    let a = &new.lines()[new.index_of("a").expect("a")];
    assert!(a.used && a.breaker.is_open(5) && a.stats.failures(5) == 3);
    let b = &new.lines()[new.index_of("b").expect("b")];
    assert!(!b.used && b.stats.total(5) == 0, "new origin: fresh stats");
    assert_eq!(id(&new, new.current()), "b", "current line kept");
}

#[test]
fn invalid_pools_are_rejected_with_field_paths() {
    let t = Thresholds::default();
    let paths = |r: Result<LinePool, Error>| match r {
        Err(Error::InvalidConfig(errs)) => errs.into_iter().map(|e| e.path).collect::<Vec<_>>(),
        other => panic!("expected invalid config, got {other:?}"),
    };
    assert_eq!(
        paths(LinePool::new(Protocol::Http, &[], &t, false)),
        ["http"]
    );
    let mut bad = vec![
        line_config("a"),
        line_config("a"),
        line_config(""),
        line_config("d"),
        line_config("e"),
    ];
    bad[2].url = "https://c.example.com".into();
    bad[3].url = "https://d.example.com/path".into();
    bad[4].url = "http://e.example.com".into();
    assert_eq!(
        paths(LinePool::new(Protocol::Http, &bad, &t, false)),
        ["http[1].id", "http[2].id", "http[3].url", "http[4].url"]
    );
    // Cleartext is fine when allowed; a ws pool needs ws lines.
    assert!(LinePool::new(Protocol::Http, &bad[4..], &t, true).is_ok());
    assert_eq!(
        paths(LinePool::new(Protocol::Ws, &[line_config("a")], &t, false)),
        ["ws[0].url"]
    );
}

#[test]
fn large_pools_rank_by_the_same_rules() {
    let names: Vec<String> = (0..20).map(|i| format!("l{i}")).collect();
    let ids: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut p = pool(&ids);
    p.record(0, 0, Outcome::DnsFailure, None, 10);
    p.record(0, 5, Outcome::Ok, Some(200), 10);
    let got = ranked_ids(&p, 1);
    let mut want: Vec<String> = (1..20)
        .filter(|&i| i != 5)
        .map(|i| format!("l{i}"))
        .collect();
    want.push("l5".into());
    want.push("l0".into());
    assert_eq!(
        got, want,
        "untried by priority, then used, then the faulted line"
    );
}
