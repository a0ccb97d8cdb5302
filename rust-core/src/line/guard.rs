//! The switch guard: at most one line switch per `switch_interval_ms` per pool.
//!
//! Switching hosts throws away warm connections and, when two lines fail alternately, makes
//! traffic flap between them. The guard remembers the last switch and refuses another one
//! until the interval has passed; the very first switch is always allowed. The pool decides
//! when the guard is bypassed (a line whose breaker is open is always left at once).

/// Remembers when its pool last switched lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchGuard {
    /// Monotonic time of the last switch, if any.
    pub last_switch_at: Option<u64>,
    /// Minimum time between two switches.
    pub interval_ms: u64,
}

impl SwitchGuard {
    /// A guard that has never seen a switch.
    pub fn new(interval_ms: u64) -> Self {
        SwitchGuard {
            last_switch_at: None,
            interval_ms,
        }
    }

    /// Whether a switch at `now_ms` is allowed.
    pub fn may_switch(&self, now_ms: u64) -> bool {
        match self.last_switch_at {
            None => true,
            Some(at) => now_ms >= at.saturating_add(self.interval_ms),
        }
    }

    /// When the next switch becomes allowed (`None`: already allowed any time).
    pub fn next_allowed_at(&self) -> Option<u64> {
        self.last_switch_at
            .map(|at| at.saturating_add(self.interval_ms))
    }

    /// Notes a switch at `now_ms`.
    pub fn record_switch(&mut self, now_ms: u64) {
        self.last_switch_at = Some(now_ms);
    }
}
