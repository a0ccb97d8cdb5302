//! Staged rollout (`docs/architecture.md#rollout`): which [`RolloutMode`] a business line
//! gets on this install.
//!
//! A config names a top-level `rollout` and, per business line, an optional override that
//! replaces it. `percent` of installs get `mode`, the others get `others`. Which side an
//! install is on comes from the same stable per-install bucket as the convergence gray
//! rate ([`super::convergence::bucket`]), hashed with one fixed key for every business
//! line: an install is in a 10 % rollout of one business line exactly when it is in the
//! 10 % of every other, raising `percent` only ever adds installs, and an install keeps
//! its side across restarts (its seed is stored in the storage directory).
//!
//! The mode is fixed when a topology is built from a config, so a mode change takes effect
//! on the next request; a call that already started passes its mode back on its retries
//! ([`super::router::RouteRequest::mode`]) and finishes under it.

pub use crate::config::{Rollout, RolloutMode};

/// The key the install seed is hashed with to place the install in the rollout.
const BUCKET_KEY: &str = "rollout";

/// The mode `rollout` gives the install with seed `seed`.
pub fn effective_mode(rollout: &Rollout, seed: u64) -> RolloutMode {
    let share = f64::from(rollout.percent.min(100)) / 100.0;
    if super::convergence::bucket(seed, BUCKET_KEY) < share {
        rollout.mode
    } else {
        rollout.others
    }
}

impl RolloutMode {
    /// How many extra lines a call under this mode may try, given the configured
    /// `max_retries`: only `on` retries.
    pub fn max_retries(self, configured: u32) -> u32 {
        match self {
            RolloutMode::On => configured,
            RolloutMode::Observe | RolloutMode::Off => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rollout(mode: RolloutMode, percent: u32, others: RolloutMode) -> Rollout {
        Rollout {
            mode,
            percent,
            others,
        }
    }

    #[test]
    fn percent_bounds_choose_one_side_for_every_install() {
        let all = rollout(RolloutMode::Observe, 100, RolloutMode::Off);
        let none = rollout(RolloutMode::Observe, 0, RolloutMode::On);
        for seed in 0..500 {
            assert_eq!(effective_mode(&all, seed), RolloutMode::Observe);
            assert_eq!(effective_mode(&none, seed), RolloutMode::On);
        }
        assert_eq!(effective_mode(&Rollout::default(), 7), RolloutMode::On);
    }

    #[test]
    fn raising_the_percent_only_adds_installs() {
        for seed in 0..2_000 {
            let mut inside = false;
            for percent in 0..=100 {
                let now =
                    effective_mode(&rollout(RolloutMode::On, percent, RolloutMode::Off), seed)
                        == RolloutMode::On;
                assert!(now || !inside, "seed {seed} left at {percent} %");
                inside = now;
            }
        }
    }

    #[test]
    fn only_on_retries() {
        assert_eq!(RolloutMode::On.max_retries(2), 2);
        assert_eq!(RolloutMode::Observe.max_retries(2), 0);
        assert_eq!(RolloutMode::Off.max_retries(2), 0);
    }
}
