//! The counterfactual of an `observe` trace: what the policy (in mode `on`) would have
//! changed for the requests that were only observed.
//!
//! Under `observe` every request went to its original URL, so the trace holds one outcome
//! per request: the origin line's. The what-if [`driver`](super::driver) routes each of
//! those requests under the policy; every attempt it makes on the origin line gets the
//! recorded outcome, every attempt on another line an outcome inferred from that line's
//! nearest evidence (a probe result, or another request on that line, within the evidence
//! window; with none the line is assumed healthy — see [`Evidence`](super::evidence)). This
//! module pairs each observed request with its replayed self and counts:
//!
//! - **saved**: requests that failed as observed and would have succeeded under the policy;
//! - **lost**: the reverse (a move onto a line that turned out worse);
//! - **moved**: requests the policy would have had served by another line than the one
//!   that served them (the origin);
//! - **latency**: the sum, over requests with both outcomes, of the replayed time from
//!   arrival to the last report minus the recorded one (negative: time saved);
//!
//! each split into requests whose replayed outcome rests only on recorded outcomes and
//! requests where at least one attempt was inferred. A request the policy leaves on its
//! original URL keeps its recorded outcome. A request is failed when its last attempt was
//! reported and did not succeed (as in [`summary`](super::summary)); one whose last attempt
//! was never reported (the trace ended) counts in neither outcome. Only requests recorded
//! under `observe` take part: a trace without any has no counterfactual.

use super::driver::ReplayedAttempt;
use super::evidence::Basis;
use super::rebuild::{Call, Observed};
use linekit_core::line::Outcome;
use serde::Serialize;

/// A request the policy would have saved (or lost), named by its recorded route event.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Named {
    /// `seq` of the request's route event in the recorded trace.
    pub seq: u64,
    /// Its arrival (ms, relative to the trace's first event).
    pub at: u64,
    /// `biz/protocol`.
    pub pool: String,
    /// The line that served it as recorded.
    pub line: String,
    /// Its recorded outcome.
    pub outcome: String,
    /// The line that would have served it under the policy.
    pub on_line: String,
    /// Its outcome under the policy.
    pub on_outcome: String,
    /// What the policy's outcome rests on: `recorded`, or the latest inferred attempt's
    /// evidence (`probe`, `traffic`, `assumed`).
    pub basis: Basis,
}

/// Requests of one kind, split by what they rest on.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Split {
    /// All of them.
    pub requests: usize,
    /// Resting only on recorded outcomes.
    pub recorded: usize,
    /// With at least one inferred outcome.
    pub inferred: usize,
}

impl Split {
    fn add(&mut self, inferred: bool) {
        self.requests += 1;
        if inferred {
            self.inferred += 1;
        } else {
            self.recorded += 1;
        }
    }
}

/// Saved or lost requests, counted and named.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Changed {
    /// Counts.
    #[serde(flatten)]
    pub split: Split,
    /// Each request, in arrival order.
    pub list: Vec<Named>,
}

/// Latency change (replayed minus recorded, ms), in total and by what it rests on.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Latency {
    /// Requests with both outcomes reported.
    pub requests: usize,
    /// Their total recorded time (arrival to last report).
    pub observed_ms: u64,
    /// Their total replayed time.
    pub on_ms: u64,
    /// `on_ms - observed_ms`: positive is time added, negative time saved.
    pub change_ms: i64,
    /// The part of the change from requests resting only on recorded outcomes.
    pub recorded_ms: i64,
    /// The part from requests with an inferred outcome.
    pub inferred_ms: i64,
}

/// Failed requests of one run.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Failed {
    /// As observed.
    pub observed: usize,
    /// Under the policy.
    pub on: usize,
}

