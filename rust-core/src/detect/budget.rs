//! A global token bucket capping probes per minute per install.
//!
//! During a real outage every install sees failures at once; without a cap, each one's
//! detect cooldown alone still lets a large fleet hammer the backup line. The bucket holds
//! at most `per_minute` tokens and refills continuously at `per_minute` per minute, so a
//! burst can use what accumulated while things were calm and no more.

/// One token, in the bucket's internal units.
const UNIT: u64 = 60_000;

/// Token bucket on monotonic milliseconds.
#[derive(Debug, Clone)]
pub struct ProbeBudget {
    per_minute: u32,
    /// Tokens in units of 1/60 000, so that refilling `per_minute` tokens per 60 000 ms
    /// adds exactly `per_minute` units per millisecond (no rounding loss).
    units: u64,
    updated_at: u64,
}

impl ProbeBudget {
    /// A full bucket of `per_minute` tokens at time `now_ms`.
    pub fn new(per_minute: u32, now_ms: u64) -> Self {
        ProbeBudget {
            per_minute,
            units: u64::from(per_minute) * UNIT,
            updated_at: now_ms,
        }
    }

    fn refill(&mut self, now_ms: u64) {
        let elapsed = now_ms.saturating_sub(self.updated_at);
        let cap = u64::from(self.per_minute) * UNIT;
        let add = elapsed.saturating_mul(u64::from(self.per_minute));
        self.units = self.units.saturating_add(add).min(cap);
        self.updated_at = self.updated_at.max(now_ms);
    }

    /// Takes up to `wanted` tokens and returns how many were granted.
    pub fn take(&mut self, now_ms: u64, wanted: u32) -> u32 {
        self.refill(now_ms);
        let granted = (self.units / UNIT).min(u64::from(wanted)) as u32;
        self.units -= u64::from(granted) * UNIT;
        granted
    }

    /// Whole tokens available now.
    #[cfg(any(test, feature = "testing"))]
    pub fn available(&mut self, now_ms: u64) -> u32 {
        self.refill(now_ms);
        (self.units / UNIT) as u32
    }

    /// Changes the rate (a config update), keeping the tokens already earned up to the new cap.
    pub fn set_per_minute(&mut self, per_minute: u32, now_ms: u64) {
        self.refill(now_ms);
        self.per_minute = per_minute;
        self.units = self.units.min(u64::from(per_minute) * UNIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_caps_bursts_and_refills_smoothly() {
        let mut b = ProbeBudget::new(6, 0);
        assert_eq!(b.take(0, 10), 6);
        assert_eq!(b.take(0, 1), 0);
        assert_eq!(b.take(9_999, 1), 0, "one token takes 10 s at 6/min");
        assert_eq!(b.take(10_000, 1), 1);
        assert_eq!(b.available(10_000_000), 6, "never more than the cap");
        b.set_per_minute(2, 10_000_000);
        assert_eq!(b.available(10_000_000), 2);
    }
}
