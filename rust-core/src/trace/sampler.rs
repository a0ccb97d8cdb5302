//! Deterministic sampling of trace events.
//!
//! Sampling uses a counter spread by a fixed multiplicative hash rather than a random
//! number, so a given rate keeps the same share of events in every run (replay output is
//! byte-identical) and the hot-path cost is one atomic add.

use std::sync::atomic::{AtomicU64, Ordering};

/// Decides which events are emitted, at a rate in `0.0..=1.0`.
#[derive(Debug)]
pub struct Sampler {
    threshold: u64,
    counter: AtomicU64,
}

impl Sampler {
    /// A sampler keeping `rate` of the events (clamped to `0..=1`).
    pub fn new(rate: f64) -> Self {
        let rate = if rate.is_finite() {
            rate.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let threshold = if rate >= 1.0 {
            u64::MAX
        } else {
            (rate * u64::MAX as f64) as u64
        };
        Sampler {
            threshold,
            counter: AtomicU64::new(0),
        }
    }

    /// Whether the next event should be emitted.
    pub fn sample(&self) -> bool {
        match self.threshold {
            0 => false,
            u64::MAX => true,
            t => {
                let n = self.counter.fetch_add(1, Ordering::Relaxed);
                // Fibonacci hashing spreads consecutive counts uniformly over u64.
                n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) < t
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_respected() {
        for (rate, lo, hi) in [
            (0.0, 0, 0),
            (1.0, 10_000, 10_000),
            (0.01, 70, 130),
            (0.5, 4_800, 5_200),
        ] {
            let s = Sampler::new(rate);
            let kept = (0..10_000).filter(|_| s.sample()).count();
            assert!((lo..=hi).contains(&kept), "rate {rate}: kept {kept}");
        }
        assert!(!Sampler::new(f64::NAN).sample());
    }
}
