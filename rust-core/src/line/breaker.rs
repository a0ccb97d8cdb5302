//! The circuit breaker of one line.
//!
//! ```text
//!            failure_threshold consecutive line faults
//!   Closed ─────────────────────────────────────────────▶ Open (until now + cooldown·2ⁿ)
//!     ▲                                                     │ cooldown elapsed (lazy)
//!     │ trial succeeds (n := 0)                             ▼
//!     └────────────────────────────────────────────── HalfOpen ── admits ONE trial
//!                         trial fails (n += 1, capped) ──▶ Open
//! ```
//!
//! Time is never polled: `Open` turns into `HalfOpen` when a caller asks with a `now` past
//! the cooldown, so the breaker needs no timer thread and works in virtual time.
//!
//! In half-open exactly one request or probe is admitted ([`Admission::Trial`]) until a
//! result arrives. A trial that never reports (a lost callback) stops blocking after
//! `trial_timeout_ms`, when a new trial may go. Results that arrive while the breaker is
//! open, or in half-open with no trial in flight, come from requests started before it
//! opened; they are ignored so a late success cannot close a broken line.
//!
//! Back-off: each failed trial doubles the cooldown, up to [`MAX_BACKOFF_FACTOR`] times the
//! base cooldown; closing resets it.

use crate::config::decode::Decode;
use serde::Serialize;

/// The cooldown grows to at most this many times `open_cooldown_ms`.
pub const MAX_BACKOFF_FACTOR: u64 = 8;

pub use crate::wire::vocabulary::BreakerState;

/// The answer of [`Breaker::try_admit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Admission {
    /// The breaker is closed: go.
    Closed,
    /// The breaker is half-open and this is its single trial.
    Trial,
    /// The breaker is open (or its trial is in flight): do not use the line.
    Rejected,
}

/// Tunables of a breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerParams {
    /// Consecutive line faults that open a closed breaker (0 is treated as 1).
    pub failure_threshold: u32,
    /// Base cooldown of an open breaker.
    pub open_cooldown_ms: u64,
    /// How long a half-open trial may stay unanswered before another is admitted.
    pub trial_timeout_ms: u64,
}

impl Default for BreakerParams {
    fn default() -> Self {
        BreakerParams {
            failure_threshold: 3,
            open_cooldown_ms: 30_000,
            trial_timeout_ms: 3_000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Closed {
        faults: u32,
    },
    /// Open until `until`; half-open from then on.
    Open {
        until: u64,
    },
}

/// A per-line circuit breaker driven by explicit `now_ms` values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breaker {
    params: BreakerParams,
    phase: Phase,
    /// Failed trials since the last close (exponent of the back-off).
    backoff: u32,
    /// When the current half-open trial was admitted.
    trial_at: Option<u64>,
}

impl Default for Breaker {
    fn default() -> Self {
        Breaker::new(BreakerParams::default())
    }
}

impl Breaker {
    /// A closed breaker.
    pub fn new(params: BreakerParams) -> Self {
        Breaker {
            params,
            phase: Phase::Closed { faults: 0 },
            backoff: 0,
            trial_at: None,
        }
    }

    /// Its tunables.
    pub fn params(&self) -> BreakerParams {
        self.params
    }

    /// Replaces the tunables (after a config update) keeping the state.
    pub fn set_params(&mut self, params: BreakerParams) {
        self.params = params;
    }

    /// The state at `now_ms`.
    pub fn state(&self, now_ms: u64) -> BreakerState {
        match self.phase {
            Phase::Closed { .. } => BreakerState::Closed,
            Phase::Open { until } if now_ms < until => BreakerState::Open,
            Phase::Open { .. } => BreakerState::HalfOpen,
        }
    }

    /// Whether the line must not be used at `now_ms`: open, or half-open with its trial
    /// still in flight.
    pub fn is_open(&self, now_ms: u64) -> bool {
        match self.state(now_ms) {
            BreakerState::Closed => false,
            BreakerState::Open => true,
            BreakerState::HalfOpen => self.trial_in_flight(now_ms),
        }
    }

    fn trial_in_flight(&self, now_ms: u64) -> bool {
        self.trial_at
            .is_some_and(|t| now_ms < t.saturating_add(self.params.trial_timeout_ms))
    }

    /// Asks to send a request or probe at `now_ms`. In half-open this admits exactly one
    /// trial until a result arrives (or the trial times out).
    pub fn try_admit(&mut self, now_ms: u64) -> Admission {
        let admission = self.peek_admit(now_ms);
        if admission == Admission::Trial {
            self.trial_at = Some(now_ms);
        }
        admission
    }

    /// What [`Self::try_admit`] would answer at `now_ms`, without taking the trial (for a
    /// decision that sends nothing to the line).
    pub fn peek_admit(&self, now_ms: u64) -> Admission {
        match self.state(now_ms) {
            BreakerState::Closed => Admission::Closed,
            BreakerState::Open => Admission::Rejected,
            BreakerState::HalfOpen if self.trial_in_flight(now_ms) => Admission::Rejected,
            BreakerState::HalfOpen => Admission::Trial,
        }
    }

    /// Feeds the result of an attempt finished at `now_ms`.
    pub fn on_result(&mut self, now_ms: u64, is_line_fault: bool) {
        match self.phase {
            Phase::Closed { faults } => {
                if !is_line_fault {
                    self.phase = Phase::Closed { faults: 0 };
                    return;
                }
                let faults = faults.saturating_add(1);
                if faults >= self.params.failure_threshold.max(1) {
                    self.open(now_ms);
                } else {
                    self.phase = Phase::Closed { faults };
                }
            }
            Phase::Open { until } => {
                if now_ms < until || self.trial_at.is_none() {
                    // A late report from a request started before the breaker opened.
                    return;
                }
                if is_line_fault {
                    self.backoff = self.backoff.saturating_add(1);
                    self.open(now_ms);
                } else {
                    self.phase = Phase::Closed { faults: 0 };
                    self.backoff = 0;
                    self.trial_at = None;
                }
            }
        }
    }

