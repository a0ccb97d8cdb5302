//! HTTPDNS wired into the engine (`docs/architecture.md#httpdns-refresh`), through the public
//! `LineKit` API with a fake transport and a manual clock: lookups never start I/O
//! themselves, concurrent lookups coalesce into one query, answers for a superseded
//! network generation are dropped, DoH wire queries carry their header, provider back-off
//! shows in `state_json`, config updates swap providers, and `doh-wire` is dropped with a
//! warning when the feature is off.

use crate::support;

use linekit_core::clock::ManualClock;
use linekit_core::dns::{ConnectError, Source};
use linekit_core::engine::{LineKit, RuntimeMode};
use linekit_core::net::NetworkState;
use linekit_core::transport::{RequestKind, TransportError, TransportRequest, TransportResult};
use std::net::IpAddr;
use std::sync::Arc;
use support::transport::RecordingTransport;

const BIZ: &str = r#""biz_lines": {"spot": {"match": ["api.example.com"],
    "http": [{"id": "a", "url": "https://spot-a.example.com"}]}},
    "thresholds": {"startup_detect_delay_ms": 100000000, "revive_interval_ms": 100000000}"#;

fn config(providers: &str, extra: &str) -> String {
    format!(
        r#"{{"version": 1, {BIZ}, "httpdns": {{"providers": [{providers}],
            "hosts": ["*.example.com"], "refresh_ratio": 0.5, "jitter_ratio": 0,
            "min_ttl_s": 30 {extra}}}}}"#
    )
}

const ALI: &str = r#"{"id": "ali", "format": "aliyun", "url": "https://47.74.1.1/1/d"}"#;
const DP: &str = r#"{"id": "dp", "format": "dnspod", "url": "https://119.29.29.99/d"}"#;

fn engine(config: &str) -> (LineKit, Arc<RecordingTransport>, ManualClock) {
    let transport = Arc::new(RecordingTransport::default());
    let (kit, clock) = support::manual::engine(config, 3, &transport);
    (kit, transport, clock)
}

