//! What-if replays: re-running the traffic of a recorded trace under another policy.
//!
//! `linekit replay --from-trace TRACE.jsonl --config POLICY.json` reads and checks the
//! trace ([`linekit_core::trace::format::read_trace`]), rebuilds the calls, probes and world
//! changes it recorded ([`rebuild`]), re-runs them on the real engine under the policy
//! ([`driver`]; outcomes of lines the recording did not try come from [`evidence`]), and
//! can compare both runs ([`summary`]) and draw them as a timeline ([`timeline`],
//! [`html`]). For requests recorded under the rollout mode `observe` it also says what the
//! policy would have saved, moved and cost ([`counterfactual`]), and draws the line health
//! known at the time ([`health`]). `docs/trace-format.md` documents the trace and the
//! inference rules.

pub mod counterfactual;
pub mod driver;
pub mod evidence;
pub mod health;
pub mod html;
pub mod rebuild;
pub mod summary;
pub mod timeline;

use linekit_core::trace::format::read_trace;
use linekit_core::trace::TraceEvent;
use linekit_core::{Error, Result};
use std::io::Write;
use std::sync::OnceLock;

/// What a what-if replay produced besides its JSON Lines.
#[derive(Debug)]
pub struct WhatIf {
    /// The recorded run (times relative to the trace's first event).
    pub recorded: Vec<TraceEvent>,
    /// The replayed run.
    pub replayed: driver::Replayed,
    /// The outage both runs are timed against.
    pub outage: Option<summary::Outage>,
    /// What the policy would have changed for the requests recorded under `observe`
    /// (`None` when the trace has none).
    pub counterfactual: Option<counterfactual::Counterfactual>,
    summaries: OnceLock<(summary::RunSummary, summary::RunSummary)>,
}

impl WhatIf {
    /// The measures of the recorded and the replayed run (computed once).
    pub fn summaries(&self) -> &(summary::RunSummary, summary::RunSummary) {
        self.summaries.get_or_init(|| {
            let recorded = summary::summarize(&self.recorded, self.outage.as_ref());
            let mut replayed = summary::summarize(&self.replayed.records, self.outage.as_ref());
            replayed.inferred_attempts = Some(self.replayed.inferred_attempts);
            replayed.inferred_probes = Some(self.replayed.inferred_probes);
            (recorded, replayed)
        })
    }

    /// The `{"op":"compare",..}` line.
    pub fn compare_line(&self) -> serde_json::Value {
        let (recorded, replayed) = self.summaries();
        serde_json::json!({
            "at": self.replayed.end_ms,
            "op": "compare",
            "outage": self.outage,
            "recorded": recorded,
            "replayed": replayed,
        })
    }

    /// The `{"op":"counterfactual",..}` line, for a trace with requests recorded under
    /// `observe`.
    pub fn counterfactual_line(&self) -> Option<serde_json::Value> {
        let cf = self.counterfactual.as_ref()?;
        let mut line = serde_json::json!({"at": self.replayed.end_ms, "op": "counterfactual"});
        if let (Some(map), Ok(serde_json::Value::Object(fields))) =
            (line.as_object_mut(), serde_json::to_value(cf))
        {
            map.extend(fields);
        }
        Some(line)
    }
}

/// Re-runs the trace `trace_text` under the config `policy_json`, writing the replay's
/// JSON Lines to `out`. A bad trace fails before anything is written.
pub fn run(
    trace_text: &str,
    policy_json: &str,
    evidence_window_ms: u64,
    out: &mut dyn Write,
) -> Result<WhatIf> {
    let trace = read_trace(trace_text).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let rebuilt = rebuild::rebuild(trace);
    let outage = summary::outage(&rebuilt);
    let replayed = driver::drive(&rebuilt, policy_json, evidence_window_ms, out)?;
    let counterfactual = counterfactual::compute(&rebuilt.calls, &replayed.calls);
    Ok(WhatIf {
        recorded: rebuilt.records,
        replayed,
        outage,
        counterfactual,
        summaries: OnceLock::new(),
    })
}