    fn open(&mut self, now_ms: u64) {
        self.trial_at = None;
        self.phase = Phase::Open {
            until: now_ms.saturating_add(self.cooldown_ms()),
        };
    }

    /// The cooldown the next opening would use: `open_cooldown_ms · 2ⁿ`, capped at
    /// [`MAX_BACKOFF_FACTOR`] times the base.
    pub fn cooldown_ms(&self) -> u64 {
        let factor = 1u64
            .checked_shl(self.backoff.min(63))
            .unwrap_or(u64::MAX)
            .min(MAX_BACKOFF_FACTOR);
        self.params.open_cooldown_ms.saturating_mul(factor)
    }

    /// When an open breaker turns half-open, if it is open.
    pub fn open_until(&self) -> Option<u64> {
        match self.phase {
            Phase::Open { until } => Some(until),
            Phase::Closed { .. } => None,
        }
    }

    /// The next instant after `now_ms` at which [`Breaker::is_open`] may change by itself
    /// (cooldown end or trial timeout), if any. Pools use it to know when to re-rank.
    pub fn next_deadline(&self, now_ms: u64) -> Option<u64> {
        match self.phase {
            Phase::Closed { .. } => None,
            Phase::Open { until } if now_ms < until => Some(until),
            Phase::Open { .. } => self
                .trial_at
                .map(|t| t.saturating_add(self.params.trial_timeout_ms))
                .filter(|&d| d > now_ms),
        }
    }

    /// Consecutive line faults counted while closed.
    pub fn consecutive_faults(&self) -> u32 {
        match self.phase {
            Phase::Closed { faults } => faults,
            Phase::Open { .. } => 0,
        }
    }
}

/// An open breaker as persisted: when it turns half-open (wall clock) and its back-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedBreaker {
    /// Wall-clock time (Unix ms) at which the breaker turns half-open.
    pub open_until_wall_ms: u64,
    /// Failed trials since the last close.
    pub backoff: u32,
}

impl Breaker {
    /// The breaker for persistence at monotonic `now_ms` / wall `wall_ms`: only an open
    /// breaker has anything worth keeping (closed and half-open restart closed).
    pub fn export(&self, now_ms: u64, wall_ms: u64) -> Option<PersistedBreaker> {
        match self.phase {
            Phase::Open { until } if now_ms < until => Some(PersistedBreaker {
                open_until_wall_ms: wall_ms.saturating_add(until - now_ms),
                backoff: self.backoff,
            }),
            _ => None,
        }
    }

    /// Re-opens the breaker from a persisted state at monotonic `now_ms` / wall `wall_ms`:
    /// open for the wall-clock time remaining. Refused (returns `false`, state unchanged)
    /// when the period is over, or when more time remains than one cooldown at that
    /// back-off (the breaker would have opened in the future: the clock moved back).
    pub fn import(&mut self, p: &PersistedBreaker, now_ms: u64, wall_ms: u64) -> bool {
        let Some(remaining) = p.open_until_wall_ms.checked_sub(wall_ms).filter(|&r| r > 0) else {
            return false;
        };
        let backoff = p.backoff.min(63);
        let mut probe = self.clone();
        probe.backoff = backoff;
        if remaining > probe.cooldown_ms() {
            return false;
        }
        self.backoff = backoff;
        self.trial_at = None;
        self.phase = Phase::Open {
            until: now_ms.saturating_add(remaining),
        };
        true
    }

    /// Restores the consecutive-fault count of a closed breaker, kept below the threshold
    /// (a restored count never opens the breaker by itself).
    pub fn restore_faults(&mut self, faults: u32) {
        if let Phase::Closed { .. } = self.phase {
            let cap = self.params.failure_threshold.max(1) - 1;
            self.phase = Phase::Closed {
                faults: faults.min(cap),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_threshold_opens_on_first_fault() {
        let mut b = Breaker::new(BreakerParams {
            failure_threshold: 0,
            ..BreakerParams::default()
        });
        b.on_result(0, true);
        assert_eq!(b.state(0), BreakerState::Open);
    }

    #[test]
    fn huge_cooldown_saturates() {
        let mut b = Breaker::new(BreakerParams {
            failure_threshold: 1,
            open_cooldown_ms: u64::MAX,
            trial_timeout_ms: u64::MAX,
        });
        b.on_result(u64::MAX - 1, true);
        assert_eq!(b.state(u64::MAX - 1), BreakerState::Open);
        assert_eq!(b.next_deadline(0), Some(u64::MAX));
    }

    #[test]
    fn import_refuses_a_period_longer_than_its_cooldown_or_already_over() {
        let mut b = Breaker::default();
        let p = |until, backoff| PersistedBreaker {
            open_until_wall_ms: until,
            backoff,
        };
        // 40 s left but the cooldown at back-off 0 is 30 s: it opened in the future.
        assert!(!b.import(&p(1_040_000, 0), 5, 1_000_000));
        assert!(!b.import(&p(1_000_000, 0), 5, 1_000_000), "over");
        assert_eq!(b.state(5), BreakerState::Closed);
        // At back-off 1 (60 s) it is plausible; it re-opens for the time left.
        assert!(b.import(&p(1_040_000, 1), 5, 1_000_000));
        assert_eq!(b.open_until(), Some(40_005));
        assert_eq!(b.export(5, 2_000), Some(p(42_000, 1)));
    }
}