fn ali_body(host: &str, ip: &str) -> Vec<u8> {
    format!(r#"{{"host":"{host}","ips":["{ip}"],"ttl":60}}"#).into_bytes()
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn validated(handle: u64) -> NetworkState {
    NetworkState {
        handle,
        validated: true,
        ..NetworkState::default()
    }
}

#[test]
fn lookups_only_queue_and_a_hundred_concurrent_ones_make_one_query() {
    let (kit, transport, _clock) = engine(&config(ALI, ""));
    let kit = Arc::new(kit);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let kit = kit.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    assert_eq!(kit.lookup("api.example.com").source, Source::System);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        transport.requests().is_empty(),
        "the lookup path starts no I/O; the runtime does"
    );
    kit.run_due();
    let reqs = transport.requests_of(RequestKind::HttpDns);
    assert_eq!(reqs.len(), 1, "100 lookups → one query");
    assert_eq!(reqs[0].url, "https://47.74.1.1/1/d?host=api.example.com");
    assert_eq!(
        reqs[0].timeout_ms, 3_000,
        "deadline = thresholds.timeout_ms"
    );
    for _ in 0..100 {
        kit.lookup("api.example.com");
    }
    kit.run_due();
    assert_eq!(
        transport.requests_of(RequestKind::HttpDns).len(),
        1,
        "still in flight: coalesced"
    );
    transport.ok(reqs[0].id, &ali_body("api.example.com", "47.246.1.10"));
    let l = kit.lookup("api.example.com");
    assert_eq!(l.source, Source::HttpDns);
    assert_eq!(&*l.addrs, &[ip("47.246.1.10")]);
    assert_eq!(kit.in_flight(), 0);
}

#[test]
fn several_due_hosts_share_one_batch_query() {
    let batch = r#"{"id": "b", "format": "aliyun-batch", "url": "https://47.74.1.1/1/resolve"}"#;
    let (kit, transport, _clock) = engine(&config(batch, ""));
    for i in 0..7 {
        kit.lookup(&format!("h{i}.example.com"));
    }
    kit.run_due();
    let urls: Vec<String> = transport
        .requests_of(RequestKind::HttpDns)
        .into_iter()
        .map(|r| r.url)
        .collect();
    assert_eq!(
        urls,
        vec![
            "https://47.74.1.1/1/resolve?host=h0.example.com,h1.example.com,h2.example.com,h3.example.com,h4.example.com",
            "https://47.74.1.1/1/resolve?host=h5.example.com,h6.example.com",
        ]
    );
}

#[test]
fn an_answer_for_an_older_generation_of_the_same_network_is_dropped() {
    let (kit, transport, _clock) = engine(&config(ALI, ""));
    kit.on_network_changed(validated(7));
    kit.lookup("api.example.com");
    kit.run_due();
    let first = transport.requests_of(RequestKind::HttpDns)[0].id;
    // The same network reported again (e.g. a capability change): new generation.
    kit.on_network_changed(validated(7));
    transport.ok(first, &ali_body("api.example.com", "47.246.1.10"));
    assert_eq!(kit.lookup("api.example.com").source, Source::System);
    kit.run_due();
    let reqs = transport.requests_of(RequestKind::HttpDns);
    assert_eq!(reqs.len(), 2, "the current generation asks again");
    transport.ok(reqs[1].id, &ali_body("api.example.com", "47.246.1.20"));
    assert_eq!(&*kit.lookup("api.example.com").addrs, &[ip("47.246.1.20")]);
}

#[test]
fn bypassed_network_sends_nothing_and_validation_pre_resolves() {
    let (kit, transport, _clock) = engine(&config(ALI, r#", "pre_resolve": ["api.example.com"]"#));
    kit.run_due();
    assert_eq!(
        transport.requests_of(RequestKind::HttpDns).len(),
        1,
        "pre-resolve at start-up"
    );
    kit.on_network_changed(NetworkState {
        handle: 9,
        validated: true,
        vpn: true,
        ..NetworkState::default()
    });
    kit.run_due();
    let l = kit.lookup("api.example.com");
    assert_eq!((l.source, l.refresh_due), (Source::System, false));
    kit.run_due();
    assert_eq!(
        transport.requests_of(RequestKind::HttpDns).len(),
        1,
        "VPN: no query"
    );
    kit.on_network_changed(validated(9));
    kit.run_due();
    assert_eq!(
        transport.requests_of(RequestKind::HttpDns).len(),
        2,
        "pre-resolve after the network is validated"
    );
}

#[test]
fn failures_back_off_the_provider_and_show_in_state() {
    let (kit, transport, clock) = engine(&config(&format!("{ALI}, {DP}"), ""));
    kit.lookup("api.example.com");
    kit.run_due();
    let r = transport.requests_of(RequestKind::HttpDns);
    transport.answer(
        r[0].id,
        TransportResult::Response {
            status: 502,
            body: b"bad gateway".to_vec(),
            headers: Vec::new(),
        },
    );
    kit.run_due();
    let r = transport.requests_of(RequestKind::HttpDns);
    assert_eq!(r.len(), 2);
    assert_eq!(r[1].url, "https://119.29.29.99/d?dn=api.example.com");
    transport.ok(r[1].id, b"47.246.1.10,60");
    let state: serde_json::Value = serde_json::from_str(&kit.state_json()).unwrap();
    assert_eq!(state["httpdns"]["providers"][0]["id"], "ali");
    assert_eq!(state["httpdns"]["providers"][0]["backoff_ms"], 30_000);
    assert_eq!(state["httpdns"]["providers"][1]["backoff_ms"], 0);
    let rec = &state["httpdns"]["records"][0];
    assert_eq!(rec["host"], "api.example.com");
    assert_eq!(rec["provider"], "dp");
    assert_eq!(rec["addresses"][0], "47.246.1.10");
    assert_eq!(rec["ttl_s"], 60);
    assert_eq!(rec["expires_in_ms"], 60_000);
    // A timeout is a failure too: the deadline fires, the round fails over.
    clock.advance(1_000);
    kit.lookup("img.example.com");
    kit.run_due();
    let r = transport.requests_of(RequestKind::HttpDns);
    assert!(r[2].url.contains("119.29.29.99"), "ali still backing off");
    clock.advance(3_000);
    kit.run_due();
    let r = transport.requests_of(RequestKind::HttpDns);
    assert_eq!(r.len(), 4);
    assert!(
        r[3].url.contains("47.74.1.1"),
        "failover after the deadline"
    );
    transport.answer(r[3].id, TransportResult::Failed(TransportError::Tls));
    kit.run_due();
    assert_eq!(
        transport.requests_of(RequestKind::HttpDns).len(),
        4,
        "each provider once per round"
    );
    assert_eq!(kit.in_flight(), 0);
}

#[test]
fn connect_reports_quarantine_on_the_current_network() {
    let (kit, transport, _clock) = engine(&config(ALI, ""));
    kit.lookup("api.example.com");
    kit.run_due();
    let id = transport.requests_of(RequestKind::HttpDns)[0].id;
    transport.ok(
        id,
        br#"{"host":"api.example.com","ips":["47.246.1.10","47.246.1.11"],"ttl":60}"#,
    );
    assert!(!kit.connect_failed("api.example.com", ip("47.246.1.10"), ConnectError::Tls));
    assert!(kit.connect_failed("api.example.com", ip("47.246.1.10"), ConnectError::Refused));
    assert_eq!(&*kit.lookup("api.example.com").addrs, &[ip("47.246.1.11")]);
    kit.connect_succeeded("api.example.com", ip("47.246.1.10"));
    assert_eq!(kit.lookup("api.example.com").addrs.len(), 2);
}

#[test]
fn config_update_swaps_providers_and_no_transport_means_no_query() {
    let (kit, transport, _clock) = engine(&config(ALI, ""));
    let update = config(DP, "").replace("\"version\": 1", "\"version\": 2");
    assert!(kit.update_config(&update).applied);
    kit.lookup("api.example.com");
    kit.run_due();
    assert!(transport.requests_of(RequestKind::HttpDns)[0]
        .url
        .starts_with("https://119.29.29.99/"));

    let quiet = LineKit::builder()
        .config_json(config(ALI, ""))
        .clock(Arc::new(ManualClock::new(0, 0)))
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    assert_eq!(quiet.lookup("api.example.com").source, Source::System);
    assert_eq!(quiet.run_due(), 0);
}

#[test]
fn close_stops_refreshes() {
    let (kit, transport, _clock) = engine(&config(ALI, ""));
    kit.close();
    kit.lookup("api.example.com");
    kit.run_due();
    assert!(transport.requests_of(RequestKind::HttpDns).is_empty());
}

/// The DNS message of a DoH wire GET (its `dns` parameter, unpadded base64url).
#[cfg(feature = "doh-wire")]
fn wire_query(r: &TransportRequest) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(r.url.split_once("?dns=").unwrap().1)
        .unwrap()
}

/// An empty response to `query`: the query with QR and RA set.
#[cfg(feature = "doh-wire")]
fn wire_response(query: &[u8]) -> Vec<u8> {
    let mut response = query.to_vec();
    response[2] |= 0x80;
    response[3] |= 0x80;
    response
}

#[cfg(feature = "doh-wire")]
#[test]
fn doh_wire_queries_carry_the_accept_header_and_answers_are_stored() {
    let wire = r#"{"id": "w", "format": "doh-wire", "url": "https://dns.example/dns-query"}"#;
    let (kit, transport, _clock) = engine(&config(wire, ""));
    kit.lookup("api.example.com");
    kit.run_due();
    let r = &transport.requests_of(RequestKind::HttpDns)[0];
    assert_eq!(
        r.headers,
        vec![("accept".to_string(), "application/dns-message".to_string())]
    );
    // Answer: the query with QR/RA set, one A record via a name pointer.
    let mut answer = wire_response(&wire_query(r));
    answer[7] = 1; // ANCOUNT
    answer.extend_from_slice(&[0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 47, 246, 1, 10]);
    transport.ok(r.id, &answer);
    kit.run_due();
    let r = &transport.requests_of(RequestKind::HttpDns)[1];
    transport.ok(r.id, &wire_response(&wire_query(r)));
    let l = kit.lookup("api.example.com");
    assert_eq!(l.source, Source::HttpDns);
    assert_eq!(&*l.addrs, &[ip("47.246.1.10")]);
}

#[cfg(not(feature = "doh-wire"))]
#[test]
fn doh_wire_is_dropped_with_a_warning_without_the_feature() {
    let wire = r#"{"id": "w", "format": "doh-wire", "url": "https://dns.example/dns-query"}"#;
    let (c, warnings) =
        linekit_core::config::parse_config_with_warnings(&config(&format!("{wire}, {ALI}"), ""))
            .unwrap();
    assert_eq!(
        c.httpdns.providers.len(),
        1,
        "the rest of the config applies"
    );
    assert!(warnings[0].error.contains("doh-wire"), "{warnings:?}");
}

#[cfg(feature = "doh-wire")]
#[test]
fn doh_wire_is_accepted_with_the_feature() {
    let wire = r#"{"id": "w", "format": "doh-wire", "url": "https://dns.example/dns-query"}"#;
    assert!(linekit_core::config::validate::parse_config(&config(wire, "")).is_ok());
}

#[test]
fn state_shows_the_reported_network_and_why_httpdns_is_bypassed() {
    let (kit, _transport, _clock) = engine(&config(ALI, ""));
    let network = |kit: &LineKit| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(&kit.state_json()).unwrap()["network"].clone()
    };
    assert_eq!(network(&kit)["httpdns_bypass"], "no_network");
    kit.on_network_changed(NetworkState {
        handle: 7,
        validated: true,
        private_dns: linekit_core::net::PrivateDnsMode::Strict,
        transport: Some("wifi".into()),
        ..NetworkState::default()
    });
    let n = network(&kit);
    assert_eq!(n["handle"], 7);
    assert_eq!(n["private_dns"], "strict");
    assert_eq!(n["transport"], "wifi");
    assert_eq!(
        (n["vpn"].as_bool(), n["proxy"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(n["httpdns_bypass"], "strict_private_dns");
    kit.on_network_changed(validated(7));
    let n = network(&kit);
    assert_eq!(
        (n["private_dns"].as_str(), n["transport"].is_null()),
        (Some("off"), true)
    );
    assert!(n["httpdns_bypass"].is_null());
}

#[test]
fn the_generation_moves_when_a_kept_answer_reaches_refresh_at() {
    let (kit, transport, clock) = engine(&config(ALI, ""));
    let generation = || {
        kit.dns_generation()
            .load(std::sync::atomic::Ordering::Acquire)
    };
    kit.lookup("api.example.com");
    kit.run_due();
    let reqs = transport.requests_of(RequestKind::HttpDns);
    transport.ok(reqs[0].id, &ali_body("api.example.com", "47.246.1.10"));
    // ttl 60 s, refresh_ratio 0.5, no jitter: kept until 30 s.
    let l = kit.lookup("api.example.com");
    assert_eq!(l.memo_until_ms, 30_000);
    let g = generation();
    kit.lookup("api.example.com");
    clock.advance(29_999);
    kit.run_due();
    assert_eq!(generation(), g, "before refresh_at nothing moves");
    clock.advance(1);
    kit.run_due();
    assert_ne!(generation(), g, "at refresh_at the kept answer is void");
    let due = kit.lookup("api.example.com");
    assert!(due.refresh_due);
    assert_eq!(due.memo_until_ms, 0);
}
