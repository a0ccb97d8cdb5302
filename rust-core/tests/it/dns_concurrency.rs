//! Readers hammer `DnsCache::lookup` while a writer publishes answers and flips networks:
//! every list a reader sees is exactly one of the published lists (no torn record), and the
//! reader latency with and without the writer is printed (not asserted: timing on a shared
//! CI machine is not a correctness property).

use linekit_core::config::model::HttpDnsConfig;
use linekit_core::dns::{order_addresses, DnsCache, DnsSettings, HostAnswer, Source};
use linekit_core::net::NetworkKey;
use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

const HOST: &str = "api.example.com";
const READERS: usize = 3;
const READS: usize = 40_000;

/// Published list `i`: 4 addresses that all encode `i`, so mixing two lists is detectable.
fn list(i: u32) -> Vec<IpAddr> {
    let b = i.to_be_bytes();
    vec![
        IpAddr::V4(Ipv4Addr::new(1, b[1], b[2], b[3])),
        IpAddr::V4(Ipv4Addr::new(2, b[1], b[2], b[3])),
        IpAddr::V6(Ipv6Addr::new(0x2400, 1, 0, 0, 0, 0, 0, i as u16)),
        IpAddr::V6(Ipv6Addr::new(0x2400, 2, 0, 0, 0, 0, 0, i as u16)),
    ]
}

fn answer(i: u32) -> HostAnswer {
    let mut a = HostAnswer::new(HOST, 600);
    for ip in list(i) {
        a.push(ip);
    }
    a
}

fn cache() -> Arc<DnsCache> {
    let (s, _) = DnsSettings::from_config(&HttpDnsConfig {
        hosts: vec![HOST.into()],
        ..HttpDnsConfig::default()
    });
    let c = DnsCache::new(s, 1);
    c.set_network(NetworkKey::new(1, 1), None);
    assert!(c
        .insert(NetworkKey::new(1, 1), "p", &answer(0), 0, 0)
        .is_ok());
    assert!(c
        .insert(NetworkKey::new(2, 1), "p", &answer(1_000_000), 0, 0)
        .is_ok());
    Arc::new(c)
}

/// Runs the readers (and the writer if `with_writer`); returns sorted latencies (ns) and
/// the lists seen.
fn run(with_writer: bool, publishes: u32) -> (Vec<u64>, HashSet<Vec<IpAddr>>) {
    let c = cache();
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(READERS + 1));
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let (c, stop, start) = (Arc::clone(&c), Arc::clone(&stop), Arc::clone(&start));
            std::thread::spawn(move || {
                let mut lat = Vec::with_capacity(READS);
                let mut seen = HashSet::new();
                start.wait();
                for _ in 0..READS {
                    let t = Instant::now();
                    let l = c.lookup(HOST, 1);
                    lat.push(t.elapsed().as_nanos() as u64);
                    if l.source == Source::HttpDns {
                        seen.insert(l.addrs.to_vec());
                    }
                }
                stop.store(true, Ordering::Relaxed);
                (lat, seen)
            })
        })
        .collect();
    start.wait();
    if with_writer {
        let mut i = 1;
        while !stop.load(Ordering::Relaxed) && i <= publishes {
            let handle = if i % 50 == 0 { 2 } else { 1 };
            c.set_network(NetworkKey::new(handle, u64::from(i)), None);
            assert!(c
                .insert(NetworkKey::new(handle, u64::from(i)), "p", &answer(i), 1, 0)
                .is_ok());
            i += 1;
        }
    }
    let mut all = Vec::new();
    let mut seen = HashSet::new();
    for r in readers {
        let (lat, s) = r.join().unwrap_or_default();
        all.extend(lat);
        seen.extend(s);
    }
    all.sort_unstable();
    (all, seen)
}

fn pct(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[test]
fn readers_never_see_a_torn_record_and_never_wait_for_the_writer() {
    let publishes = 20_000;
    let (quiet, _) = run(false, 0);
    let (busy, seen) = run(true, publishes);
    let valid: HashSet<Vec<IpAddr>> = (0..=publishes)
        .chain([1_000_000])
        .map(|i| order_addresses(&list(i)))
        .collect();
    assert!(!seen.is_empty());
    for l in &seen {
        assert!(valid.contains(l), "torn or unknown list {l:?}");
    }
    println!(
        "lookup latency ns (readers={READERS}, reads={}): without writer p50={} p99={} p99.9={} | with writer p50={} p99={} p99.9={} | distinct lists seen={}",
        quiet.len(),
        pct(&quiet, 0.5),
        pct(&quiet, 0.99),
        pct(&quiet, 0.999),
        pct(&busy, 0.5),
        pct(&busy, 0.99),
        pct(&busy, 0.999),
        seen.len()
    );
}
