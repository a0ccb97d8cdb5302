//! Sliding-window statistics of one line.
//!
//! The window (`window_ms`, default five minutes) is a fixed ring of [`BUCKETS`] time
//! buckets of `window_ms / BUCKETS` each. Recording an outcome finds its bucket by
//! `now / bucket_ms`, resets the slot if it still holds an older period, and adds to it;
//! queries sum the slots whose period is less than one window old. Nothing allocates after
//! construction and every operation is `O(BUCKETS)` at worst, so the per-request `report`
//! path stays cheap. Because buckets expire whole, the effective window is between
//! `(BUCKETS - 1) / BUCKETS` and one full window long.
//!
//! What is counted (`docs/architecture.md#window-statistics`):
//! - `ok` is a success; `http_4xx` is an answered request too (a success) but also adds its
//!   small failure weight, so a line answering 4xx all day barely moves.
//! - every other counted outcome is a failure: `failures()` counts them and
//!   `weighted_failures()` sums [`Outcome::failure_weight`].
//! - latency is averaged over answered requests (`ok`, `http_4xx`, `http_5xx`).
//! - `local_network` and `cancelled` say nothing about the line and are never counted.
//!
//! Weighted failures are kept in integer thousandths, so sums are exact and replay output is
//! identical on every platform.

use super::outcome::Outcome;
use crate::config::decode::Decode;
use serde::Serialize;

/// Number of time buckets in the ring.
pub const BUCKETS: usize = 10;

/// Marks a bucket that never held data.
const NEVER: u64 = u64::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bucket {
    /// `now / bucket_ms` of the period this slot holds, or [`NEVER`].
    period: u64,
    successes: u32,
    failures: u32,
    weighted_failures_milli: u64,
    latency_sum_ms: u64,
    latency_count: u32,
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        period: NEVER,
        successes: 0,
        failures: 0,
        weighted_failures_milli: 0,
        latency_sum_ms: 0,
        latency_count: 0,
    };
}

/// Sums over the live buckets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Totals {
    successes: u64,
    failures: u64,
    weighted_failures_milli: u64,
    latency_sum_ms: u64,
    latency_count: u64,
}

/// Everything [`WindowStats`] knows at one instant, computed in one pass over the ring.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowSummary {
    /// Successes (`ok` and `http_4xx`).
    pub successes: u64,
    /// Failures (every other counted outcome).
    pub failures: u64,
    /// Sum of failure weights (4xx included).
    pub weighted_failures: f64,
    /// Average latency of answered requests.
    pub avg_latency_ms: Option<u64>,
    /// `successes / (successes + weighted_failures)`, `None` for an empty window.
    pub weighted_success_rate: Option<f64>,
}

/// Success/failure counts and latency of one line over a sliding time window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowStats {
    window_ms: u64,
    bucket_ms: u64,
    buckets: [Bucket; BUCKETS],
}

impl Default for WindowStats {
    /// A five-minute window.
    fn default() -> Self {
        WindowStats::new(300_000)
    }
}

impl WindowStats {
    /// Empty statistics over a window of `window_ms` (a zero window is treated as
    /// [`BUCKETS`] milliseconds so the ring always has a width).
    pub fn new(window_ms: u64) -> Self {
        let bucket_ms = (window_ms / BUCKETS as u64).max(1);
        WindowStats {
            window_ms: bucket_ms.saturating_mul(BUCKETS as u64),
            bucket_ms,
            buckets: [Bucket::EMPTY; BUCKETS],
        }
    }

    /// Length of the window in milliseconds (rounded down to a whole number of buckets).
    pub fn window_ms(&self) -> u64 {
        self.window_ms
    }

    /// Counts one outcome at `now_ms` that took `cost_ms`. Ignored outcomes
    /// (`local_network`, `cancelled`) change nothing.
    pub fn record(&mut self, now_ms: u64, outcome: Outcome, cost_ms: u64) {
        if outcome.is_ignored() {
            return;
        }
        let period = now_ms / self.bucket_ms;
        let slot = &mut self.buckets[(period % BUCKETS as u64) as usize];
        if slot.period != period {
            *slot = Bucket::EMPTY;
            slot.period = period;
        }
        match outcome {
            Outcome::Ok | Outcome::Http4xx => {
                slot.successes = slot.successes.saturating_add(1);
            }
            _ => slot.failures = slot.failures.saturating_add(1),
        }
        slot.weighted_failures_milli = slot
            .weighted_failures_milli
            .saturating_add(weight_milli(outcome));
        if matches!(outcome, Outcome::Ok | Outcome::Http4xx | Outcome::Http5xx) {
            slot.latency_sum_ms = slot.latency_sum_ms.saturating_add(cost_ms);
            slot.latency_count = slot.latency_count.saturating_add(1);
        }
    }

