//! HTTPDNS records for the lookup benchmarks: four hosts under `*.example.com`, each
//! answered with two IPv4 and two IPv6 addresses. Benchmarks include this file with
//! `#[path]`, so it depends on `linekit_core` alone.

#![allow(dead_code)]

use linekit_core::config::model::HttpDnsConfig;
use linekit_core::dns::{DnsCache, DnsSettings, HostAnswer};
use linekit_core::net::NetworkKey;

/// The hosts that get a record.
pub const HOSTS: [&str; 4] = [
    "api.example.com",
    "cdn.example.com",
    "img.example.com",
    "ws.example.com",
];

/// The addresses of every record: two v4, two v6.
pub const ADDRS: [&str; 4] = [
    "47.118.227.108",
    "47.118.227.111",
    "240e:960:c00:e:3::3ef",
    "240e:960:c00:e:3::3f0",
];

/// The answer for `host` with [`ADDRS`] and `ttl_s`.
pub fn answer(host: &str, ttl_s: u32) -> HostAnswer {
    let mut a = HostAnswer::new(host, ttl_s);
    for ip in ADDRS {
        if let Ok(ip) = ip.parse() {
            a.push(ip);
        }
    }
    a
}

/// A cache for `*.example.com` on network (1, 1) holding a record for each of [`HOSTS`]
/// (TTL 600 s, 601 s, …, inserted at 0), and that network.
pub fn filled_cache() -> (DnsCache, NetworkKey) {
    let (settings, _) = DnsSettings::from_config(&HttpDnsConfig {
        hosts: vec!["*.example.com".into()],
        ..HttpDnsConfig::default()
    });
    let cache = DnsCache::new(settings, 1);
    let net = NetworkKey::new(1, 1);
    cache.set_network(net, None);
    for (n, host) in HOSTS.iter().enumerate() {
        let _ = cache.insert(net, "ali", &answer(host, 600 + n as u32), 0, 0);
    }
    (cache, net)
}
