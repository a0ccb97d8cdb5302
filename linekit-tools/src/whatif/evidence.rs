//! What the trace says about a line near a moment: every report and probe result on it,
//! sorted by time, searched for the one nearest to the moment within a window.
//!
//! When a replayed policy sends a request (or a probe) to a line the recording did not try
//! for that request, its outcome is taken from the nearest evidence about that line no
//! further than `window_ms` away, earlier evidence winning a tie. With no evidence in the
//! window the line is assumed healthy (`ok`): the recording had no reason to suspect it.
//! Either way the result is marked inferred.

use super::rebuild::{LineKey, Observed, Rebuilt};
use std::collections::HashMap;

/// Results per line, sorted by time.
#[derive(Debug, Default)]
pub struct Evidence {
    by_line: HashMap<LineKey, Vec<Observed>>,
}

impl Evidence {
    /// Indexes every attempt result, probe and unmatched report of a rebuilt trace.
    pub fn of(rebuilt: &Rebuilt) -> Self {
        let mut by_line: HashMap<LineKey, Vec<Observed>> = HashMap::new();
        for call in &rebuilt.calls {
            for a in &call.attempts {
                if let Some(r) = &a.result {
                    by_line
                        .entry((call.biz.clone(), call.protocol, a.line.clone()))
                        .or_default()
                        .push(r.clone());
                }
            }
        }
        for p in &rebuilt.probes {
            by_line
                .entry(p.key.clone())
                .or_default()
                .push(p.result.clone());
        }
        for (key, r) in &rebuilt.orphan_reports {
            by_line.entry(key.clone()).or_default().push(r.clone());
        }
        for list in by_line.values_mut() {
            list.sort_by_key(|r| (r.at, r.seq));
        }
        Evidence { by_line }
    }

    /// The result nearest to `at` on `key`, at most `window_ms` away.
    pub fn nearest(&self, key: &LineKey, at: u64, window_ms: u64) -> Option<&Observed> {
        let list = self.by_line.get(key)?;
        let i = list.partition_point(|r| r.at < at);
        let after = list.get(i);
        let before = i.checked_sub(1).and_then(|j| list.get(j));
        let best = match (before, after) {
            (Some(b), Some(a)) => {
                if at - b.at <= a.at - at {
                    b
                } else {
                    a
                }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => return None,
        };
        (best.at.abs_diff(at) <= window_ms).then_some(best)
    }
}
