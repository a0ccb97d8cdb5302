//! Time as the engine sees it.
//!
//! Every deadline, window and cooldown in the core is measured on a monotonic millisecond
//! clock supplied through [`Clock`]; wall-clock time is used only for values that must
//! survive a restart (receipt times of persisted records). Tests and `linekit replay`
//! inject a [`ManualClock`] and move it explicitly, so no rule depends on real sleeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A source of monotonic and wall-clock time in milliseconds.
pub trait Clock: Send + Sync + 'static {
    /// Monotonic milliseconds since an arbitrary origin; never goes backwards.
    fn now_ms(&self) -> u64;
    /// Wall-clock milliseconds since the Unix epoch; may jump.
    fn wall_ms(&self) -> u64;
}

/// Where [`SystemClock`]'s monotonic time starts (about 49.7 days). Persisted history
/// (window buckets) is placed *before* the process started when restored; a large origin
/// leaves room for it instead of dropping everything older than the process.
pub const MONO_ORIGIN_MS: u64 = 1 << 32;

/// The real clock: [`Instant`] for monotonic time, [`SystemTime`] for wall time.
#[derive(Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose monotonic origin is now.
    pub fn new() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        // Never 0 (so 0 can mean "never"), and with room before it (see MONO_ORIGIN_MS).
        u64::try_from(self.origin.elapsed().as_millis())
            .unwrap_or(u64::MAX)
            .saturating_add(MONO_ORIGIN_MS)
    }

    fn wall_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

/// A clock moved by hand; clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    mono: Arc<AtomicU64>,
    wall: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock at monotonic `mono_ms` and wall `wall_ms`.
    pub fn new(mono_ms: u64, wall_ms: u64) -> Self {
        ManualClock {
            mono: Arc::new(AtomicU64::new(mono_ms)),
            wall: Arc::new(AtomicU64::new(wall_ms)),
        }
    }

    /// Moves both clocks forward by `ms` (each stops at `u64::MAX` rather than wrapping).
    pub fn advance(&self, ms: u64) {
        saturating_add(&self.mono, ms);
        saturating_add(&self.wall, ms);
    }

    /// Sets the monotonic clock to `ms` if that is later than now (it never goes back);
    /// the wall clock moves by the same amount (stopping at `u64::MAX`, never wrapping).
    pub fn set_now(&self, ms: u64) {
        let prev = self.mono.fetch_max(ms, Ordering::SeqCst);
        if ms > prev {
            saturating_add(&self.wall, ms - prev);
        }
    }

    /// Sets the wall clock alone (to simulate a user changing the time).
    pub fn set_wall(&self, ms: u64) {
        self.wall.store(ms, Ordering::SeqCst);
    }
}

/// Adds `ms` to `clock`, stopping at `u64::MAX`.
fn saturating_add(clock: &AtomicU64, ms: u64) {
    // The closure always returns `Some`, so the update cannot fail.
    let _ = clock.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
        Some(t.saturating_add(ms))
    });
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.mono.load(Ordering::SeqCst)
    }

    fn wall_ms(&self) -> u64 {
        self.wall.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_saturates_instead_of_wrapping() {
        let c = ManualClock::new(10, u64::MAX - 5);
        c.set_now(1_000);
        assert_eq!((c.now_ms(), c.wall_ms()), (1_000, u64::MAX));
        c.advance(u64::MAX);
        assert_eq!((c.now_ms(), c.wall_ms()), (u64::MAX, u64::MAX));
    }

    #[test]
    fn manual_clock_never_goes_back_and_moves_wall_with_it() {
        let c = ManualClock::new(100, 1_000);
        c.set_now(50);
        assert_eq!(c.now_ms(), 100);
        c.set_now(150);
        assert_eq!((c.now_ms(), c.wall_ms()), (150, 1_050));
        c.advance(10);
        assert_eq!((c.now_ms(), c.wall_ms()), (160, 1_060));
    }

    #[test]
    fn system_clock_is_monotonic_and_nonzero() {
        let c = SystemClock::new();
        let a = c.now_ms();
        let b = c.now_ms();
        assert!(a >= 1 && b >= a);
        assert!(c.wall_ms() > 1_600_000_000_000);
    }
}
