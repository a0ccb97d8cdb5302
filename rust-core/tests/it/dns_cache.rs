//! The HTTPDNS snapshot cache in virtual time: TTL, refresh, expiry, jitter, clamping,
//! networks, quarantine and what never replaces a good record.

use linekit_core::clock::{Clock, ManualClock};
use linekit_core::config::model::HttpDnsConfig;
use linekit_core::dns::{
    ConnectError, DnsCache, DnsSettings, HostAnswer, InsertError, QuarantinePolicy, Source,
};
use linekit_core::net::{HttpDnsBypass, NetworkKey, NetworkMonitor, NetworkState, PrivateDnsMode};
use std::net::IpAddr;

const HOST: &str = "api.example.com";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap_or_else(|_| panic!("{s}"))
}

fn settings(jitter_ratio: f64) -> DnsSettings {
    let cfg = HttpDnsConfig {
        hosts: vec!["*.example.com".into()],
        allow_private: vec!["intranet.example.com".into()],
        jitter_ratio,
        ..HttpDnsConfig::default()
    };
    let (s, invalid) = DnsSettings::from_config(&cfg);
    assert!(invalid.is_empty());
    s
}

fn answer(host: &str, addrs: &[&str], ttl_s: u32) -> HostAnswer {
    let mut a = HostAnswer::new(host, ttl_s);
    for s in addrs {
        a.push(ip(s));
    }
    a
}

fn net(handle: u64) -> NetworkKey {
    NetworkKey::new(handle, handle)
}

fn addrs(c: &DnsCache, host: &str, now: u64) -> Vec<IpAddr> {
    c.lookup(host, now).addrs.to_vec()
}

fn cache_at(clock: &ManualClock) -> DnsCache {
    let c = DnsCache::new(settings(0.0), 7);
    c.set_network(net(100), None);
    let r = c.insert(
        net(100),
        "ali",
        &answer(HOST, &["1.1.1.1", "2.2.2.2", "2400::1", "2400::2"], 100),
        clock.now_ms(),
        clock.wall_ms(),
    );
    assert!(r.is_ok());
    c
}

#[test]
fn hit_inside_ttl_is_ordered_and_from_httpdns() {
    let clock = ManualClock::new(1_000, 1_700_000_000_000);
    let c = cache_at(&clock);
    let l = c.lookup("API.Example.com.", clock.now_ms());
    assert_eq!(l.source, Source::HttpDns);
    assert!(!l.refresh_due);
    assert_eq!(
        l.addrs.to_vec(),
        vec![ip("2400::1"), ip("1.1.1.1"), ip("2400::2"), ip("2.2.2.2")]
    );
    let rec = c.record(HOST).unwrap_or_else(|| panic!("record"));
    assert_eq!(rec.received_wall_ms, 1_700_000_000_000);
    assert_eq!(&*rec.provider, "ali");
}

#[test]
fn refresh_due_at_refresh_at_while_still_served_then_expired() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    // ttl 100 s, refresh_ratio 0.75, no jitter: refresh at +75 s, expiry at +100 s.
    clock.advance(74_999);
    assert!(!c.lookup(HOST, clock.now_ms()).refresh_due);
    clock.advance(1);
    let l = c.lookup(HOST, clock.now_ms());
    assert_eq!(
        (l.source, l.refresh_due, l.addrs.len()),
        (Source::HttpDns, true, 4)
    );
    clock.advance(24_999);
    assert_eq!(c.lookup(HOST, clock.now_ms()).source, Source::HttpDns);
    clock.advance(1);
    let l = c.lookup(HOST, clock.now_ms());
    assert_eq!(
        (l.source, l.refresh_due, l.addrs.len()),
        (Source::System, true, 0)
    );
}

