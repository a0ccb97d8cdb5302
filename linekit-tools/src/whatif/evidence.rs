//! What the trace says about a line near a moment: every report and probe result on it,
//! sorted by time, searched for the one nearest to the moment within a window.
//!
//! When a replayed policy sends a request (or a probe) to a line the recording did not try
//! for that request, its outcome is taken from the nearest evidence about that line no
//! further than `window_ms` away, earlier evidence winning a tie. With no evidence in the
//! window the line is assumed healthy (`ok`): the recording had no reason to suspect it.
//! Either way the result is marked inferred, and [`Basis`] says what it rests on: a probe,
//! the line's other traffic, or nothing (assumed healthy).

use super::rebuild::{LineKey, Observed, Rebuilt};
use serde::Serialize;
use std::collections::HashMap;

/// What the outcome of a replayed attempt rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The recording tried the same line for the same call: its outcome is the recorded one.
    Recorded,
    /// Inferred from a probe of that line.
    Probe,
    /// Inferred from another request on that line.
    Traffic,
    /// No evidence within the window: the line was assumed healthy.
    Assumed,
}

impl Basis {
    /// Whether the outcome was inferred rather than recorded.
    pub fn is_inferred(self) -> bool {
        self != Basis::Recorded
    }
}

/// Results per line, sorted by time, each with where it came from.
#[derive(Debug, Default)]
pub struct Evidence {
    by_line: HashMap<LineKey, Vec<(Observed, Basis)>>,
}

impl Evidence {
    /// Indexes every attempt result, probe and unmatched report of a rebuilt trace.
    pub fn of(rebuilt: &Rebuilt) -> Self {
        let mut by_line: HashMap<LineKey, Vec<(Observed, Basis)>> = HashMap::new();
        for call in &rebuilt.calls {
            for a in &call.attempts {
                if let Some(r) = &a.result {
                    by_line
                        .entry((call.biz.clone(), call.protocol, a.line.clone()))
                        .or_default()
                        .push((r.clone(), Basis::Traffic));
                }
            }
        }
        for p in &rebuilt.probes {
            by_line
                .entry(p.key.clone())
                .or_default()
                .push((p.result.clone(), Basis::Probe));
        }
        for (key, r) in &rebuilt.orphan_reports {
            by_line
                .entry(key.clone())
                .or_default()
                .push((r.clone(), Basis::Traffic));
        }
        for list in by_line.values_mut() {
            list.sort_by_key(|(r, _)| (r.at, r.seq));
        }
        Evidence { by_line }
    }

    /// The result nearest to `at` on `key`, at most `window_ms` away, with its source
    /// ([`Basis::Probe`] or [`Basis::Traffic`]).
    pub fn nearest(&self, key: &LineKey, at: u64, window_ms: u64) -> Option<(&Observed, Basis)> {
        let list = self.by_line.get(key)?;
        let i = list.partition_point(|(r, _)| r.at < at);
        let after = list.get(i);
        let before = i.checked_sub(1).and_then(|j| list.get(j));
        let best = match (before, after) {
            (Some(b), Some(a)) => {
                if at - b.0.at <= a.0.at - at {
                    b
                } else {
                    a
                }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => return None,
        };
        (best.0.at.abs_diff(at) <= window_ms).then_some((&best.0, best.1))
    }
}
