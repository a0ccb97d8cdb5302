//! The attempts a line is serving right now, so slowness counts while requests still wait.
//!
//! A slow line gives its first slow *answer* only after the slowness itself (a 2.5 s stall
//! answers after 2.5 s), and the slow-streak rule ([`super::pool::SlowRule`]) then waits
//! for more answers. The requests still waiting on the line show it sooner: an attempt
//! routed to the serving line more than `slow_request_ms` ago and not answered yet is slow
//! already. [`InFlight`] keeps the start times of a line's unanswered attempts (HTTP pools
//! only) and hands each one to the slow streak once, when it passes `slow_request_ms`
//! ([`InFlight::count_overdue`]); its answer, when it comes, then does not count it again
//! ([`InFlight::finish`]).
//!
//! Starts are pushed in clock order, so the list stays sorted and the attempts counted so
//! far are always its first `counted` entries: the check on the request path reads one
//! entry. An answer is matched to the attempt that started closest to `now - cost`
//! within [`MATCH_MS`] (the caller's clock starts a little after the route), so a report
//! of an attempt that was never routed here (a body failure after its answer, a probe)
//! removes nothing. The list holds at most [`CAPACITY`] attempts, allocated when the line
//! is built (the request path allocates nothing); beyond that the oldest is forgotten,
//! and so is an attempt older than the pool's `forget_ms` ([`forget_ms`]: well past the
//! attempt deadline, so its answer was lost or will come as a timeout) before it is
//! counted: a route whose answer never arrives says nothing about the line minutes later.

use std::collections::VecDeque;

/// Most unanswered attempts a line remembers.
pub const CAPACITY: usize = 64;

/// Widest gap between a route's time and the start an answer implies (`now - cost`)
/// for the two to be one attempt.
pub const MATCH_MS: u64 = 1_000;

/// Age past which an unanswered attempt is forgotten: twice the longer of the attempt
/// deadline (`timeout_ms`) and `slow_request_ms`.
pub fn forget_ms(timeout_ms: u64, slow_request_ms: u64) -> u64 {
    timeout_ms.max(slow_request_ms).saturating_mul(2)
}

/// Unanswered attempts of one line, by start time.
#[derive(Debug, Clone)]
pub struct InFlight {
    starts: VecDeque<u64>,
    /// The first `counted` starts were handed to the slow streak already.
    counted: usize,
}

impl Default for InFlight {
    fn default() -> Self {
        InFlight {
            starts: VecDeque::with_capacity(CAPACITY),
            counted: 0,
        }
    }
}

impl InFlight {
    /// An attempt routed to the line at `now_ms`; attempts older than `forget_ms` are
    /// forgotten.
    pub fn start(&mut self, now_ms: u64, forget_ms: u64) {
        self.forget_before(now_ms.saturating_sub(forget_ms));
        if self.starts.len() == CAPACITY {
            self.pop_oldest();
        }
        self.starts.push_back(now_ms);
    }

    /// The answer to an attempt that cost `cost_ms` arrived at `now_ms`: the attempt is
    /// no longer in flight. Returns whether it had been counted slow while waiting.
    pub fn finish(&mut self, now_ms: u64, cost_ms: u64) -> bool {
        let started = now_ms.saturating_sub(cost_ms);
        let closest = self
            .starts
            .iter()
            .enumerate()
            .map(|(i, &s)| (i, s.abs_diff(started)))
            .filter(|&(_, gap)| gap <= MATCH_MS)
            .min_by_key(|&(_, gap)| gap);
        let Some((index, _)) = closest else {
            return false;
        };
        self.starts.remove(index);
        let counted = index < self.counted;
        if counted {
            self.counted -= 1;
        }
        counted
    }

    /// Counts every attempt waiting longer than `slow_ms` at `now_ms` that was not counted
    /// yet (attempts older than `forget_ms` are forgotten first): returns how many, and
    /// when the earliest of them became slow.
    pub fn count_overdue(
        &mut self,
        now_ms: u64,
        slow_ms: u64,
        forget_ms: u64,
    ) -> Option<(u32, u64)> {
        self.forget_before(now_ms.saturating_sub(forget_ms));
        let mut first = None;
        let mut count = 0u32;
        while let Some(&start) = self.starts.get(self.counted) {
            let slow_at = start.saturating_add(slow_ms);
            if slow_at >= now_ms {
                break;
            }
            first.get_or_insert(slow_at);
            count = count.saturating_add(1);
            self.counted += 1;
        }
        first.map(|at| (count, at))
    }

