//! Per-address connect ranking.
//!
//! Connect successes carry their connect time; each `(host, address)` on a network keeps a
//! smoothed connect time (EWMA, weight [`ALPHA`] for the newest sample). Within each
//! address family a lookup then orders addresses as:
//!
//! 1. tried addresses that are not slow, fastest first;
//! 2. untried addresses, in answer order (so new addresses still get tried);
//! 3. slow tried addresses, fastest first. An address is *slow* when its smoothed time is
//!    more than [`SLOW_FACTOR`] times the family's best and more than [`SLOW_MARGIN_MS`]
//!    above it (a 20 ms vs 45 ms difference is noise, 20 ms vs 300 ms is not).
//!
//! The families are then interleaved v6/v4 as usual ([`crate::dns::order_addresses`]), and
//! the quarantine filter applies on top. The order is computed when a sample or a new
//! answer arrives, never on the lookup path.

use crate::dns::order::order_addresses;
use std::net::IpAddr;

/// Weight of the newest sample in the smoothed connect time.
pub const ALPHA: f64 = 0.3;
/// A tried address slower than this many times the best one is slow …
pub const SLOW_FACTOR: f64 = 2.0;
/// … and more than this many milliseconds slower.
pub const SLOW_MARGIN_MS: f64 = 50.0;
/// Most addresses remembered per host (the oldest entries go first).
pub const MAX_RANKED: usize = 32;
/// Samples are capped at this many milliseconds.
pub const MAX_SAMPLE_MS: u64 = 60_000;

/// Smoothed connect times of one host's addresses on one network.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConnectRank {
    entries: Vec<(IpAddr, f64)>,
}

impl ConnectRank {
    /// A copy with one more connect-time sample for `ip`.
    pub fn with_sample(&self, ip: IpAddr, connect_ms: u64) -> ConnectRank {
        let sample = connect_ms.min(MAX_SAMPLE_MS) as f64;
        let mut entries = self.entries.clone();
        match entries.iter_mut().find(|(a, _)| *a == ip) {
            Some((_, ewma)) => *ewma = ALPHA * sample + (1.0 - ALPHA) * *ewma,
            None => {
                if entries.len() >= MAX_RANKED {
                    entries.remove(0);
                }
                entries.push((ip, sample));
            }
        }
        ConnectRank { entries }
    }

    /// The smoothed connect time of `ip`, if it was ever measured.
    pub fn smoothed_ms(&self, ip: IpAddr) -> Option<f64> {
        self.entries
            .iter()
            .find(|(a, _)| *a == ip)
            .map(|(_, ms)| *ms)
    }

    /// `addrs` (in answer order) in ranked connect order (see the module docs).
    pub fn order(&self, addrs: &[IpAddr]) -> Vec<IpAddr> {
        let mut ranked = self.family(addrs, true);
        ranked.extend(self.family(addrs, false));
        order_addresses(&ranked)
    }

    fn family(&self, addrs: &[IpAddr], v6: bool) -> Vec<IpAddr> {
        let members: Vec<(IpAddr, Option<f64>)> = addrs
            .iter()
            .filter(|a| a.is_ipv6() == v6)
            .map(|a| (*a, self.smoothed_ms(*a)))
            .collect();
        let best = members
            .iter()
            .filter_map(|(_, ms)| *ms)
            .fold(f64::INFINITY, f64::min);
        let slow = |ms: f64| ms > best * SLOW_FACTOR && ms > best + SLOW_MARGIN_MS;
        let by_time = |list: &mut Vec<(IpAddr, f64)>| {
            list.sort_by(|a, b| a.1.total_cmp(&b.1));
        };
        let (mut fast, mut slow_ones, mut untried) = (Vec::new(), Vec::new(), Vec::new());
        for (ip, ms) in members {
            match ms {
                Some(ms) if slow(ms) => slow_ones.push((ip, ms)),
                Some(ms) => fast.push((ip, ms)),
                None => untried.push(ip),
            }
        }
        by_time(&mut fast);
        by_time(&mut slow_ones);
        fast.iter()
            .map(|(ip, _)| *ip)
            .chain(untried)
            .chain(slow_ones.iter().map(|(ip, _)| *ip))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn fast_then_untried_then_slow_within_each_family_and_interleaved() {
        let addrs = [
            ip("1.0.0.1"),
            ip("1.0.0.2"),
            ip("1.0.0.3"),
            ip("2001:db8::1"),
            ip("2001:db8::2"),
        ];
        let r = ConnectRank::default()
            .with_sample(ip("1.0.0.1"), 400)
            .with_sample(ip("1.0.0.3"), 20)
            .with_sample(ip("2001:db8::2"), 30);
        assert_eq!(
            r.order(&addrs),
            [
                ip("2001:db8::2"),
                ip("1.0.0.3"),
                ip("2001:db8::1"),
                ip("1.0.0.2"),
                ip("1.0.0.1")
            ]
        );
    }

    #[test]
    fn smoothing_moves_gradually() {
        let a = ip("1.0.0.1");
        let r = ConnectRank::default()
            .with_sample(a, 100)
            .with_sample(a, 200);
        assert!((r.smoothed_ms(a).unwrap() - 130.0).abs() < 1e-9);
    }
}
