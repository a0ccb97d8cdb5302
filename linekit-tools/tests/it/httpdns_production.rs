//! HTTPDNS production features through `linekit replay`: signed and encrypted provider
//! requests, a refused signature backing off, opt-in serve-stale, built-in bootstrap
//! addresses and per-address connect ranking.

use crate::support;

use linekit_core::config::parse_config;
use linekit_core::dns::providers::auth::{aliyun_signature, des_encrypt_hex, des_key};
use linekit_core::dns::{DnsCache, DnsSettings};
use serde_json::{json, Value};
use std::net::IpAddr;
use support::replay::redacted;

fn run(scenario: &Value) -> Vec<Value> {
    support::replay::run_deterministic(&scenario.to_string())
}

fn config(providers: Value, extra: Value) -> Value {
    let mut httpdns = json!({
        "providers": providers,
        "hosts": ["*.example.com", "www.dnspod.cn"],
        "refresh_ratio": 0.5, "jitter_ratio": 0, "min_ttl_s": 30
    });
    for (k, v) in extra.as_object().unwrap() {
        httpdns[k] = v.clone();
    }
    json!({
        "version": 1,
        "biz_lines": {"spot": {"match": ["api.example.com"],
            "http": [{"id": "a", "url": "https://spot-a.example.com"}]}},
        "thresholds": {"startup_detect_delay_ms": 100000000, "revive_interval_ms": 100000000},
        "httpdns": httpdns
    })
}

/// [`config`] with `allow_cleartext`, which DNSPod's encrypted kinds over `http://` need
/// (their answers are not authenticated).
fn cleartext_config(providers: Value) -> Value {
    let mut c = config(providers, json!({}));
    c["allow_cleartext"] = json!(true);
    c
}

fn ali() -> Value {
    json!([{"id": "ali", "format": "aliyun", "url": "https://47.74.1.1/100000/d"}])
}

fn lookup(lines: &[Value], host: &str, at: u64) -> Value {
    lines
        .iter()
        .find(|l| l["op"] == "lookup" && l["host"] == host && l["at"] == at)
        .unwrap_or_else(|| panic!("no lookup of {host} at {at}"))
        .clone()
}

/// The `source` of the lookup of `host` at `at`.
fn source(lines: &[Value], host: &str, at: u64) -> Value {
    lookup(lines, host, at)["source"].clone()
}

/// The sources of the lookups of `api.example.com` at each of `ats`.
fn api_sources(lines: &[Value], ats: &[u64]) -> Vec<Value> {
    ats.iter()
        .map(|&at| source(lines, "api.example.com", at))
        .collect()
}

/// `(at, url)` of every HTTPDNS request.
fn dns_requests(lines: &[Value]) -> Vec<(u64, String)> {
    support::replay::requests(lines, "httpdns")
        .into_iter()
        .map(|(at, _, url)| (at, url))
        .collect()
}

fn lk(at: u64, host: &str) -> Value {
    json!({"at": at, "op": "lookup", "host": host})
}

// ---------- authentication ----------

#[test]
fn signed_requests_use_the_wall_clock_and_encrypted_answers_are_decrypted() {
    let providers = json!([
        {"id": "tx", "format": "dnspod", "url": "http://119.29.29.98/d",
         "auth": {"kind": "dnspod-des", "id": "1234", "key": "dnspodpass"}},
        {"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/139450/d",
         "auth": {"kind": "aliyun-sign", "secret": "IAmASecret", "validity_s": 600}}
    ]);
    let key = des_key("dnspodpass").unwrap();
    let answer = des_encrypt_hex(b"121.12.53.35;106.227.19.35,120", &key);
    let lines = run(&json!({
        "config": cleartext_config(providers),
        "seed": 1,
        "steps": [
            lk(0, "www.dnspod.cn"),
            {"at": 10, "op": "respond", "id": 1, "body": answer},
            lk(20, "www.dnspod.cn"),
            lk(30, "api.example.com"),
            {"at": 40, "op": "respond", "id": 2, "error": "connect_timeout"},
        ]
    }));
    let reqs = dns_requests(&lines);
    assert_eq!(
        reqs[0].1,
        redacted("http://119.29.29.98/d?dn=87ae992c1321f299da3c0210a9900ae7&id=1234")
    );
    let l = lookup(&lines, "www.dnspod.cn", 20);
    assert_eq!(l["source"], "httpdns");
    assert_eq!(l["addresses"], json!(["121.12.53.35", "106.227.19.35"]));
    // The DES provider fails over to the signed one: T = the replay's wall clock at
    // virtual 30 ms (Unix 1700000000 s) + 600 s.
    let t = 1_700_000_600u64;
    let s = aliyun_signature("api.example.com", "IAmASecret", t);
    assert!(
        reqs.iter().any(|(_, u)| *u
            == redacted(&format!(
                "https://203.107.1.1/139450/sign_d?host=api.example.com&t={t}&s={s}"
            ))),
        "{reqs:?}"
    );
}

