//! HTTPDNS provider answers.
//!
//! The first input byte picks the host binding (none = trust the body, as the CLI does;
//! one host; or two hosts, as a batch query does); the rest is the response body. Every
//! answer that parses is then inserted into a `DnsCache` and looked up, so the address
//! policy, TTL clamping and address ordering run on fuzzed data too.

use linekit_core::dns::{DnsCache, DnsSettings, ProviderFormat, Source};
use linekit_core::net::NetworkKey;

/// Parses `data` as a `format` answer and feeds what parses through the cache.
pub fn provider(format: ProviderFormat, data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let hosts: &[&str] = match selector % 3 {
        0 => &[],
        1 => &["a.example.com"],
        _ => &["a.example.com", "b.example.com"],
    };
    let Ok(answers) = format.parse(hosts, body) else {
        return;
    };
    let config = linekit_core::config::model::HttpDnsConfig {
        hosts: vec!["*".into(), "*.example.com".into()],
        allow_private: vec!["b.example.com".into()],
        ..Default::default()
    };
    let (settings, _) = DnsSettings::from_config(&config);
    let cache = DnsCache::new(settings, u64::from(selector));
    for answer in &answers {
        let inserted = cache.insert(NetworkKey::default(), "fuzz", answer, 1_000, 1_000);
        let found = cache.lookup(&answer.host, 1_001);
        if let (Ok(inserted), Source::HttpDns) = (&inserted, found.source) {
            // Whatever the cache serves came from this answer.
            for ip in found.addrs.iter() {
                let known = match ip {
                    std::net::IpAddr::V4(v4) => answer.ipv4.contains(v4),
                    std::net::IpAddr::V6(v6) => answer.ipv6.contains(v6),
                };
                assert!(
                    known,
                    "the cache served an address the answer did not carry"
                );
                assert!(
                    !inserted.rejected.iter().any(|(r, _)| r == ip),
                    "the cache served an address the policy rejected"
                );
            }
        }
    }
}
