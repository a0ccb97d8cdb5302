//! HTTPDNS refresh through `linekit replay` (`docs/architecture.md#httpdns-refresh`, `docs/replay.md`): a miss
//! queries and then serves, refresh-ahead, answers for an old network dropped, provider
//! failover and back-off, batching, pre-resolve, NXDOMAIN hold-off, quarantine, bypass and
//! bad answers never replacing a good record. Scenarios: `tests/scenarios/httpdns_*.json`.

use crate::support;

use linekit_tools::replay;
use serde_json::Value;
use support::replay::redacted;

fn run(text: &str) -> Vec<Value> {
    support::replay::run_deterministic(text)
}

/// `(at, addresses, source)` of every lookup of `host`.
fn lookups(lines: &[Value], host: &str) -> Vec<(u64, Vec<String>, String)> {
    lines
        .iter()
        .filter(|l| l["op"] == "lookup" && l["host"] == host)
        .map(|l| {
            (
                l["at"].as_u64().unwrap(),
                l["addresses"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string())
                    .collect(),
                l["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn lookup_at(lines: &[Value], host: &str, at: u64) -> (Vec<String>, String) {
    let (_, a, s) = lookups(lines, host)
        .into_iter()
        .find(|(t, _, _)| *t == at)
        .unwrap_or_else(|| panic!("no lookup of {host} at {at}"));
    (a, s)
}

/// The addresses the lookup of `host` at `at` returned.
fn addresses_at(lines: &[Value], host: &str, at: u64) -> Vec<String> {
    lookup_at(lines, host, at).0
}

/// Asserts the addresses the lookup of `host` at `at` returned.
#[track_caller]
fn assert_addresses(lines: &[Value], host: &str, at: u64, want: &[&str]) {
    assert_eq!(
        addresses_at(lines, host, at),
        want,
        "lookup of {host} at {at}"
    );
}

/// Where the lookup of `host` at `at` was answered from.
fn source_at(lines: &[Value], host: &str, at: u64) -> String {
    lookup_at(lines, host, at).1
}

/// `(at, id, url)` of every HTTPDNS request.
fn queries(lines: &[Value]) -> Vec<(u64, u64, String)> {
    support::replay::requests(lines, "httpdns")
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_miss_queries_once_then_serves_the_answer_until_it_expires() {
    let lines = run(include_str!("../scenarios/httpdns_miss.json"));
    let q = queries(&lines);
    assert_eq!(q[0].0, 0);
    assert_eq!(
        q[0].2,
        redacted("https://47.74.1.1/100000/d?host=api.example.com")
    );
    assert_eq!(
        q.iter().filter(|(at, _, _)| *at < 60_000).count(),
        1,
        "lookups while the query is in flight coalesce (also across case and trailing dot)"
    );
    assert_eq!(source_at(&lines, "api.example.com", 10), "system");
    assert_eq!(source_at(&lines, "other.test", 30), "system");
    let (addrs, source) = lookup_at(&lines, "api.example.com", 200);
    assert_eq!(source, "httpdns");
    assert_eq!(
        addrs,
        strs(&["2408:4003:1f40::10", "47.246.1.10", "47.246.1.11"]),
        "all addresses, v6/v4 interleaved"
    );
    assert_eq!(source_at(&lines, "api.example.com", 60_099), "httpdns");
    assert_eq!(
        source_at(&lines, "api.example.com", 60_100),
        "system",
        "not served after expires_at"
    );
}

#[test]
fn refresh_ahead_serves_the_old_record_until_the_new_one_lands() {
    let lines = run(include_str!("../scenarios/httpdns_refresh_ahead.json"));
    let q: Vec<u64> = queries(&lines).iter().map(|(at, _, _)| *at).collect();
    assert_eq!(
        q,
        vec![0, 30_100, 62_000],
        "a refresh starts at refresh_at, not before"
    );
    for at in [30_000, 30_100, 31_000] {
        assert_addresses(&lines, "api.example.com", at, &["47.246.1.10"]);
    }
    assert_eq!(
        addresses_at(&lines, "api.example.com", 32_001),
        strs(&["47.246.1.20"]),
        "the new record replaces the old one when it lands"
    );
    // The 503 of the third refresh leaves the record in place until it expires.
    assert_addresses(&lines, "api.example.com", 91_999, &["47.246.1.20"]);
    assert_eq!(source_at(&lines, "api.example.com", 92_000), "system");
}

#[test]
fn an_answer_for_a_previous_network_is_dropped() {
    let lines = run(include_str!("../scenarios/httpdns_stale_network.json"));
    let q = queries(&lines);
    assert_eq!(q.len(), 3, "{q:?}");
    // Asked on network 100, answered after the switch to 200: dropped.
    let (addrs, source) = lookup_at(&lines, "api.example.com", 200);
    assert_eq!((addrs.len(), source.as_str()), (0, "system"));
    assert_eq!(q[1].0, 200, "the new network asks for itself");
    assert_addresses(&lines, "api.example.com", 400, &["47.246.1.20"]);
    // Back on 100: the dropped answer was not stored there either.
    assert_eq!(source_at(&lines, "api.example.com", 600), "system");
    // Back on 200: its own record is reused.
    assert_addresses(&lines, "api.example.com", 800, &["47.246.1.20"]);
}

#[test]
fn providers_fail_over_and_back_off() {
    let lines = run(include_str!("../scenarios/httpdns_failover.json"));
    let q = queries(&lines);
    let hosts: Vec<(u64, &str)> = q
        .iter()
        .map(|(at, _, url)| {
            (
                *at,
                if url.contains("119.29.29.99") {
                    "dp"
                } else {
                    "ali"
                },
            )
        })
        .collect();
    assert_eq!(
        hosts,
        vec![(0, "ali"), (100, "dp"), (1_000, "dp"), (4_000, "ali")],
        "error → second provider; the next refresh starts at the second provider while the \
         first backs off; a timeout (deadline 3 s) fails over to the one left"
    );
    assert_addresses(
        &lines,
        "api.example.com",
        300,
        &["47.246.1.10", "47.246.1.11"],
    );
    assert_addresses(&lines, "img.example.com", 5_200, &["47.246.2.10"]);
}

#[test]
fn due_hosts_share_one_batch_query_and_are_pre_resolved() {
    let lines = run(include_str!("../scenarios/httpdns_batch.json"));
    let q = queries(&lines);
    let all =
        redacted("https://47.74.1.1/100000/resolve?host=a.example.com,b.example.com,c.example.com");
    assert_eq!(q[0].0, 0, "pre-resolve at start-up");
    assert_eq!(q[0].2, all);
    assert_eq!(q[1].0, 2_000, "pre-resolve after validation");
    assert_eq!(q[1].2, all);
    assert_eq!(q.len(), 2, "c, missing from the first answer, is held off");
    assert_addresses(
        &lines,
        "b.example.com",
        200,
        &["2408:4003::2", "47.246.1.2"],
    );
    assert_eq!(source_at(&lines, "c.example.com", 200), "system");
    assert_eq!(
        source_at(&lines, "a.example.com", 1_100),
        "system",
        "unvalidated: bypassed"
    );
    assert_addresses(&lines, "c.example.com", 2_200, &["47.246.1.3"]);
}

#[test]
fn nxdomain_suppresses_queries_for_min_ttl_and_doh_merges_a_and_aaaa() {
    let lines = run(include_str!("../scenarios/httpdns_nxdomain.json"));
    let q = queries(&lines);
    let query = |name: &str, kind: &str| {
        redacted(&format!(
            "https://dns.alidns.example/resolve?name={name}&type={kind}"
        ))
    };
    let gone: Vec<u64> = q
        .iter()
        .filter(|(_, _, u)| {
            *u == query("gone.example.com", "A") || *u == query("gone.example.com", "AAAA")
        })
        .map(|(at, _, _)| *at)
        .collect();
    assert_eq!(
        gone,
        vec![0, 30_100],
        "no query inside min_ttl_s after NXDOMAIN"
    );
    assert_eq!(source_at(&lines, "gone.example.com", 200), "system");
    let (a, aaaa) = (
        query("www.example.com", "A"),
        query("www.example.com", "AAAA"),
    );
    let www: Vec<&String> = q
        .iter()
        .map(|(_, _, u)| u)
        .filter(|u| **u == a || **u == aaaa)
        .collect();
    assert_eq!(www, vec![&a, &aaaa]);
    assert_addresses(
        &lines,
        "www.example.com",
        31_300,
        &["2408:4003::31", "47.246.3.1", "47.246.3.2"],
    );
}

#[test]
fn connect_failures_quarantine_addresses_but_never_the_last_one() {
    let lines = run(include_str!("../scenarios/httpdns_quarantine.json"));
    let a = |at| addresses_at(&lines, "api.example.com", at);
    assert_eq!(a(300), strs(&["47.246.1.10", "47.246.1.11"]), "TLS: no");
    assert_eq!(a(500), strs(&["47.246.1.11"]), "refused: quarantined");
    assert_eq!(
        a(700),
        strs(&["47.246.1.10", "47.246.1.11"]),
        "all quarantined: all returned, soonest released first"
    );
    assert_eq!(a(900), strs(&["47.246.1.11"]), "success clears");
    assert_eq!(a(30_400), strs(&["47.246.1.10", "47.246.1.11"]), "expired");
}

#[test]
fn bypassed_networks_answer_system_and_send_nothing() {
    let lines = run(include_str!("../scenarios/httpdns_bypass.json"));
    for at in [10, 110, 210, 310] {
        assert_eq!(source_at(&lines, "api.example.com", at), "system");
    }
    let q = queries(&lines);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!(q[0].0, 410, "opportunistic private DNS does not bypass");
}

#[test]
fn bad_answers_never_replace_a_good_record() {
    let lines = run(include_str!("../scenarios/httpdns_malformed.json"));
    // Truncated JSON, a wrong host, an error code and policy-refused addresses.
    assert_eq!(queries(&lines).len(), 5);
    for at in [300_300, 330_500, 390_700, 510_900, 600_099] {
        assert_addresses(&lines, "api.example.com", at, &["47.246.1.10"]);
    }
    assert_eq!(source_at(&lines, "api.example.com", 600_100), "system");
}

#[test]
fn replay_rejects_bad_lookup_steps() {
    let bad = r#"{"config":{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"https://a.example.com"}]}}},
        "steps":[{"at":0,"op":"connect_failed","host":"h","ip":"nope","error":"connect_refused"}]}"#;
    assert!(replay::run(bad, &mut Vec::new()).is_err());
    let bad = r#"{"config":{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"https://a.example.com"}]}}},
        "steps":[{"at":0,"op":"connect_failed","host":"h","ip":"1.2.3.4","error":"boom"}]}"#;
    assert!(replay::run(bad, &mut Vec::new()).is_err());
}
