//! Per-address quarantine after attributable connect failures.
//!
//! Key: `(host, ip, network)` — the cache keeps one [`HostQuarantine`] per host inside each
//! network's snapshot, so a quarantine never leaks to another network and readers see it
//! through the same lock-free snapshot load as the record.
//!
//! Only failures that say something about *that address* count ([`ConnectError::quarantines`]):
//! connection refused, connect timeout and no route to host. TLS failures, HTTP 5xx, read
//! timeouts, proxy connect failures and fast-fallback races cancelled by OkHttp say nothing
//! about the address and never quarantine.
//!
//! Periods grow per consecutive failure: base, 2×base, 4×base, … capped
//! ([`QuarantinePolicy`], default 30 s doubling to 10 min). A success clears the address.
//! Expiry is by the monotonic clock only (no timer): an address is quarantined while
//! `now < until`. The strike count survives expiry so a flapping address climbs the ladder,
//! but is forgotten when the address fails again more than one cap period after its last
//! quarantine ended (and the entry is pruned then). The cache never drops the last usable
//! address because of quarantine (see [`crate::dns::DnsCache::lookup`]).

use std::net::IpAddr;

pub use crate::wire::vocabulary::ConnectError;

impl ConnectError {
    /// Whether this failure quarantines the address.
    pub fn quarantines(self) -> bool {
        matches!(
            self,
            ConnectError::Refused | ConnectError::Timeout | ConnectError::NoRoute
        )
    }
}

/// Quarantine periods per consecutive failure of one address.
pub type QuarantinePolicy = super::backoff::Backoff;

/// One quarantined (or recently quarantined) address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuarantineEntry {
    /// The address.
    pub ip: IpAddr,
    /// Consecutive attributable failures.
    pub strikes: u32,
    /// Quarantined while `now_ms < until_ms` (monotonic).
    pub until_ms: u64,
}

/// The quarantine state of one host on one network: an immutable value, replaced as a
/// whole by the cache's writer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostQuarantine {
    entries: Vec<QuarantineEntry>,
}

impl HostQuarantine {
    /// The entry for `ip` if it is quarantined at `now_ms`.
    pub fn active(&self, ip: IpAddr, now_ms: u64) -> Option<&QuarantineEntry> {
        self.entries
            .iter()
            .find(|e| e.ip == ip && now_ms < e.until_ms)
    }

    /// Whether `ip` is quarantined at `now_ms`.
    pub fn is_quarantined(&self, ip: IpAddr, now_ms: u64) -> bool {
        self.active(ip, now_ms).is_some()
    }

    /// Whether any address is quarantined at `now_ms`.
    pub fn any_active(&self, now_ms: u64) -> bool {
        self.entries.iter().any(|e| now_ms < e.until_ms)
    }

    /// Whether there is no entry at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries (active or remembered).
    pub fn entries(&self) -> &[QuarantineEntry] {
        &self.entries
    }

    /// The state after an attributable failure of `ip` at `now_ms`.
    pub fn with_failure(&self, ip: IpAddr, now_ms: u64, policy: &QuarantinePolicy) -> Self {
        let mut next = self.pruned(now_ms, policy);
        let strikes = match next.entries.iter().position(|e| e.ip == ip) {
            Some(i) => next.entries.swap_remove(i).strikes.saturating_add(1),
            None => 1,
        };
        next.entries.push(QuarantineEntry {
            ip,
            strikes,
            until_ms: now_ms.saturating_add(policy.period_ms(strikes)),
        });
        next
    }

    /// The state after a successful connect to `ip` (its entry is removed).
    pub fn with_success(&self, ip: IpAddr) -> Self {
        HostQuarantine {
            entries: self
                .entries
                .iter()
                .filter(|e| e.ip != ip)
                .copied()
                .collect(),
        }
    }

    /// The state with `entry` added, unless `entry.ip` already has an entry (the existing
    /// one is newer: used when restoring persisted entries).
    pub fn with_entry(&self, entry: QuarantineEntry) -> Self {
        let mut next = self.clone();
        if !next.entries.iter().any(|e| e.ip == entry.ip) {
            next.entries.push(entry);
        }
        next
    }

    /// Drops entries whose quarantine ended more than one cap period before `now_ms`.
    pub fn pruned(&self, now_ms: u64, policy: &QuarantinePolicy) -> Self {
        HostQuarantine {
            entries: self
                .entries
                .iter()
                .filter(|e| now_ms < e.until_ms.saturating_add(policy.cap_ms))
                .copied()
                .collect(),
        }
    }
}