    fn totals(&self, now_ms: u64) -> Totals {
        let current = now_ms / self.bucket_ms;
        let mut t = Totals::default();
        for b in &self.buckets {
            // A bucket is live when its period lies within the last BUCKETS periods. A period
            // after `current` only happens if a caller passed times out of order; it is
            // counted rather than dropped so no data is lost to a clock hiccup.
            if b.period == NEVER || current.saturating_sub(b.period) >= BUCKETS as u64 {
                continue;
            }
            t.successes += u64::from(b.successes);
            t.failures += u64::from(b.failures);
            t.weighted_failures_milli += b.weighted_failures_milli;
            t.latency_sum_ms = t.latency_sum_ms.saturating_add(b.latency_sum_ms);
            t.latency_count += u64::from(b.latency_count);
        }
        t
    }

    /// All window figures at `now_ms` in one pass (what ranking uses).
    pub fn summary(&self, now_ms: u64) -> WindowSummary {
        let t = self.totals(now_ms);
        WindowSummary {
            successes: t.successes,
            failures: t.failures,
            weighted_failures: t.weighted_failures_milli as f64 / 1000.0,
            avg_latency_ms: t.latency_sum_ms.checked_div(t.latency_count),
            weighted_success_rate: rate(&t),
        }
    }

    /// Successes (`ok` and `http_4xx`) in the window.
    pub fn successes(&self, now_ms: u64) -> u64 {
        self.totals(now_ms).successes
    }

    /// Failures (every counted outcome other than `ok` and `http_4xx`) in the window.
    pub fn failures(&self, now_ms: u64) -> u64 {
        self.totals(now_ms).failures
    }

    /// Every counted outcome in the window.
    pub fn total(&self, now_ms: u64) -> u64 {
        let t = self.totals(now_ms);
        t.successes + t.failures
    }

    /// Sum of [`Outcome::failure_weight`] over the window (4xx included).
    pub fn weighted_failures(&self, now_ms: u64) -> f64 {
        self.totals(now_ms).weighted_failures_milli as f64 / 1000.0
    }

    /// `successes / (successes + weighted failures)`, or `None` when the window is empty.
    pub fn weighted_success_rate(&self, now_ms: u64) -> Option<f64> {
        rate(&self.totals(now_ms))
    }

    /// Average cost of answered requests in the window, or `None` if there were none.
    pub fn avg_latency_ms(&self, now_ms: u64) -> Option<u64> {
        let t = self.totals(now_ms);
        t.latency_sum_ms.checked_div(t.latency_count)
    }
}

/// One live bucket as persisted, its start converted to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedBucket {
    /// Wall-clock start of the bucket's period (Unix ms).
    pub start_wall_ms: u64,
    /// Successes.
    pub successes: u32,
    /// Failures.
    pub failures: u32,
    /// Weighted failures in thousandths.
    pub weighted_failures_milli: u64,
    /// Sum of answered latencies.
    pub latency_sum_ms: u64,
    /// Answered requests.
    pub latency_count: u32,
}

impl PersistedBucket {
    /// Counts that cannot come from [`WindowStats::record`] (more latencies or weight than
    /// outcomes) mark a forged or damaged entry.
    fn is_plausible(&self) -> bool {
        let outcomes = u64::from(self.successes) + u64::from(self.failures);
        outcomes > 0
            && u64::from(self.latency_count) <= outcomes
            && self.weighted_failures_milli <= outcomes.saturating_mul(1000)
    }
}

