//! Line health as the recording engine knew it at each moment, for the health lanes of the
//! report: what the trace had told it about each line so far.
//!
//! A line is `open` while its breaker is open (from the `open` event until its cooldown
//! ends), `failing` while its breaker is half-open or its latest outcome (request or
//! probe) was a line fault, `healthy` when its latest outcome was not, and `unknown`
//! before anything was heard of it. It is the same knowledge a route's `would_healthy`
//! flag summarises (that flag also asks for a success within the window, which the trace
//! does not repeat). Time is cut into the timeline's buckets and each bucket takes the
//! worst state the line was in during it, so a short fault is never hidden. Besides the
//! state, each bucket counts the routes recorded under `observe` whose `would_line` was
//! this line while the engine did not know it healthy (`would_healthy: false`).

use super::timeline::{bucket_ms, lane_index, slot, BUCKETS};
use linekit_core::line::BreakerState;
use linekit_core::trace::{TraceBody, TraceEvent, WouldTrace};

/// What was known about a line, from the best to the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Health {
    /// Nothing heard yet.
    Unknown,
    /// Latest outcome not a line fault, breaker closed.
    Healthy,
    /// Latest outcome a line fault, or the breaker half-open.
    Failing,
    /// Breaker open.
    Open,
}

impl Health {
    /// Its name in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Unknown => "unknown",
            Health::Healthy => "healthy",
            Health::Failing => "failing",
            Health::Open => "open",
        }
    }
}

/// One line's health over time (the line is the lane of the same index).
#[derive(Debug, Clone, PartialEq)]
pub struct HealthLane {
    /// The worst state per bucket.
    pub states: Vec<Health>,
    /// Per bucket, observed routes that `on` would have sent here while not known healthy.
    pub unhealthy_picks: Vec<u32>,
}

/// What is known of one line while walking the trace.
#[derive(Default)]
struct Known {
    /// Whether the latest outcome was a line fault (`None`: no outcome yet).
    fault: Option<bool>,
    /// Breaker: open until this time, then half-open (`None`: closed).
    open_until: Option<u64>,
    /// (time, state) every time the state may have changed.
    changes: Vec<(u64, Health)>,
}

impl Known {
    fn state(&self, at: u64) -> Health {
        match (self.open_until, self.fault) {
            (Some(until), _) if at < until => Health::Open,
            (Some(_), _) | (None, Some(true)) => Health::Failing,
            (None, Some(false)) => Health::Healthy,
            (None, None) => Health::Unknown,
        }
    }

    /// Records the end of an open breaker's cooldown if it came before `at`.
    fn catch_up(&mut self, at: u64) {
        if let Some(until) = self.open_until.filter(|u| *u <= at) {
            if self.changes.last().is_none_or(|c| c.0 < until) {
                let s = self.state(until);
                self.changes.push((until, s));
            }
        }
    }
}

/// The health lanes of `records` (a recorded run, relative times) for `lanes` (pool,
/// line) on an axis of `end_ms`, in the same order.
pub fn build(records: &[TraceEvent], lanes: &[(String, String)], end_ms: u64) -> Vec<HealthLane> {
    let bucket = bucket_ms(end_ms);
    let slot = |at: u64| slot(at, bucket);
    let index = lane_index(lanes);
    let mut known: Vec<Known> = lanes.iter().map(|_| Known::default()).collect();
    let mut picks = vec![vec![0u32; BUCKETS]; lanes.len()];
    for r in records {
        if let TraceBody::Route(route) = &r.body {
            if let Some(WouldTrace {
                line: Some(would_line),
                healthy: false,
                ..
            }) = &route.would
            {
                let biz = route.biz.as_deref().unwrap_or("");
                let pool = format!("{biz}/{}", route.protocol.as_str());
                if let Some(&i) = index.get(&(pool, would_line.clone())) {
                    picks[i][slot(r.at_ms)] += 1;
                }
            }
        }
        let Some((biz, protocol, line)) = r.line_key() else {
            continue;
        };
        let pool = format!("{biz}/{}", protocol.as_str());
        let Some(&i) = index.get(&(pool, line.to_string())) else {
            continue;
        };
        let k = &mut known[i];
        k.catch_up(r.at_ms);
        match &r.body {
            TraceBody::Report(a) | TraceBody::Probe(a) => k.fault = Some(a.is_line_fault()),
            TraceBody::Breaker(b) => {
                k.open_until = match b.state {
                    BreakerState::Open => Some(r.at_ms.saturating_add(b.cooldown_ms.unwrap_or(0))),
                    BreakerState::HalfOpen => Some(r.at_ms),
                    BreakerState::Closed => None,
                };
            }
            _ => continue,
        }
        let s = k.state(r.at_ms);
        k.changes.push((r.at_ms, s));
    }
    known
        .iter_mut()
        .zip(picks)
        .map(|(k, unhealthy_picks)| {
            k.catch_up(end_ms);
            let mut states = Vec::with_capacity(BUCKETS);
            let mut state = Health::Unknown;
            let mut next = k.changes.iter().peekable();
            for b in 0..BUCKETS as u64 {
                let (from, to) = (b.saturating_mul(bucket), (b + 1).saturating_mul(bucket));
                // Changes at the bucket's very start replace the state carried in.
                while let Some((_, s)) = next.next_if(|c| c.0 <= from) {
                    state = *s;
                }
                let mut worst = state;
                while let Some((_, s)) = next.next_if(|c| c.0 < to) {
                    state = *s;
                    worst = worst.max(state);
                }
                states.push(worst);
            }
            HealthLane {
                states,
                unhealthy_picks,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::line::{Outcome, Protocol, Timings};
    use linekit_core::trace::{AttemptTrace, BreakerTrace, TraceLine};

    fn attempt(at: u64, probe: bool, outcome: Outcome) -> TraceEvent {
        let a = AttemptTrace {
            on: TraceLine::new("spot", Protocol::Http, "a"),
            outcome,
            status: None,
            timings: Timings::default(),
            total_ms: None,
        };
        TraceEvent::new(
            at,
            if probe {
                TraceBody::Probe(a)
            } else {
                TraceBody::Report(a)
            },
        )
    }

    fn breaker(at: u64, state: BreakerState, cooldown_ms: Option<u64>) -> TraceEvent {
        TraceEvent::new(
            at,
            TraceBody::Breaker(BreakerTrace {
                on: TraceLine::new("spot", Protocol::Http, "a"),
                state,
                cooldown_ms,
                detail: None,
            }),
        )
    }

    #[test]
    fn a_line_is_unknown_then_healthy_then_open_then_failing_until_it_answers() {
        let ok = attempt(100, true, Outcome::Ok);
        let refused = attempt(1_000, false, Outcome::ConnectRefused);
        let open = breaker(1_000, BreakerState::Open, Some(500));
        let back = attempt(2_000, true, Outcome::Ok);
        let closed = breaker(2_000, BreakerState::Closed, None);
        let lanes = [("spot/http".to_string(), "a".to_string())];
        // 2400 ms over 240 buckets: 10 ms each.
        let h = build(&[ok, refused, open, back, closed], &lanes, 2_400);
        let s = &h[0].states;
        assert_eq!(s[5], Health::Unknown);
        assert_eq!(s[10], Health::Healthy);
        assert_eq!(s[100], Health::Open);
        assert_eq!(s[149], Health::Open);
        assert_eq!(s[150], Health::Failing, "half-open after the cooldown");
        assert_eq!(s[199], Health::Failing);
        assert_eq!(s[201], Health::Healthy);
    }
}