#[test]
fn jitter_stays_within_bounds_and_depends_on_the_seed() {
    let mut seen = std::collections::HashSet::new();
    for seed in 0..50u64 {
        let c = DnsCache::new(settings(0.1), seed);
        let r = c
            .insert(
                NetworkKey::default(),
                "p",
                &answer(HOST, &["1.1.1.1"], 1_000),
                0,
                0,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let rec = r.record;
        // refresh = 750 s − jitter, jitter ∈ [0, 100 s]
        assert!(
            rec.refresh_at_ms <= 750_000 && rec.refresh_at_ms >= 650_000,
            "{}",
            rec.refresh_at_ms
        );
        assert_eq!(rec.expires_at_ms, 1_000_000);
        seen.insert(rec.refresh_at_ms);
        // Same seed, same jitter (replay is deterministic).
        let again = DnsCache::new(settings(0.1), seed)
            .insert(
                NetworkKey::default(),
                "p",
                &answer(HOST, &["1.1.1.1"], 1_000),
                0,
                0,
            )
            .map(|r| r.record.refresh_at_ms);
        assert_eq!(again, Ok(rec.refresh_at_ms));
    }
    assert!(
        seen.len() > 40,
        "jitter differs across seeds: {} distinct",
        seen.len()
    );
}

#[test]
fn ttl_is_clamped_to_min_and_max() {
    let c = DnsCache::new(settings(0.0), 1);
    let k = NetworkKey::default();
    let short = c
        .insert(k, "p", &answer(HOST, &["1.1.1.1"], 5), 0, 0)
        .map(|r| r.record.expires_at_ms);
    assert_eq!(short, Ok(30_000), "min_ttl_s = 30");
    let unstated = c
        .insert(k, "p", &answer(HOST, &["1.1.1.1"], 0), 0, 0)
        .map(|r| r.record.ttl_s);
    assert_eq!(unstated, Ok(30));
    let long = c
        .insert(k, "p", &answer(HOST, &["1.1.1.1"], 86_400), 0, 0)
        .map(|r| r.record.expires_at_ms);
    assert_eq!(long, Ok(3_600_000), "max_ttl_s = 3600");
}

#[test]
fn only_httpdns_hosts_are_served_or_stored() {
    let c = DnsCache::new(settings(0.0), 1);
    let k = NetworkKey::default();
    assert_eq!(
        c.insert(k, "p", &answer("www.other.org", &["1.1.1.1"], 60), 0, 0)
            .err(),
        Some(InsertError::NotHttpDnsHost)
    );
    let l = c.lookup("www.other.org", 0);
    assert_eq!((l.source, l.refresh_due), (Source::System, false));
    let l = c.lookup("new.example.com", 0);
    assert_eq!(
        (l.source, l.refresh_due),
        (Source::System, true),
        "HTTPDNS host without record"
    );
    assert_eq!(c.lookup("", 0).source, Source::System);
    assert_eq!(c.lookup(&"A".repeat(300), 0).source, Source::System);
}

#[test]
fn bad_answers_never_replace_a_good_record() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    let r = c.insert(
        net(100),
        "ali",
        &answer(HOST, &["10.0.0.1", "127.0.0.1", "192.0.2.1"], 60),
        2_000,
        0,
    );
    match r {
        Err(InsertError::NoUsableAddresses(rejected)) => assert_eq!(rejected.len(), 3),
        other => panic!("{other:?}"),
    }
    assert_eq!(addrs(&c, HOST, 2_000).len(), 4);
    // A partially bad answer keeps only its good part.
    let r = c.insert(
        net(100),
        "ali",
        &answer(HOST, &["10.0.0.1", "3.3.3.3"], 60),
        3_000,
        0,
    );
    assert_eq!(r.map(|i| i.rejected.len()), Ok(1));
    assert_eq!(addrs(&c, HOST, 3_000), vec![ip("3.3.3.3")]);
}

#[test]
fn allow_private_host_keeps_private_addresses() {
    let c = DnsCache::new(settings(0.0), 1);
    let r = c.insert(
        NetworkKey::default(),
        "p",
        &answer("intranet.example.com", &["10.1.2.3", "169.254.0.1"], 60),
        0,
        0,
    );
    assert_eq!(
        r.map(|i| i.rejected),
        Ok(vec![(ip("169.254.0.1"), "link_local")])
    );
    assert_eq!(addrs(&c, "intranet.example.com", 0), vec![ip("10.1.2.3")]);
}

