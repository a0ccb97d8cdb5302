//! Domain convergence (`docs/architecture.md#domain-convergence`): legacy asset hosts map onto a unified business line
//! plus a path prefix, released per host by a gray rate.
//!
//! The release decision uses a stable per-install bucket: `bucket(seed, host)` hashes the
//! install seed with the host into `[0, 1)`, and the host is released when
//! `bucket < rate`. The same install always lands in the same bucket for a host (no
//! flapping between old and new URLs), raising the rate only ever adds installs, and a
//! replay with a fixed `seed` is deterministic.

use crate::config::MergeHost;
use std::collections::HashMap;
use std::sync::Arc;

/// One converged host, resolved against the business lines of a config.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeRule {
    /// Index of the unified business line.
    pub biz: usize,
    /// Path prefix inserted before the original path.
    pub path_prefix: Arc<str>,
    /// Whether this install is inside the released share.
    pub released: bool,
}

/// Converged hosts by lower-case host name.
#[derive(Debug, Clone, Default)]
pub struct Convergence {
    rules: HashMap<String, MergeRule>,
}

impl Convergence {
    /// Builds the rules; `biz_index` maps a business line name to its index (rules naming
    /// an unknown business line are skipped — validation reports them).
    pub fn new(merges: &[MergeHost], seed: u64, biz_index: impl Fn(&str) -> Option<usize>) -> Self {
        let rules = merges
            .iter()
            .filter_map(|m| {
                let biz = biz_index(&m.biz)?;
                let host = m.host.trim_end_matches('.').to_ascii_lowercase();
                let released = bucket(seed, &host) < m.rate;
                Some((
                    host,
                    MergeRule {
                        biz,
                        path_prefix: m.path_prefix.trim_end_matches('/').into(),
                        released,
                    },
                ))
            })
            .collect();
        Convergence { rules }
    }

    /// The rule for a request host, if it is converged.
    pub fn rule(&self, host: &str) -> Option<&MergeRule> {
        if self.rules.is_empty() {
            return None;
        }
        if host.bytes().any(|b| b.is_ascii_uppercase()) || host.ends_with('.') {
            self.rules
                .get(&host.trim_end_matches('.').to_ascii_lowercase())
        } else {
            self.rules.get(host)
        }
    }
}

/// The stable bucket in `[0, 1)` of an install (`seed`) for a host (FNV-1a 64, then a
/// SplitMix64 finaliser for an even spread).
pub fn bucket(seed: u64, host: &str) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.to_le_bytes().iter().chain(host.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_is_stable_and_in_range() {
        assert_eq!(
            bucket(7, "image.example.com"),
            bucket(7, "image.example.com")
        );
        assert_ne!(
            bucket(7, "image.example.com"),
            bucket(8, "image.example.com")
        );
        for s in 0..1000 {
            let b = bucket(s, "x.example.com");
            assert!((0.0..1.0).contains(&b));
        }
    }

    #[test]
    fn rule_lookup_ignores_case_and_trailing_dot() {
        let m = [MergeHost {
            host: "Image.Example.com".into(),
            biz: "cdn".into(),
            path_prefix: "/image/".into(),
            rate: 1.0,
        }];
        let c = Convergence::new(&m, 1, |b| (b == "cdn").then_some(3));
        let r = c.rule("IMAGE.example.com.").unwrap();
        assert_eq!((r.biz, &*r.path_prefix, r.released), (3, "/image", true));
        assert!(c.rule("video.example.com").is_none());
        let none = Convergence::new(&m, 1, |_| None);
        assert!(none.rule("image.example.com").is_none());
    }
}
