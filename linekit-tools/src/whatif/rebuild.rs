//! Rebuilding a scenario from a trace: which requests came and when (calls), what each
//! line did when it was tried (attempts with their reported outcome), and the evidence
//! about every line over time (reports and probes).
//!
//! Times are made relative to the trace's first event, which is the engine's `start`
//! event when the recording began with the engine (the replay then starts its engine at
//! time 0 like the recorded one). A call is a route event with `attempt` 0; a route with a
//! higher attempt is a retry of the latest call of the same business line and pool that
//! has made that many attempts — the one that tried exactly the lines the retry excluded,
//! when the route says. A report belongs to the earliest attempt on its line
//! (business line, pool, line id) that has no report yet. Routes that put no request on a
//! line (unmanaged, keep-original, fixed host) are not calls: no policy changes them; nor
//! is a retry routed back onto a line its call already tried (it is not sent).

use linekit_core::line::{Outcome, Protocol, Timings};
use linekit_core::trace::format::Trace;
use linekit_core::trace::{AttemptTrace, TraceBody, TraceEvent, TraceNetwork};
use std::collections::{HashMap, VecDeque};

/// A line of one pool: (business line, pool, line id).
pub type LineKey = (String, Protocol, String);

/// The reported result of one attempt or probe.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// Time of the report (relative ms).
    pub at: u64,
    /// Order in the trace (its `seq`).
    pub seq: u64,
    /// Outcome.
    pub outcome: Outcome,
    /// HTTP status.
    pub status: Option<u16>,
    /// Total cost (ms).
    pub cost_ms: u64,
    /// Phase times.
    pub timings: Timings,
}

/// One attempt of a recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// Time of the routing decision.
    pub at: u64,
    /// Order in the trace.
    pub seq: u64,
    /// Line it went to.
    pub line: String,
    /// Its report, if one came.
    pub result: Option<Observed>,
}

/// One recorded call: a request and its attempts.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Business line.
    pub biz: String,
    /// Pool.
    pub protocol: Protocol,
    /// HTTP method.
    pub method: String,
    /// Rollout mode the call was routed under (`off`, `observe`, `on`), when recorded.
    pub mode: Option<String>,
    /// Attempts in order (the first is the arrival).
    pub attempts: Vec<Attempt>,
}

impl Call {
    /// Arrival time.
    pub fn at(&self) -> u64 {
        self.attempts[0].at
    }

    /// Whether the call was recorded under `observe`: it went to its original URL.
    pub fn observed(&self) -> bool {
        self.mode.as_deref() == Some("observe")
    }

    /// Whether the call may be retried on another line: an idempotent method, or the
    /// recording shows it was retried (it carried an idempotency key).
    pub fn retryable(&self) -> bool {
        matches!(
            self.method.to_ascii_uppercase().as_str(),
            "GET" | "HEAD" | "PUT" | "DELETE" | "OPTIONS" | "TRACE"
        ) || self.attempts.len() > 1
    }
}

/// A finished probe.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The line probed.
    pub key: LineKey,
    /// When it started (finish time minus its cost).
    pub started: u64,
    /// Its result (at = finish time).
    pub result: Observed,
}

/// A step the replay performs as recorded: the platform's network and the kill switch.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldStep {
    /// A network change.
    Network(TraceNetwork),
    /// The runtime kill switch.
    Downgrade(bool),
}

/// Everything a what-if replay needs from a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    /// The install's seed.
    pub seed: u64,
    /// Monotonic time of the first event (the origin of relative times).
    pub origin_ms: u64,
    /// Calls in arrival order.
    pub calls: Vec<Call>,
    /// Probes in finish order.
    pub probes: Vec<Probe>,
    /// Reports that matched no attempt (kept as evidence).
    pub orphan_reports: Vec<(LineKey, Observed)>,
    /// Network and kill-switch steps with their time and order.
    pub world: Vec<(u64, u64, WorldStep)>,
    /// The records with relative times (the recorded run).
    pub records: Vec<TraceEvent>,
}

fn result_of(r: &TraceEvent, a: &AttemptTrace) -> Observed {
    Observed {
        at: r.at_ms,
        seq: r.seq,
        outcome: a.outcome,
        status: a.status,
        cost_ms: a.total_ms.unwrap_or(0),
        timings: a.timings,
    }
}

fn key_of(a: &AttemptTrace) -> LineKey {
    (a.on.biz.clone(), a.on.protocol, a.on.line.clone())
}

/// Rebuilds calls, probes and world steps from a checked trace, making its times
/// relative to its first event.
pub fn rebuild(trace: Trace) -> Rebuilt {
    let seed = trace.seed();
    let mut records = trace.records;
    let origin_ms = records.first().map_or(0, |r| r.at_ms);
    for r in &mut records {
        r.at_ms -= origin_ms;
    }
    let parts = index(&records);
    Rebuilt {
        seed,
        origin_ms,
        calls: parts.calls,
        probes: parts.probes,
        orphan_reports: parts.orphan_reports,
        world: parts.world,
        records,
    }
}

/// What [`index`] finds in a run's records.
#[derive(Debug, Default)]
pub struct Parts {
    /// Calls in arrival order.
    pub calls: Vec<Call>,
    /// Probes in finish order.
    pub probes: Vec<Probe>,
    /// Reports that matched no attempt.
    pub orphan_reports: Vec<(LineKey, Observed)>,
    /// Network and kill-switch steps.
    pub world: Vec<(u64, u64, WorldStep)>,
}