#[test]
fn network_switch_isolates_and_returning_network_reuses_its_own() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock); // records on network 100
    c.set_network(net(200), None);
    let l = c.lookup(HOST, 2_000);
    assert_eq!((l.source, l.refresh_due), (Source::System, true));
    assert!(c
        .insert(net(200), "ali", &answer(HOST, &["9.9.9.9"], 100), 2_000, 0)
        .is_ok());
    assert_eq!(addrs(&c, HOST, 2_000), vec![ip("9.9.9.9")]);
    // Back to 100 (new generation): its own records come back, not 200's.
    c.set_network(NetworkKey::new(100, 3), None);
    assert_eq!(addrs(&c, HOST, 3_000).len(), 4);
    // A late answer for 200 lands in 200's parked records, not the current network's.
    assert!(c
        .insert(net(200), "ali", &answer(HOST, &["8.8.8.8"], 100), 3_500, 0)
        .is_ok());
    assert_eq!(addrs(&c, HOST, 3_500).len(), 4);
    c.set_network(net(200), None);
    assert_eq!(addrs(&c, HOST, 4_000), vec![ip("8.8.8.8")]);
    // Expired records of a returning network are not served.
    c.set_network(net(100), None);
    assert_eq!(c.lookup(HOST, 200_000).source, Source::System);
}

#[test]
fn bypassed_network_answers_system_without_refresh() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    let mut mon = NetworkMonitor::new();
    for (state, why) in [
        (
            NetworkState {
                handle: 100,
                validated: true,
                vpn: true,
                ..Default::default()
            },
            HttpDnsBypass::Vpn,
        ),
        (
            NetworkState {
                handle: 100,
                validated: true,
                private_dns: PrivateDnsMode::Strict,
                ..Default::default()
            },
            HttpDnsBypass::StrictPrivateDns,
        ),
        (
            NetworkState {
                handle: 100,
                validated: true,
                proxy: true,
                ..Default::default()
            },
            HttpDnsBypass::Proxy,
        ),
        (
            NetworkState {
                handle: 100,
                validated: false,
                ..Default::default()
            },
            HttpDnsBypass::NotValidated,
        ),
        (
            NetworkState {
                handle: 0,
                validated: true,
                ..Default::default()
            },
            HttpDnsBypass::NoNetwork,
        ),
    ] {
        let key = mon.on_network_changed(state);
        let (cur, bypass) = mon.current();
        assert_eq!((cur, bypass), (key, Some(why)));
        c.set_network(key, bypass);
        let l = c.lookup(HOST, 1_000);
        assert_eq!(
            (l.source, l.refresh_due, l.bypass),
            (Source::System, false, Some(why))
        );
    }
    // Validated again, opportunistic Private DNS: the same network's records are served.
    let key = mon.on_network_changed(NetworkState {
        handle: 100,
        validated: true,
        private_dns: PrivateDnsMode::Opportunistic,
        transport: Some("wifi".into()),
        ..Default::default()
    });
    assert_eq!(key.generation(), 6);
    assert_eq!(mon.current().1, None);
    c.set_network(key, None);
    assert_eq!(c.lookup(HOST, 1_000).source, Source::HttpDns);
}

#[test]
fn quarantine_grows_caps_clears_and_expires() {
    let p = QuarantinePolicy::default();
    assert_eq!(
        (1..=7).map(|s| p.period_ms(s)).collect::<Vec<_>>(),
        vec![30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]
    );
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    let bad = ip("2400::1");
    let k = net(100);
    let long = answer(HOST, &["1.1.1.1", "2.2.2.2", "2400::1", "2400::2"], 3_600);
    assert!(c.insert(k, "ali", &long, 1_000, 0).is_ok());
    let mut now = 1_000;
    for expected_ms in [30_000u64, 60_000, 120_000] {
        assert!(c.connect_failed(k, HOST, bad, ConnectError::Refused, now));
        assert!(!addrs(&c, HOST, now).contains(&bad));
        assert!(!addrs(&c, HOST, now + expected_ms - 1).contains(&bad));
        // Expiry by the clock alone.
        assert!(addrs(&c, HOST, now + expected_ms).contains(&bad));
        now += expected_ms;
    }
    // Still ordered v6/v4 after dropping one v6 address.
    assert!(c.connect_failed(k, HOST, bad, ConnectError::Timeout, now));
    assert_eq!(
        addrs(&c, HOST, now),
        vec![ip("2400::2"), ip("1.1.1.1"), ip("2.2.2.2")]
    );
    // Success clears it at once.
    c.connect_succeeded(k, HOST, bad, now);
    assert_eq!(addrs(&c, HOST, now).len(), 4);
    // And the ladder starts over.
    assert!(c.connect_failed(k, HOST, bad, ConnectError::NoRoute, now));
    assert!(addrs(&c, HOST, now + 30_000).contains(&bad));
}