#[test]
fn a_refused_signature_backs_the_provider_off_instead_of_retrying() {
    let providers = json!([{"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/1/d",
        "auth": {"kind": "aliyun-sign", "secret": "s3", "validity_s": 600}}]);
    let mut steps = vec![
        lk(0, "api.example.com"),
        json!({"at": 10, "op": "respond", "id": 1, "status": 403, "body": "{\"code\":\"SignatureExpired\"}"}),
    ];
    for at in (100..30_000).step_by(1_000) {
        steps.push(lk(at, "api.example.com"));
    }
    steps.push(lk(30_100, "api.example.com"));
    steps.push(lk(30_200, "api.example.com"));
    let lines = run(&json!({"config": config(providers, json!({})), "seed": 2, "steps": steps}));
    let reqs = dns_requests(&lines);
    assert_eq!(
        reqs.iter().filter(|(at, _)| *at < 30_000).count(),
        1,
        "no request while backing off: {reqs:?}"
    );
    assert_eq!(
        reqs.iter().filter(|(at, _)| *at >= 30_000).count(),
        1,
        "one retry once the back-off ends"
    );
    assert_eq!(source(&lines, "api.example.com", 5_100), "system");
}

// ---------- serve-stale ----------

fn stale_scenario(serve_stale: Option<Value>) -> Vec<Value> {
    let extra = match serve_stale {
        Some(s) => json!({"serve_stale": s}),
        None => json!({}),
    };
    let body = |h: &str, ip: &str| format!(r#"{{"host":"{h}","ips":["{ip}"],"ttl":60}}"#);
    run(&json!({
        "config": config(ali(), extra),
        "seed": 4,
        "steps": [
            {"at": 0, "op": "network", "handle": 1, "validated": true},
            lk(0, "api.example.com"),
            lk(0, "other.example.com"),
            {"at": 10, "op": "respond", "id": 1, "body": body("api.example.com", "47.1.1.1")},
            {"at": 10, "op": "respond", "id": 2, "body": body("other.example.com", "47.2.2.2")},
            // Refreshes at 30 s fail (no answer: the deadline passes).
            lk(30_100, "api.example.com"),
            lk(30_100, "other.example.com"),
            // Expired at 60 s.
            lk(60_100, "api.example.com"),
            lk(60_100, "other.example.com"),
            lk(359_000, "api.example.com"),
            lk(360_100, "api.example.com"),
        ]
    }))
}

#[test]
fn serve_stale_serves_only_listed_hosts_for_max_stale_s() {
    let lines = stale_scenario(Some(
        json!({"hosts": ["api.example.com"], "max_stale_s": 300}),
    ));
    assert_eq!(
        api_sources(&lines, &[30_100, 60_100, 359_000, 360_100]),
        ["httpdns", "httpdns_stale", "httpdns_stale", "system"],
        "fresh, then stale until expires_at + max_stale_s and not past it"
    );
    assert_eq!(
        lookup(&lines, "api.example.com", 60_100)["addresses"],
        json!(["47.1.1.1"])
    );
    assert_eq!(source(&lines, "other.example.com", 60_100), "system");
    // A stale lookup queues a refresh.
    assert!(dns_requests(&lines).iter().any(|(at, u)| *at >= 60_100
        && *u == redacted("https://47.74.1.1/100000/d?host=api.example.com")));
}

#[test]
fn without_serve_stale_an_expired_record_is_never_served() {
    let lines = stale_scenario(None);
    assert_eq!(source(&lines, "api.example.com", 60_100), "system");
    assert_eq!(
        lookup(&lines, "api.example.com", 60_100)["addresses"],
        json!([])
    );
}

#[test]
fn a_stale_record_never_crosses_networks() {
    let lines = run(&json!({
        "config": config(ali(), json!({"serve_stale": {"hosts": ["*.example.com"], "max_stale_s": 600}})),
        "seed": 5,
        "steps": [
            {"at": 0, "op": "network", "handle": 1, "validated": true},
            lk(0, "api.example.com"),
            {"at": 10, "op": "respond", "id": 1, "body": r#"{"host":"api.example.com","ips":["47.1.1.1"],"ttl":60}"#},
            lk(60_100, "api.example.com"),
            {"at": 60_200, "op": "network", "handle": 2, "validated": true},
            lk(60_300, "api.example.com"),
            {"at": 60_400, "op": "network", "handle": 1, "validated": true},
            lk(60_500, "api.example.com"),
        ]
    }));
    assert_eq!(
        api_sources(&lines, &[60_100, 60_300, 60_500]),
        ["httpdns_stale", "system", "httpdns_stale"],
        "stale on network 1, not on network 2, stale again back on its own network"
    );
}

// ---------- bootstrap ----------

#[test]
fn bootstrap_addresses_are_offered_as_fallback_and_a_remote_config_revokes_them() {
    let boot = json!({"bootstrap": {"api.example.com": ["198.51.100.7", "2001:db8::7"]}});
    let mut revoked = config(ali(), json!({}));
    revoked["version"] = json!(2);
    let lines = run(&json!({
        "config": config(ali(), boot),
        "seed": 6,
        "steps": [
            lk(0, "api.example.com"),
            lk(0, "other.example.com"),
            {"at": 10, "op": "respond", "id": 1, "body": r#"{"host":"api.example.com","ips":["47.1.1.1"],"ttl":60}"#},
            lk(20, "api.example.com"),
            {"at": 100, "op": "config", "config": revoked},
            lk(70_000, "api.example.com"),
        ]
    }));
    let first = lookup(&lines, "api.example.com", 0);
    assert_eq!(first["source"], "system");
    assert_eq!(first["fallback"], json!(["2001:db8::7", "198.51.100.7"]));
    assert!(lookup(&lines, "other.example.com", 0)
        .get("fallback")
        .is_none());
    let served = lookup(&lines, "api.example.com", 20);
    assert_eq!(served["source"], "httpdns");
    assert!(
        served.get("fallback").is_none(),
        "a usable record needs no fallback"
    );
    let after = lookup(&lines, "api.example.com", 70_000);
    assert_eq!(after["source"], "system");
    assert!(
        after.get("fallback").is_none(),
        "revoked by the remote config"
    );
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn bootstrap_is_used_only_when_the_system_answer_is_missing_or_rejected() {
    let c = config(
        ali(),
        json!({"bootstrap": {"api.example.com": ["198.51.100.7"]}}),
    );
    let c = parse_config(&c.to_string()).unwrap();
    let (settings, _) = DnsSettings::from_config(&c.httpdns);
    let cache = DnsCache::new(settings, 1);
    let boot = Some(vec![ip("198.51.100.7")]);
    let fb = |host: &str, system: &[IpAddr]| cache.fallback(host, system).map(|a| a.to_vec());
    assert_eq!(fb("api.example.com", &[]), boot, "system resolver failed");
    assert_eq!(
        fb("api.example.com", &[ip("10.0.0.1"), ip("127.0.0.1")]),
        boot,
        "only policy-rejected addresses"
    );
    assert_eq!(
        fb("api.example.com", &[ip("10.0.0.1"), ip("93.184.216.34")]),
        None
    );
    assert_eq!(fb("other.example.com", &[]), None, "not listed");
}

// ---------- connect ranking ----------

#[test]
fn lookups_order_each_family_by_smoothed_connect_time() {
    let body = r#"{"host":"api.example.com","ips":["47.1.1.1","47.1.1.2","47.1.1.3"],
        "ipsv6":["240e::1","240e::2"],"ttl":600}"#;
    let cs = |at: u64, ip: &str, ms: u64| json!({"at": at, "op": "connect_succeeded", "host": "api.example.com", "ip": ip, "connect_ms": ms});
    let lines = run(&json!({
        "config": config(ali(), json!({})),
        "seed": 7,
        "steps": [
            lk(0, "api.example.com"),
            {"at": 10, "op": "respond", "id": 1, "body": body},
            lk(20, "api.example.com"),
            cs(30, "47.1.1.1", 400),
            cs(31, "47.1.1.3", 25),
            cs(32, "240e::2", 30),
            lk(40, "api.example.com"),
            // The fastest v4 address is quarantined: the rest keep their rank order.
            {"at": 50, "op": "connect_failed", "host": "api.example.com", "ip": "47.1.1.3", "error": "connect_refused"},
            lk(60, "api.example.com"),
            // A connect without a time clears quarantine but does not rank.
            {"at": 70, "op": "connect_succeeded", "host": "api.example.com", "ip": "47.1.1.3"},
            lk(80, "api.example.com"),
        ]
    }));
    assert_eq!(
        lookup(&lines, "api.example.com", 20)["addresses"],
        json!(["240e::1", "47.1.1.1", "240e::2", "47.1.1.2", "47.1.1.3"]),
        "answer order before any connect"
    );
    assert_eq!(
        lookup(&lines, "api.example.com", 40)["addresses"],
        json!(["240e::2", "47.1.1.3", "240e::1", "47.1.1.2", "47.1.1.1"]),
        "fast first, untried next, slow last; still v6/v4 interleaved"
    );
    assert_eq!(
        lookup(&lines, "api.example.com", 60)["addresses"],
        json!(["240e::2", "47.1.1.2", "240e::1", "47.1.1.1"])
    );
    assert_eq!(
        lookup(&lines, "api.example.com", 80)["addresses"],
        json!(["240e::2", "47.1.1.3", "240e::1", "47.1.1.2", "47.1.1.1"])
    );
}

#[test]
fn aes_queries_are_printed_redacted_and_their_answers_decrypt() {
    use linekit_core::dns::providers::auth::{aes_encrypt_hex, aes_key};
    let providers = json!([{"id": "tx", "format": "dnspod", "url": "http://119.29.29.98/d",
        "auth": {"kind": "dnspod-aes", "id": "77", "key": "0123456789abcdef"}}]);
    let key = aes_key("0123456789abcdef").unwrap();
    let answer = aes_encrypt_hex(b"1.2.3.4;240e::9,60", &key, &[3; 16]);
    let scenario = json!({
        "config": cleartext_config(providers),
        "seed": 8,
        "steps": [
            lk(0, "api.example.com"),
            lk(0, "b.example.com"),
            {"at": 10, "op": "respond", "id": 1, "body": answer},
            lk(20, "api.example.com"),
        ]
    })
    .to_string();
    // The request lines show neither the encrypted name nor the id, only a digest of the
    // query; the IVs come from the system generator, so that digest is not reproducible.
    let lines = support::replay::run(&scenario);
    let reqs = dns_requests(&lines);
    assert_eq!(reqs.len(), 2);
    for (_, url) in &reqs {
        assert!(url.starts_with("http://119.29.29.98/d?<redacted:"), "{url}");
        assert!(!url.contains("id=") && !url.contains("dn="), "{url}");
    }
    let l = lookup(&lines, "api.example.com", 20);
    assert_eq!(l["source"], "httpdns");
    assert_eq!(l["addresses"], json!(["240e::9", "1.2.3.4"]));
    // The same scenario, seed and wall clock again: a seeded generator would repeat the IV,
    // and with it the query and its digest.
    let again = dns_requests(&support::replay::run(&scenario));
    assert_ne!(
        reqs[0].1, again[0].1,
        "the IV does not follow from the seed and the clock"
    );
}