/// Groups a run's records (in trace order) into calls, probes and world steps.
pub fn index(records: &[TraceEvent]) -> Parts {
    let mut calls: Vec<Call> = Vec::new();
    // Per (biz, pool): indexes of calls still open to retries, newest last.
    let mut open_calls: HashMap<(String, Protocol), Vec<usize>> = HashMap::new();
    // Per line: (call, attempt) waiting for a report, oldest first.
    let mut waiting: HashMap<LineKey, VecDeque<(usize, usize)>> = HashMap::new();
    let mut probes = Vec::new();
    let mut orphan_reports = Vec::new();
    let mut world = Vec::new();
    for r in records {
        match &r.body {
            TraceBody::Route(route) => {
                let (Some(biz), Some(line)) = (&route.biz, &route.line) else {
                    continue;
                };
                let protocol = route.protocol;
                let attempt = route.attempt.unwrap_or(0) as usize;
                let pool = (biz.clone(), protocol);
                let index = if attempt == 0 {
                    calls.push(Call {
                        biz: biz.clone(),
                        protocol,
                        method: route.method.clone().unwrap_or_else(|| "GET".to_string()),
                        mode: route.mode.map(|m| m.as_str().to_string()),
                        attempts: Vec::new(),
                    });
                    let i = calls.len() - 1;
                    let open = open_calls.entry(pool).or_default();
                    open.push(i);
                    // Retries follow their call closely; older calls take no more.
                    if open.len() > 256 {
                        open.drain(..128);
                    }
                    i
                } else {
                    let open = open_calls.entry(pool).or_default();
                    // The call whose tried lines are the ones this retry excluded (several
                    // calls of a pool may be in flight), else the latest with as many
                    // attempts.
                    let tried_exactly = |c: usize| {
                        route.exclude.as_ref().is_some_and(|ex| {
                            calls[c].attempts.len() == ex.len()
                                && calls[c].attempts.iter().all(|a| ex.contains(&a.line))
                        })
                    };
                    let found = open.iter().rev().find(|&&c| tried_exactly(c)).or_else(|| {
                        open.iter()
                            .rev()
                            .find(|&&c| calls[c].attempts.len() == attempt)
                    });
                    match found {
                        // A retry routed back onto a line the call already tried
                        // (nothing else left) is not sent.
                        Some(&c) if calls[c].attempts.iter().any(|a| a.line == *line) => continue,
                        Some(&c) => c,
                        None => continue,
                    }
                };
                calls[index].attempts.push(Attempt {
                    at: r.at_ms,
                    seq: r.seq,
                    line: line.clone(),
                    result: None,
                });
                waiting
                    .entry((biz.clone(), protocol, line.clone()))
                    .or_default()
                    .push_back((index, calls[index].attempts.len() - 1));
            }
            TraceBody::Report(a) => {
                let key = key_of(a);
                match waiting.get_mut(&key).and_then(VecDeque::pop_front) {
                    Some((c, i)) => calls[c].attempts[i].result = Some(result_of(r, a)),
                    None => orphan_reports.push((key, result_of(r, a))),
                }
            }
            TraceBody::Probe(a) => {
                let result = result_of(r, a);
                probes.push(Probe {
                    key: key_of(a),
                    started: r.at_ms.saturating_sub(result.cost_ms),
                    result,
                });
            }
            TraceBody::Network(n) => {
                world.push((r.at_ms, r.seq, WorldStep::Network(n.clone())));
            }
            TraceBody::Downgrade(on) => {
                world.push((r.at_ms, r.seq, WorldStep::Downgrade(*on)));
            }
            TraceBody::Breaker(_)
            | TraceBody::Config(_)
            | TraceBody::Warm(_)
            | TraceBody::Start { .. } => {}
        }
    }
    Parts {
        calls,
        probes,
        orphan_reports,
        world,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::trace::format::read_trace;

    #[test]
    fn a_retry_joins_the_call_that_tried_the_lines_it_excluded() {
        let route = |seq: u64, line: &str, exclude: &str| {
            let (attempt, ex) = if exclude.is_empty() {
                (0, String::new())
            } else {
                (1, format!(r#","exclude":["{exclude}"]"#))
            };
            format!(
                r#"{{"kind":"route","at_ms":{seq},"install":"1","seq":{seq},"biz":"spot","line":"{line}","reason":"sticky","attempt":{attempt}{ex}}}"#
            )
        };
        let report = |seq: u64, line: &str, outcome: &str| {
            format!(
                r#"{{"kind":"report","at_ms":{seq},"install":"1","seq":{seq},"biz":"spot","line":"{line}","outcome":"{outcome}","total_ms":1}}"#
            )
        };
        // Call A on x, call B on y; x fails and A retries on z while B is still open.
        let text = [
            route(0, "x", ""),
            route(1, "y", ""),
            report(2, "x", "connect_refused"),
            route(3, "z", "x"),
            report(4, "y", "ok"),
            report(5, "z", "ok"),
        ]
        .join("\n");
        let parts = index(&read_trace(&text).unwrap().records);
        let lines =
            |c: &Call| -> Vec<String> { c.attempts.iter().map(|a| a.line.clone()).collect() };
        assert_eq!(lines(&parts.calls[0]), ["x", "z"]);
        assert_eq!(lines(&parts.calls[1]), ["y"]);
        assert!(parts
            .calls
            .iter()
            .all(|c| c.attempts.iter().all(|a| a.result.is_some())));
    }
}
