//! The `--compare` summary: the same measures computed on the recorded run and on the
//! replayed one, both from their traces.
//!
//! - `requests`: calls (first attempts put on a line).
//! - `requests_on_failing_lines`: attempts whose outcome was a line fault.
//! - `failed_requests`: calls whose last attempt was reported and did not succeed.
//! - `retries`: attempts after the first, within calls.
//! - `switches`: consecutive calls of one pool on different lines.
//! - `probes`: finished probes.
//! - `breaker_opens`: breakers that opened (any line).
//! - `time_to_open_ms`: from the outage's first fault to its line's breaker opening.
//! - `time_to_move_away_ms` / `time_to_move_back_ms`: in the busiest pool, from the first
//!   line fault seen on its preferred line (the first call's line) to the first call on
//!   another line; and from the first success on the preferred line after its last fault
//!   to the first call back on it. Both moments come from the recording, so the two runs
//!   are timed against the same outage; `null` when the run never moved (or never came
//!   back).

use super::rebuild::{index, Call, LineKey, Rebuilt};
use linekit_core::line::BreakerState;
use linekit_core::line::Protocol;
use linekit_core::trace::TraceEvent;
use linekit_core::trace::{TraceBody, TraceKind};
use serde::Serialize;
use std::collections::HashMap;

/// The outage the move-away/back times are measured against.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Outage {
    /// `biz/protocol` of the busiest pool.
    pub pool: String,
    /// Its preferred line (where the first call went).
    pub line: String,
    /// First line fault on it.
    pub from_ms: u64,
    /// First success on it after its last fault.
    pub recovered_ms: Option<u64>,
}

/// Measures of one run.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct RunSummary {
    /// Calls.
    pub requests: usize,
    /// Attempts that met a line fault.
    pub requests_on_failing_lines: usize,
    /// Calls whose last attempt did not succeed.
    pub failed_requests: usize,
    /// Attempts after the first.
    pub retries: usize,
    /// Line changes between consecutive calls of a pool.
    pub switches: usize,
    /// Finished probes.
    pub probes: usize,
    /// Breakers that opened.
    pub breaker_opens: usize,
    /// From the outage's first fault to the preferred line's breaker opening.
    pub time_to_open_ms: Option<u64>,
    /// From the outage's first fault to the first call elsewhere.
    pub time_to_move_away_ms: Option<u64>,
    /// From the preferred line's recovery to the first call back on it.
    pub time_to_move_back_ms: Option<u64>,
    /// Attempts whose outcome was inferred (replayed run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred_attempts: Option<usize>,
    /// Probes whose answer was inferred (replayed run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred_probes: Option<usize>,
}

/// The outage of the recording's busiest pool, if its preferred line ever faulted.
pub fn outage(recorded: &Rebuilt) -> Option<Outage> {
    let mut per_pool: HashMap<(String, Protocol), usize> = HashMap::new();
    for c in &recorded.calls {
        *per_pool.entry((c.biz.clone(), c.protocol)).or_default() += 1;
    }
    let ((biz, protocol), _) = per_pool
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
    let first = recorded
        .calls
        .iter()
        .find(|c| c.biz == biz && c.protocol == protocol)?;
    let line = first.attempts[0].line.clone();
    let key: LineKey = (biz.clone(), protocol, line.clone());
    let mut evidence: Vec<(u64, bool)> = Vec::new();
    for c in recorded
        .calls
        .iter()
        .filter(|c| c.biz == biz && c.protocol == protocol)
    {
        for a in c.attempts.iter().filter(|a| a.line == line) {
            if let Some(r) = &a.result {
                evidence.push((r.at, r.outcome.is_line_fault(r.status)));
            }
        }
    }
    for p in recorded.probes.iter().filter(|p| p.key == key) {
        evidence.push((p.result.at, p.result.outcome.is_line_fault(p.result.status)));
    }
    evidence.sort();
    let from_ms = evidence.iter().find(|e| e.1)?.0;
    let last_fault = evidence.iter().rev().find(|e| e.1)?.0;
    let recovered_ms = evidence
        .iter()
        .find(|e| e.0 > last_fault && !e.1)
        .map(|e| e.0);
    Some(Outage {
        pool: format!("{biz}/{protocol}"),
        line,
        from_ms,
        recovered_ms,
    })
}

/// The measures of a run given by its (relative-time) records.
pub fn summarize(records: &[TraceEvent], outage: Option<&Outage>) -> RunSummary {
    let run = index(records);
    let mut s = RunSummary {
        requests: run.calls.len(),
        probes: records
            .iter()
            .filter(|r| r.kind() == TraceKind::Probe)
            .count(),
        breaker_opens: records.iter().filter(|r| is_open(r)).count(),
        ..RunSummary::default()
    };
    let mut last_line: HashMap<(String, Protocol), String> = HashMap::new();
    for c in &run.calls {
        s.retries += c.attempts.len() - 1;
        s.requests_on_failing_lines += c
            .attempts
            .iter()
            .filter(|a| {
                a.result
                    .as_ref()
                    .is_some_and(|r| r.outcome.is_line_fault(r.status))
            })
            .count();
        let failed = c
            .attempts
            .last()
            .and_then(|a| a.result.as_ref())
            .is_some_and(|r| r.outcome != linekit_core::line::Outcome::Ok);
        s.failed_requests += usize::from(failed);
        let line = &c.attempts[0].line;
        if let Some(prev) = last_line.insert((c.biz.clone(), c.protocol), line.clone()) {
            s.switches += usize::from(prev != *line);
        }
    }
    if let Some(o) = outage {
        s.time_to_open_ms = records
            .iter()
            .find(|r| {
                is_open(r)
                    && r.at_ms >= o.from_ms
                    && r.line_key().is_some_and(|(biz, protocol, line)| {
                        line == o.line && format!("{biz}/{}", protocol.as_str()) == o.pool
                    })
            })
            .map(|r| r.at_ms - o.from_ms);
        let in_pool = |c: &&Call| format!("{}/{}", c.biz, c.protocol) == o.pool;
        let away = run
            .calls
            .iter()
            .filter(in_pool)
            .find(|c| c.at() >= o.from_ms && c.attempts[0].line != o.line)
            .map(Call::at);
        s.time_to_move_away_ms = away.map(|a| a - o.from_ms);
        if let (Some(away), Some(recovered)) = (away, o.recovered_ms) {
            s.time_to_move_back_ms = run
                .calls
                .iter()
                .filter(in_pool)
                .find(|c| c.at() >= away.max(recovered) && c.attempts[0].line == o.line)
                .map(|c| c.at() - recovered);
        }
    }
    s
}

fn is_open(r: &TraceEvent) -> bool {
    matches!(&r.body, TraceBody::Breaker(b) if b.state == BreakerState::Open)
}
