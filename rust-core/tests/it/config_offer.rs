//! `check_offer` tells, from the one parse of an offered document, a copy of the config in
//! force (verified, unexpired, the same version) from other refusals, which `check_remote`
//! all reports as rejections.

use linekit_core::config::accept::{check_offer, check_remote, Verdict};
use linekit_core::config::{parse_config, Config};
use linekit_core::trace::reason::ConfigReason;

const NOW_S: u64 = 1_000;

fn doc(version: u64, expires_at: Option<u64>) -> String {
    let expiry = expires_at
        .map(|at| format!(r#""expires_at": {at},"#))
        .unwrap_or_default();
    format!(
        r#"{{"version": {version}, {expiry} "biz_lines": {{"spot": {{"http": [{{"id": "a", "url": "https://a.example.com"}}]}}}}}}"#
    )
}

fn in_force(version: u64) -> Config {
    parse_config(&doc(version, None)).expect("valid")
}

fn reason(v: &Verdict) -> Option<ConfigReason> {
    match v {
        Verdict::Accepted(_) => None,
        Verdict::InForce(r) | Verdict::Rejected(r) => Some(r.reason),
    }
}

#[test]
fn the_version_in_force_served_again_is_in_force_not_a_rejection() {
    let v = check_offer(&doc(2, None), &in_force(2), 0, NOW_S);
    assert!(matches!(v, Verdict::InForce(_)), "{v:?}");
    assert_eq!(reason(&v), Some(ConfigReason::NotNewer));
    // `check_remote` still refuses it as not newer.
    let r = check_remote(&doc(2, None), &in_force(2), NOW_S).unwrap_err();
    assert_eq!(r.reason, ConfigReason::NotNewer);
}

#[test]
fn rollbacks_expired_copies_and_version_zero_are_rejections() {
    let rollback = check_offer(&doc(1, None), &in_force(2), 0, NOW_S);
    assert!(matches!(rollback, Verdict::Rejected(_)), "{rollback:?}");
    assert_eq!(reason(&rollback), Some(ConfigReason::NotNewer));
    let expired = check_offer(&doc(2, Some(NOW_S)), &in_force(2), 0, NOW_S);
    assert!(matches!(expired, Verdict::Rejected(_)), "{expired:?}");
    let zero = check_offer(&doc(0, None), &Config::default(), 0, NOW_S);
    assert!(matches!(zero, Verdict::Rejected(_)), "{zero:?}");
    let invalid = check_offer("{", &in_force(2), 0, NOW_S);
    assert_eq!(reason(&invalid), Some(ConfigReason::Invalid));
}

#[test]
fn a_newer_document_is_accepted() {
    let v = check_offer(&doc(3, Some(NOW_S + 1)), &in_force(2), 0, NOW_S);
    let Verdict::Accepted(accepted) = v else {
        panic!("expected Accepted, got {v:?}");
    };
    assert_eq!(accepted.config.version, 3);
}
