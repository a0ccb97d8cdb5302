//! Trace sampling per install and per time window, never per event.
//!
//! Monotonic time is cut into windows of `trace.window_ms`. For each window an install
//! either records everything (every route, report, probe, breaker, network and downgrade
//! event) or nothing, so a recorded trace is complete and can be replayed: dropping single
//! events would leave requests without outcomes and breakers opening for no visible reason.
//! The decision hashes the install seed with the window index, so it is deterministic (a
//! replay emits the same events on every run), about `sample_rate` of the installs record
//! in any window, and which installs record changes from one window to the next. The hot
//! path cost is a division and a multiply-xorshift hash.

/// Decides whether an install records the window a moment falls in.
#[derive(Debug, Clone)]
pub struct Sampler {
    threshold: u64,
    seed: u64,
    window_ms: u64,
}

impl Sampler {
    /// An install (`seed`) records `rate` (clamped to `0..=1`) of its windows of `window_ms`.
    pub fn new(rate: f64, seed: u64, window_ms: u64) -> Self {
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
            seed,
            window_ms: window_ms.max(1),
        }
    }

    /// Whether events at monotonic time `now_ms` are recorded.
    pub fn sample(&self, now_ms: u64) -> bool {
        match self.threshold {
            0 => false,
            u64::MAX => true,
            t => mix(self.seed ^ (now_ms / self.window_ms).wrapping_mul(0x9E37_79B9_7F4A_7C15)) < t,
        }
    }

    /// The window `now_ms` falls in.
    pub fn window(&self, now_ms: u64) -> u64 {
        now_ms / self.window_ms
    }
}

/// The SplitMix64 finaliser: spreads nearby inputs uniformly over `u64`.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_recorded_whole_or_not_at_all() {
        for seed in 0..200 {
            let s = Sampler::new(0.3, seed, 60_000);
            for window in 0..5u64 {
                let first = s.sample(window * 60_000);
                assert!((0..60_000)
                    .step_by(997)
                    .all(|t| s.sample(window * 60_000 + t) == first));
            }
        }
    }

    #[test]
    fn rate_is_the_share_of_installs_and_windows() {
        for (rate, lo, hi) in [
            (0.0, 0, 0),
            (1.0, 10_000, 10_000),
            (0.01, 60, 140),
            (0.5, 4_800, 5_200),
        ] {
            let kept = (0..1_000u64)
                .flat_map(|seed| (0..10u64).map(move |w| (seed, w)))
                .filter(|&(seed, w)| Sampler::new(rate, seed, 1_000).sample(w * 1_000 + 5))
                .count();
            assert!((lo..=hi).contains(&kept), "rate {rate}: kept {kept}");
        }
        assert!(!Sampler::new(f64::NAN, 1, 1).sample(0));
    }

    #[test]
    fn recording_installs_change_between_windows() {
        let recorders = |w: u64| -> Vec<u64> {
            (0..1_000)
                .filter(|&seed| Sampler::new(0.1, seed, 1_000).sample(w * 1_000))
                .collect()
        };
        assert_ne!(recorders(0), recorders(1));
    }
}
