//! One cached HTTPDNS answer and how its deadlines are computed.
//!
//! Given a provider TTL, the receipt time and a [`TtlPolicy`] (from `httpdns.*`):
//!
//! - `ttl_s = clamp(ttl, min_ttl_s, max_ttl_s)` (a TTL of 0, "not stated", becomes `min_ttl_s`);
//! - `expires_at = received + ttl_s` — the record is not served from then on;
//! - `refresh_at = received + ttl_s × refresh_ratio − jitter`, `jitter` uniform in
//!   `[0, ttl_s × jitter_ratio]` drawn from the caller's seeded RNG (so replay is
//!   deterministic), and never before `received` nor after `expires_at`.
//!
//! Deadlines are monotonic milliseconds; the wall-clock receipt time is kept for
//! persistence, where deadlines are rebuilt from it after a restart.

use std::net::IpAddr;
use std::sync::Arc;

/// TTL handling settings (`httpdns.refresh_ratio`, `jitter_ratio`, `min_ttl_s`, `max_ttl_s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TtlPolicy {
    /// Share of the TTL after which a refresh is due (0..=1).
    pub refresh_ratio: f64,
    /// Largest jitter subtracted from the refresh time, as a share of the TTL (0..=1).
    pub jitter_ratio: f64,
    /// Lower TTL clamp in seconds.
    pub min_ttl_s: u64,
    /// Upper TTL clamp in seconds.
    pub max_ttl_s: u64,
}

impl Default for TtlPolicy {
    fn default() -> Self {
        TtlPolicy {
            refresh_ratio: 0.75,
            jitter_ratio: 0.1,
            min_ttl_s: 30,
            max_ttl_s: 3_600,
        }
    }
}

impl TtlPolicy {
    /// Clamps a provider TTL. Non-finite or out-of-range ratios are treated as 0..=1 and
    /// `max_ttl_s < min_ttl_s` as `max = min`.
    pub fn effective_ttl_s(&self, ttl_s: u32) -> u64 {
        let max = self.max_ttl_s.max(self.min_ttl_s);
        u64::from(ttl_s).clamp(self.min_ttl_s, max)
    }

    fn ratio(r: f64) -> f64 {
        if r.is_finite() {
            r.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// `(ttl_s, refresh_at_ms, expires_at_ms)` for an answer received at `now_ms`.
    pub fn deadlines(&self, ttl_s: u32, now_ms: u64, rng: &mut fastrand::Rng) -> (u64, u64, u64) {
        let ttl = self.effective_ttl_s(ttl_s);
        let ttl_ms = ttl.saturating_mul(1_000);
        let expires = now_ms.saturating_add(ttl_ms);
        let refresh_ms = (ttl_ms as f64 * Self::ratio(self.refresh_ratio)) as u64;
        let max_jitter = (ttl_ms as f64 * Self::ratio(self.jitter_ratio)) as u64;
        let jitter = if max_jitter == 0 {
            0
        } else {
            rng.u64(0..=max_jitter)
        };
        let refresh = now_ms
            .saturating_add(refresh_ms.saturating_sub(jitter))
            .min(expires);
        (ttl, refresh, expires)
    }
}

/// One host's validated addresses on one network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsRecord {
    /// Policy-filtered addresses, already in OkHttp order ([`crate::dns::order_addresses`]).
    pub addrs: Arc<[IpAddr]>,
    /// Provider id the answer came from.
    pub provider: Arc<str>,
    /// Wall-clock receipt time (Unix ms), for persistence.
    pub received_wall_ms: u64,
    /// Monotonic receipt time.
    pub received_ms: u64,
    /// Effective (clamped) TTL in seconds.
    pub ttl_s: u64,
    /// Monotonic time from which a refresh is due.
    pub refresh_at_ms: u64,
    /// Monotonic time from which the record is no longer served.
    pub expires_at_ms: u64,
}

impl DnsRecord {
    /// Whether the record may still be served at `now_ms`.
    pub fn is_fresh(&self, now_ms: u64) -> bool {
        now_ms < self.expires_at_ms
    }

    /// Whether a refresh is due at `now_ms`.
    pub fn refresh_due(&self, now_ms: u64) -> bool {
        now_ms >= self.refresh_at_ms
    }
}