    /// Unanswered attempts remembered.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether no attempt is remembered.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    fn forget_before(&mut self, cutoff_ms: u64) {
        while self.starts.front().is_some_and(|&s| s < cutoff_ms) {
            self.pop_oldest();
        }
    }

    fn pop_oldest(&mut self) {
        if self.starts.pop_front().is_some() && self.counted > 0 {
            self.counted -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults' `forget_ms` (timeout 3 s, slow 2 s): 6 s.
    const FORGET: u64 = 6_000;

    impl InFlight {
        fn start_at(&mut self, now_ms: u64) {
            self.start(now_ms, FORGET);
        }

        fn overdue(&mut self, now_ms: u64) -> Option<(u32, u64)> {
            self.count_overdue(now_ms, 2_000, FORGET)
        }
    }

    #[test]
    fn an_attempt_counts_once_when_it_passes_the_slow_time_and_not_again_when_answered() {
        let mut f = InFlight::default();
        f.start_at(1_000);
        f.start_at(1_500);
        assert_eq!(f.overdue(3_000), None, "neither waited 2 s yet");
        assert_eq!(f.overdue(3_001), Some((1, 3_000)));
        assert_eq!(f.overdue(3_200), None, "counted once");
        assert_eq!(f.overdue(4_000), Some((1, 3_500)));
        // The first answers after 2.5 s: it was counted while waiting.
        assert!(f.finish(3_500, 2_500));
        assert_eq!(f.len(), 1);
        assert!(f.finish(4_100, 2_600));
        assert!(f.is_empty());
    }

    #[test]
    fn an_answer_before_the_slow_time_was_never_counted() {
        let mut f = InFlight::default();
        f.start_at(1_000);
        f.start_at(1_100);
        assert!(!f.finish(1_300, 300));
        assert_eq!(f.overdue(3_500), Some((1, 3_100)));
        assert!(f.finish(3_600, 2_500));
    }

    #[test]
    fn several_overdue_attempts_count_together_from_the_earliest() {
        let mut f = InFlight::default();
        for start in [0, 100, 200, 5_000] {
            f.start_at(start);
        }
        assert_eq!(f.overdue(2_500), Some((3, 2_000)));
        // The answer of the middle one takes it out of the counted prefix.
        assert!(f.finish(2_600, 2_500));
        assert_eq!(f.overdue(7_001), Some((1, 7_000)));
    }

    #[test]
    fn an_answer_that_matches_no_routed_attempt_removes_nothing() {
        let mut f = InFlight::default();
        f.start_at(10_000);
        // Implies a start at 5,000: five seconds from any routed attempt.
        assert!(!f.finish(10_500, 5_500));
        assert_eq!(f.len(), 1);
        // A start a few ms after the route is the same attempt.
        assert!(!f.finish(10_520, 500));
        assert!(f.is_empty());
    }

    #[test]
    fn the_list_is_bounded_and_forgets_lost_answers() {
        let mut f = InFlight::default();
        for start in 0..(CAPACITY as u64 + 10) {
            f.start_at(start);
        }
        assert_eq!(f.len(), CAPACITY);
        assert_eq!(f.overdue(5_000).map(|c| c.0), Some(CAPACITY as u32));
        f.start_at(FORGET + 100);
        assert_eq!(f.len(), 1, "every attempt older than forget_ms is forgotten");
        assert_eq!(f.overdue(FORGET + 101), None);
    }

    #[test]
    fn an_attempt_older_than_forget_ms_is_never_counted() {
        let mut f = InFlight::default();
        f.start_at(1_000);
        // No route for 10 s: the attempt's answer was lost.
        assert_eq!(f.overdue(11_000), None);
        assert!(f.is_empty());
        assert_eq!(forget_ms(3_000, 2_000), FORGET);
        assert_eq!(forget_ms(1_000, 5_000), 10_000);
    }
}
