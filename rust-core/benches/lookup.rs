//! `DnsCache::lookup` hit with 4 addresses (the per-connection cost of `Dns.lookup` in the
//! core). Aim: under 100 ns.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use linekit_core::config::model::HttpDnsConfig;
use linekit_core::dns::{DnsCache, DnsSettings, HostAnswer};
use linekit_core::net::NetworkKey;

fn bench_lookup(c: &mut Criterion) {
    let (settings, _) = DnsSettings::from_config(&HttpDnsConfig {
        hosts: vec!["*.example.com".into()],
        ..HttpDnsConfig::default()
    });
    let cache = DnsCache::new(settings, 1);
    let net = NetworkKey::new(1, 1);
    cache.set_network(net, None);
    for (i, host) in [
        "api.example.com",
        "cdn.example.com",
        "img.example.com",
        "ws.example.com",
    ]
    .iter()
    .enumerate()
    {
        let mut a = HostAnswer::new(host, 600);
        for ip in [
            "47.118.227.108",
            "47.118.227.111",
            "240e:960:c00:e:3::3ef",
            "240e:960:c00:e:3::3f0",
        ] {
            if let Ok(ip) = ip.parse() {
                a.push(ip);
            }
        }
        a.ttl_s += i as u32;
        let _ = cache.insert(net, "ali", &a, 0, 0);
    }
    c.bench_function("lookup_hit_4_addrs", |b| {
        b.iter(|| black_box(cache.lookup(black_box("api.example.com"), black_box(1_000))))
    });
    c.bench_function("lookup_hit_4_addrs_mixed_case", |b| {
        b.iter(|| black_box(cache.lookup(black_box("API.Example.com."), black_box(1_000))))
    });
    c.bench_function("lookup_miss_system", |b| {
        b.iter(|| black_box(cache.lookup(black_box("www.other.org"), black_box(1_000))))
    });
}

criterion_group!(benches, bench_lookup);
criterion_main!(benches);