/// The counterfactual of the observed requests of a trace.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Counterfactual {
    /// Requests recorded under `observe`.
    pub requests: usize,
    /// Failed requests, as observed and under the policy.
    pub failed: Failed,
    /// Failed as observed, would have succeeded.
    pub saved: Changed,
    /// Succeeded as observed, would have failed.
    pub lost: Changed,
    /// Would have been served by another line.
    pub moved: Split,
    /// Time added (positive) or saved (negative).
    pub latency: Latency,
    /// Inferred attempts of these requests by evidence: `probe`, `traffic`, `assumed`.
    pub inferred_attempts: InferredBy,
}

/// Inferred attempts by the evidence they rest on.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct InferredBy {
    /// A probe of the line.
    pub probe: usize,
    /// Another request on the line.
    pub traffic: usize,
    /// No evidence in the window: assumed healthy.
    pub assumed: usize,
}

/// `Some(true)` for a reported success, `Some(false)` for a reported failure.
fn succeeded(result: Option<&Observed>) -> Option<bool> {
    result.map(|r| r.outcome == Outcome::Ok)
}

/// The counterfactual of the `observe` calls of `recorded`, whose replayed attempts are
/// `replayed` (same index); `None` when no call was recorded under `observe`.
pub fn compute(recorded: &[Call], replayed: &[Vec<ReplayedAttempt>]) -> Option<Counterfactual> {
    let mut cf = Counterfactual::default();
    let mut any = false;
    for (call, attempts) in recorded.iter().zip(replayed) {
        if !call.observed() {
            continue;
        }
        any = true;
        cf.requests += 1;
        let (Some(first), Some(last)) = (call.attempts.first(), call.attempts.last()) else {
            continue;
        };
        // A call the policy put on no line kept its URL, and so its recorded outcome.
        let (on_line, on_result) = match attempts.last() {
            Some(a) => (a.line.as_str(), a.result.as_ref()),
            None => (last.line.as_str(), last.result.as_ref()),
        };
        let basis = attempts
            .iter()
            .rev()
            .map(|a| a.basis)
            .find(|b| b.is_inferred())
            .unwrap_or(Basis::Recorded);
        let inferred = basis.is_inferred();
        for a in attempts {
            match a.basis {
                Basis::Probe => cf.inferred_attempts.probe += 1,
                Basis::Traffic => cf.inferred_attempts.traffic += 1,
                Basis::Assumed => cf.inferred_attempts.assumed += 1,
                Basis::Recorded => {}
            }
        }
        let was = succeeded(last.result.as_ref());
        let would = succeeded(on_result);
        cf.failed.observed += usize::from(was == Some(false));
        cf.failed.on += usize::from(would == Some(false));
        if on_line != last.line {
            cf.moved.add(inferred);
        }
        let named = || Named {
            seq: first.seq,
            at: first.at,
            pool: format!("{}/{}", call.biz, call.protocol),
            line: last.line.clone(),
            outcome: last
                .result
                .as_ref()
                .map_or("", |r| r.outcome.as_str())
                .to_string(),
            on_line: on_line.to_string(),
            on_outcome: on_result.map_or("", |r| r.outcome.as_str()).to_string(),
            basis,
        };
        match (was, would) {
            (Some(false), Some(true)) => {
                cf.saved.split.add(inferred);
                cf.saved.list.push(named());
            }
            (Some(true), Some(false)) => {
                cf.lost.split.add(inferred);
                cf.lost.list.push(named());
            }
            _ => {}
        }
        if let (Some(r), Some(o)) = (&last.result, on_result) {
            let observed = r.at.saturating_sub(first.at);
            let on = o.at.saturating_sub(first.at);
            let signed = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
            let change = signed(on).saturating_sub(signed(observed));
            let l = &mut cf.latency;
            l.requests += 1;
            l.observed_ms = l.observed_ms.saturating_add(observed);
            l.on_ms = l.on_ms.saturating_add(on);
            l.change_ms = l.change_ms.saturating_add(change);
            if inferred {
                l.inferred_ms = l.inferred_ms.saturating_add(change);
            } else {
                l.recorded_ms = l.recorded_ms.saturating_add(change);
            }
        }
    }
    any.then_some(cf)
}
