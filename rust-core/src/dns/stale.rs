//! Opt-in serve-stale (`httpdns.serve_stale`).
//!
//! Both vendor SDKs can serve an expired address while a refresh runs. That is safe only
//! when the domain owner agrees (an expired answer may point at a retired server), so it is
//! opt-in per host: for a host matching `serve_stale.hosts`, a record past `expires_at` may
//! still be served for up to `max_stale_s`, reported as [`crate::dns::Source::HttpDnsStale`]
//! with a refresh due. Records stay in their network's map, so a stale answer is never
//! served on another network, and never for a host that is not listed.

use crate::config::model::ServeStaleConfig;
use crate::dns::policy::HostMatcher;
use crate::dns::record::DnsRecord;

/// Which hosts may be served stale, and for how long.
#[derive(Debug, Clone, Default)]
pub struct ServeStale {
    hosts: HostMatcher,
    max_stale_ms: u64,
}

impl ServeStale {
    /// From the config section (absent = never); also returns invalid host patterns.
    pub fn from_config(cfg: Option<&ServeStaleConfig>) -> (ServeStale, Vec<String>) {
        let Some(cfg) = cfg else {
            return (ServeStale::default(), Vec::new());
        };
        let (hosts, invalid) = HostMatcher::new(&cfg.hosts);
        (
            ServeStale {
                hosts,
                max_stale_ms: cfg.max_stale_s.saturating_mul(1_000),
            },
            invalid,
        )
    }

    /// Whether the expired `record` of `host` (normalized) may be served at `now_ms`.
    pub fn serves(&self, host: &str, record: &DnsRecord, now_ms: u64) -> bool {
        self.max_stale_ms > 0
            && now_ms < record.expires_at_ms.saturating_add(self.max_stale_ms)
            && self.hosts.matches(host)
    }

    /// Whether `record` of `host` is worth keeping at `now_ms` (fresh, or servable stale).
    pub fn keeps(&self, host: &str, record: &DnsRecord, now_ms: u64) -> bool {
        record.is_fresh(now_ms) || self.serves(host, record, now_ms)
    }
}
