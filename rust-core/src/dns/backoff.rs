//! The doubling back-off ladder shared by address quarantine ([`super::QuarantinePolicy`])
//! and provider back-off ([`super::refresh::BackoffPolicy`]): the n-th consecutive failure
//! holds the subject off for `base_ms × 2ⁿ⁻¹`, capped at `cap_ms`.

/// A back-off ladder: `base_ms` doubling per consecutive failure, capped at `cap_ms`
/// (default 30 s doubling to 10 min).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// First period in milliseconds.
    pub base_ms: u64,
    /// Longest period in milliseconds.
    pub cap_ms: u64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base_ms: 30_000,
            cap_ms: 600_000,
        }
    }
}

impl Backoff {
    /// The period for the `failures`-th consecutive failure (1-based).
    pub fn period_ms(&self, failures: u32) -> u64 {
        let shift = failures.saturating_sub(1).min(32);
        self.base_ms
            .saturating_mul(1u64 << shift)
            .min(self.cap_ms.max(self.base_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_and_caps() {
        let p = Backoff::default();
        assert_eq!(p.period_ms(1), 30_000);
        assert_eq!(p.period_ms(2), 60_000);
        assert_eq!(p.period_ms(5), 480_000);
        assert_eq!(p.period_ms(6), 600_000);
        assert_eq!(p.period_ms(u32::MAX), 600_000);
    }

    #[test]
    fn a_cap_below_the_base_keeps_the_base() {
        let p = Backoff {
            base_ms: 5_000,
            cap_ms: 1_000,
        };
        assert_eq!(p.period_ms(1), 5_000);
        assert_eq!(p.period_ms(3), 5_000);
    }
}