#[test]
fn quarantine_caps_at_ten_minutes() {
    let clock = ManualClock::new(0, 0);
    let c = cache_at(&clock);
    let bad = ip("1.1.1.1");
    let r = c.insert(
        net(100),
        "ali",
        &answer(HOST, &["1.1.1.1", "2.2.2.2"], 3_600),
        0,
        0,
    );
    assert!(r.is_ok());
    for _ in 0..10 {
        c.connect_failed(net(100), HOST, bad, ConnectError::Refused, 10);
    }
    assert!(!addrs(&c, HOST, 10 + 599_999).contains(&bad));
    assert!(addrs(&c, HOST, 10 + 600_000).contains(&bad));
}

#[test]
fn non_attributable_failures_never_quarantine() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    for e in [
        ConnectError::Tls,
        ConnectError::Http5xx,
        ConnectError::ReadTimeout,
        ConnectError::ProxyConnect,
        ConnectError::CancelledRace,
    ] {
        assert!(!e.quarantines());
        assert!(!c.connect_failed(net(100), HOST, ip("1.1.1.1"), e, 1_000));
    }
    assert_eq!(addrs(&c, HOST, 1_000).len(), 4);
    for e in ConnectError::ALL {
        assert_eq!(e.as_str().parse::<ConnectError>(), Ok(e));
    }
}

#[test]
fn last_address_is_never_dropped() {
    let c = DnsCache::new(settings(0.0), 1);
    let k = NetworkKey::default();
    assert!(c
        .insert(k, "p", &answer(HOST, &["1.1.1.1", "2400::1"], 600), 0, 0)
        .is_ok());
    c.connect_failed(k, HOST, ip("1.1.1.1"), ConnectError::Refused, 0);
    assert_eq!(addrs(&c, HOST, 1), vec![ip("2400::1")]);
    c.connect_failed(k, HOST, ip("2400::1"), ConnectError::Refused, 1_000);
    // Everything quarantined: all returned, the one released soonest first.
    let l = c.lookup(HOST, 2_000);
    assert_eq!(l.source, Source::HttpDns);
    assert_eq!(l.addrs.to_vec(), vec![ip("1.1.1.1"), ip("2400::1")]);
}

#[test]
fn quarantine_is_per_network_and_host() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    assert!(c
        .insert(
            net(100),
            "ali",
            &answer("cdn.example.com", &["1.1.1.1", "3.3.3.3"], 100),
            1_000,
            0
        )
        .is_ok());
    c.connect_failed(net(100), HOST, ip("1.1.1.1"), ConnectError::Refused, 1_000);
    assert!(
        addrs(&c, "cdn.example.com", 1_000).contains(&ip("1.1.1.1")),
        "other host unaffected"
    );
    // Failure reported for another network lands there only.
    c.connect_failed(
        net(200),
        "cdn.example.com",
        ip("3.3.3.3"),
        ConnectError::Refused,
        1_000,
    );
    assert!(addrs(&c, "cdn.example.com", 1_000).contains(&ip("3.3.3.3")));
    // Non-HTTPDNS hosts are not tracked.
    assert!(!c.connect_failed(
        net(100),
        "www.other.org",
        ip("1.1.1.1"),
        ConnectError::Refused,
        1_000
    ));
}

#[test]
fn settings_update_drops_hosts_no_longer_listed() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    let (s, _) = DnsSettings::from_config(&HttpDnsConfig {
        hosts: vec!["cdn.example.com".into()],
        ..HttpDnsConfig::default()
    });
    c.set_settings(s);
    let l = c.lookup(HOST, 1_000);
    assert_eq!((l.source, l.refresh_due), (Source::System, false));
    assert!(c.records().is_empty());
}