impl WindowStats {
    /// The live buckets at monotonic `now_ms`, with starts converted to wall `wall_ms`.
    pub fn export(&self, now_ms: u64, wall_ms: u64) -> Vec<PersistedBucket> {
        let current = now_ms / self.bucket_ms;
        self.buckets
            .iter()
            .filter(|b| {
                b.period != NEVER && b.period <= current && current - b.period < BUCKETS as u64
            })
            .filter_map(|b| {
                let age = now_ms.saturating_sub(b.period.saturating_mul(self.bucket_ms));
                Some(PersistedBucket {
                    start_wall_ms: wall_ms.checked_sub(age)?,
                    successes: b.successes,
                    failures: b.failures,
                    weighted_failures_milli: b.weighted_failures_milli,
                    latency_sum_ms: b.latency_sum_ms,
                    latency_count: b.latency_count,
                })
            })
            .collect()
    }

    /// Adds persisted buckets back at monotonic `now_ms` / wall `wall_ms`; returns how
    /// many were kept. A bucket is dropped when its start is in the future (the clock
    /// moved back), at least one window old, before the monotonic origin, or implausible;
    /// a slot already holding a newer period keeps it.
    pub fn import(&mut self, buckets: &[PersistedBucket], now_ms: u64, wall_ms: u64) -> usize {
        let current = now_ms / self.bucket_ms;
        let mut kept = 0;
        for p in buckets {
            let Some(age) = wall_ms.checked_sub(p.start_wall_ms) else {
                continue;
            };
            if age >= self.window_ms || !p.is_plausible() {
                continue;
            }
            let Some(start) = now_ms.checked_sub(age) else {
                continue;
            };
            let period = start / self.bucket_ms;
            if current - period >= BUCKETS as u64 {
                continue;
            }
            let slot = &mut self.buckets[(period % BUCKETS as u64) as usize];
            if slot.period != NEVER && slot.period > period {
                continue;
            }
            if slot.period != period {
                *slot = Bucket::EMPTY;
                slot.period = period;
            }
            slot.successes = slot.successes.saturating_add(p.successes);
            slot.failures = slot.failures.saturating_add(p.failures);
            slot.weighted_failures_milli = slot
                .weighted_failures_milli
                .saturating_add(p.weighted_failures_milli);
            slot.latency_sum_ms = slot.latency_sum_ms.saturating_add(p.latency_sum_ms);
            slot.latency_count = slot.latency_count.saturating_add(p.latency_count);
            kept += 1;
        }
        kept
    }
}

fn rate(t: &Totals) -> Option<f64> {
    if t.successes + t.failures == 0 {
        return None;
    }
    let s = t.successes as f64;
    let wf = t.weighted_failures_milli as f64 / 1000.0;
    if s + wf <= 0.0 {
        // Only zero-weight failures; cannot happen with today's weights.
        return Some(0.0);
    }
    Some(s / (s + wf))
}

/// Failure weight in thousandths.
fn weight_milli(outcome: Outcome) -> u64 {
    (outcome.failure_weight() * 1000.0).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_window_still_has_width() {
        let mut s = WindowStats::new(0);
        assert_eq!(s.window_ms(), BUCKETS as u64);
        s.record(5, Outcome::Ok, 1);
        assert_eq!(s.successes(5), 1);
        assert_eq!(s.successes(5 + BUCKETS as u64 * 2), 0);
    }

    #[test]
    fn slot_reuse_resets_old_period() {
        let mut s = WindowStats::new(1_000);
        s.record(0, Outcome::DnsFailure, 10);
        // Same slot, one full ring later.
        s.record(1_000, Outcome::Ok, 10);
        assert_eq!((s.successes(1_000), s.failures(1_000)), (1, 0));
    }

    #[test]
    fn import_drops_future_old_and_implausible_buckets() {
        let mut s = WindowStats::new(10_000);
        s.record(50_000, Outcome::Ok, 10);
        let exported = s.export(50_500, 1_000_500);
        assert_eq!(exported.len(), 1);
        let good = exported[0];
        let mut fresh = WindowStats::new(10_000);
        let bad = |f: fn(&mut PersistedBucket)| {
            let mut b = good;
            f(&mut b);
            b
        };
        let buckets = [
            bad(|b| b.start_wall_ms = 2_000_000), // in the future
            bad(|b| b.start_wall_ms = 0),         // older than the window
            bad(|b| b.latency_count = 5),         // more latencies than outcomes
            bad(|b| b.successes = 0),             // empty
            good,
        ];
        assert_eq!(fresh.import(&buckets, 7_000, 1_001_000), 1);
        assert_eq!(fresh.successes(7_000), 1);
        assert_eq!(fresh.avg_latency_ms(7_000), Some(10));
    }
}
