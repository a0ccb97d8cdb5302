//! `DnsCache::lookup` hit with 4 addresses (the per-connection cost of `Dns.lookup` in the
//! core). Aim: under 100 ns.

#[path = "../tests/support/dns.rs"]
mod dns;

use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn bench_lookup(c: &mut Criterion) {
    let (cache, _) = dns::filled_cache();
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
