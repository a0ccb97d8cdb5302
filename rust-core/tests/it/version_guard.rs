//! The version guard of one pool: how the reference fingerprint moves (first value on the
//! current line, a rolled deployment on the current line, never a forced fallback, a
//! reference nobody carries any more), in-call retries under `strict`, mismatch flags,
//! and what a config update keeps.

use crate::support;

use linekit_core::config::{Thresholds, VersionPolicy};
use linekit_core::line::{LinePool, Outcome};
use linekit_core::trace::Reason;
use std::sync::Arc;
use support::lines::http_pool;

fn pool(ids: &[&str], policy: Option<VersionPolicy>) -> LinePool {
    let mut p = http_pool(ids, &Thresholds::default());
    p.set_version_policy(policy);
    p
}

/// A pool of `ids` under `policy` serving its first line, where line `i` answered with
/// fingerprint `versions[i]`.
fn fingerprinted(ids: &[&str], policy: Option<VersionPolicy>, versions: &[&str]) -> LinePool {
    let mut p = pool(ids, policy);
    p.select(0, &[]);
    for (i, version) in versions.iter().enumerate() {
        p.observe_version(i, v(version));
    }
    p
}

fn v(s: &str) -> Arc<str> {
    Arc::from(s)
}

fn reference(p: &LinePool) -> Option<String> {
    p.version_guard()
        .and_then(|g| g.reference())
        .map(|r| r.to_string())
}

fn open(p: &mut LinePool, index: usize, now: u64) {
    for i in 0..3 {
        p.record(now + i, index, Outcome::ConnectRefused, None, 5);
    }
}

/// A strict pool whose reference is v2 (`a` and `c`) with both v2 lines open, so only the
/// v1 line `b` is usable.
fn strict_pool_with_only_the_v1_line_usable() -> LinePool {
    let mut p = fingerprinted(
        &["a", "b", "c"],
        Some(VersionPolicy::Strict),
        &["v2", "v1", "v2"],
    );
    open(&mut p, 0, 10);
    open(&mut p, 2, 10);
    p
}

#[test]
fn the_reference_is_the_current_lines_fingerprint_and_follows_a_rollout() {
    let mut p = pool(&["a", "b"], Some(VersionPolicy::Strict));
    assert_eq!(p.select(0, &[]).index, 0);
    p.observe_version(1, v("v1"));
    assert_eq!(reference(&p), None, "a line not served from sets nothing");
    assert!(
        !p.version_mismatch(1),
        "no reference: everything is compatible"
    );
    p.observe_version(0, v("v2"));
    assert_eq!(reference(&p).as_deref(), Some("v2"));
    assert!(p.version_mismatch(1));
    assert!(!p.version_mismatch(0));
    // The current line rolls forward to v3: the reference follows it.
    p.observe_version(0, v("v3"));
    assert_eq!(reference(&p).as_deref(), Some("v3"));
}

#[test]
fn a_forced_fallback_keeps_the_reference_so_the_pool_returns() {
    let mut p = strict_pool_with_only_the_v1_line_usable();
    let s = p.select(100, &[]);
    assert_eq!(s.index, 1, "only the v1 line is usable");
    assert!(p.version_mismatch(1));
    // It keeps answering with v1: that does not make v1 the reference.
    p.observe_version(1, v("v1"));
    assert_eq!(reference(&p).as_deref(), Some("v2"));
}

#[test]
fn a_reference_no_line_carries_any_more_drops_to_the_current_line() {
    let mut p = fingerprinted(&["a", "b"], Some(VersionPolicy::Report), &["v2", "v3"]);
    open(&mut p, 0, 10);
    assert_eq!(p.select(100, &[]).index, 1);
    assert!(p.version_mismatch(1));
    // The old primary comes back on v3 too: nobody runs v2 any more.
    p.observe_version(0, v("v3"));
    assert_eq!(reference(&p).as_deref(), Some("v3"));
    assert!(!p.version_mismatch(1));
}

#[test]
fn strict_in_call_retries_prefer_the_same_fingerprint() {
    let mut strict = fingerprinted(
        &["a", "b", "c"],
        Some(VersionPolicy::Strict),
        &["v2", "v1", "v2"],
    );
    let mut report = fingerprinted(
        &["a", "b", "c"],
        Some(VersionPolicy::Report),
        &["v2", "v1", "v2"],
    );
    let s = strict.select(5, &["a"]);
    assert_eq!((s.index, s.reason), (2, Reason::RetryExcluded));
    let r = report.select(5, &["a"]);
    assert_eq!((r.index, r.reason), (1, Reason::RetryExcluded));
    assert!(report.version_mismatch(r.index));
}

#[test]
fn without_a_guard_versions_are_ignored() {
    let p = fingerprinted(&["a", "b"], None, &["v2", "v1"]);
    assert!(p.version_guard().is_none());
    assert!(!p.version_mismatch(1));
    assert!(p.lines().iter().all(|l| l.version.is_none()));
}

#[test]
fn a_config_update_keeps_fingerprints_and_the_reference() {
    let old = fingerprinted(&["a", "b"], Some(VersionPolicy::Strict), &["v2", "v1"]);
    let mut new = pool(&["a", "b"], Some(VersionPolicy::Strict));
    new.carry_over(&old);
    assert_eq!(reference(&new).as_deref(), Some("v2"));
    assert!(new.version_mismatch(1));
    let mut off = pool(&["a", "b"], None);
    off.carry_over(&old);
    assert!(off.lines().iter().all(|l| l.version.is_none()));
}

#[test]
fn strict_returns_to_the_reference_once_a_same_version_line_is_usable_again() {
    let mut p = strict_pool_with_only_the_v1_line_usable();
    assert_eq!(p.select(100, &[]).index, 1, "forced onto the v1 line");
    // A probe finds `c` healthy again: at the next re-rank the pool goes back to v2.
    p.record(40_000, 2, Outcome::Ok, Some(204), 20);
    p.observe_version(2, v("v2"));
    let back = p.select(40_001, &[]);
    assert_eq!(back.index, 2);
    assert!(!p.version_mismatch(back.index));
}
