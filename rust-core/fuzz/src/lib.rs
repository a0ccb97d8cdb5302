//! Shared driver for the provider-parser fuzz targets.
//!
//! The first input byte picks the host binding (none = trust the body, as the CLI does;
//! one host; or two hosts, as a batch query does); the rest is the response body. Every
//! answer that parses is then inserted into a `DnsCache` and looked up, so the address
//! policy, TTL clamping and address ordering run on fuzzed data too. Nothing may panic.

use linekit_core::dns::{DnsCache, DnsSettings, ProviderFormat};
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
    let mut config = linekit_core::config::model::HttpDnsConfig::default();
    config.hosts = vec!["*".into(), "*.example.com".into()];
    config.allow_private = vec!["b.example.com".into()];
    let (settings, _) = DnsSettings::from_config(&config);
    let cache = DnsCache::new(settings, u64::from(selector));
    for answer in &answers {
        let _ = cache.insert(NetworkKey::default(), "fuzz", answer, 1_000, 1_000);
        let _ = cache.lookup(&answer.host, 1_001);
    }
}