#[test]
fn a_bound_network_reads_its_own_records_never_the_default_ones() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock); // four addresses on network 100
    c.set_network(net(200), None);
    assert!(c
        .insert(net(200), "ali", &answer(HOST, &["9.9.9.9"], 100), 2_000, 0)
        .is_ok());
    // The default (200) and a client bound to 100 each get their own network's answer.
    assert_eq!(addrs(&c, HOST, 2_000), vec![ip("9.9.9.9")]);
    let bound = c.lookup_on(HOST, 100, 2_000);
    assert_eq!(bound.source, Source::HttpDns);
    assert_eq!(bound.addrs.len(), 4);
    assert!(!bound.addrs.contains(&ip("9.9.9.9")));
    assert!(
        !bound.refresh_due,
        "queries run on the default network only"
    );
    // The current network through lookup_on is the plain lookup.
    assert_eq!(c.lookup_on(HOST, 200, 2_000), c.lookup(HOST, 2_000));
    // A network with no records, or with expired ones, goes to its own system resolver.
    let unknown = c.lookup_on(HOST, 300, 2_000);
    assert_eq!(
        (unknown.source, unknown.refresh_due),
        (Source::System, false)
    );
    assert_eq!(c.lookup_on(HOST, 100, 200_000).source, Source::System);
    // Quarantine of the bound network applies to its own answer.
    c.set_network(net(100), None);
    assert!(c.connect_failed(net(100), HOST, ip("1.1.1.1"), ConnectError::Refused, 2_100));
    c.set_network(net(200), None);
    assert!(!c.lookup_on(HOST, 100, 2_200).addrs.contains(&ip("1.1.1.1")));
}

fn generation(c: &DnsCache) -> u32 {
    c.generation().load(std::sync::atomic::Ordering::Acquire)
}

#[test]
fn every_visible_change_bumps_the_generation_and_reads_do_not() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    let g = generation(&c);
    let _ = c.lookup(HOST, 1_000);
    let _ = c.lookup_on(HOST, 100, 1_000);
    assert_eq!(generation(&c), g, "reads never bump");
    assert!(c.connect_failed(net(100), HOST, ip("1.1.1.1"), ConnectError::Refused, 1_000));
    let g1 = generation(&c);
    assert_ne!(g1, g, "quarantine");
    c.connect_succeeded(net(100), HOST, ip("1.1.1.1"), 1_001);
    let g2 = generation(&c);
    assert_ne!(g2, g1, "quarantine cleared");
    c.connect_succeeded(net(100), HOST, ip("1.1.1.1"), 1_002);
    assert_eq!(generation(&c), g2, "nothing to clear, nothing published");
    assert!(c
        .insert(net(100), "ali", &answer(HOST, &["3.3.3.3"], 100), 1_003, 0)
        .is_ok());
    let g3 = generation(&c);
    assert_ne!(g3, g2, "new record");
    c.set_network(net(200), None);
    let g4 = generation(&c);
    assert_ne!(g4, g3, "network change");
    // An answer for the parked network changes what a client bound to it reads.
    assert!(c
        .insert(net(100), "ali", &answer(HOST, &["4.4.4.4"], 100), 1_004, 0)
        .is_ok());
    let g5 = generation(&c);
    assert_ne!(g5, g4, "parked network's record");
    c.set_settings(settings(0.0));
    assert_ne!(generation(&c), g5, "settings");
}

#[test]
fn an_answer_may_be_kept_until_refresh_at_or_a_quarantine_ends() {
    let clock = ManualClock::new(1_000, 0);
    let c = cache_at(&clock);
    // ttl 100 s, refresh_ratio 0.75, no jitter: refresh at +75 s, expiry at +100 s.
    let l = c.lookup(HOST, 1_000);
    assert_eq!(l.memo_until_ms, 76_000);
    assert_eq!(c.lookup(HOST, 75_999).memo_until_ms, 76_000);
    let due = c.lookup(HOST, 76_000);
    assert!(due.refresh_due);
    assert_eq!(
        due.memo_until_ms, 0,
        "a due refresh is asked for on every lookup"
    );
    assert_eq!(c.lookup("other.test", 1_000).memo_until_ms, 0, "system");
    // A quarantined address comes back when its quarantine ends: no longer than that.
    assert!(c.connect_failed(net(100), HOST, ip("1.1.1.1"), ConnectError::Refused, 2_000));
    let q = c.lookup(HOST, 2_000);
    assert!(!q.addrs.contains(&ip("1.1.1.1")));
    assert!(
        q.memo_until_ms > 2_000 && q.memo_until_ms < 76_000,
        "{}",
        q.memo_until_ms
    );
    assert!(c
        .lookup(HOST, q.memo_until_ms)
        .addrs
        .contains(&ip("1.1.1.1")));
    assert_eq!(c.lookup(HOST, q.memo_until_ms).memo_until_ms, 76_000);
    // A parked network's answer holds until its expiry (it never refreshes).
    c.set_network(net(200), None);
    assert_eq!(c.lookup_on(HOST, 100, 80_000).memo_until_ms, 101_000);
}
