//! The trace file format: `docs/trace.schema.json` is the schema generated from
//! `TraceEvent`, every event the engine emits reads back as a `TraceEvent` that writes the
//! same line again, and a recorded trace never carries URLs, paths, queries or full host names.

use crate::support;

use linekit_core::trace::format::{json_schema, read_trace};
use linekit_core::trace::TraceEvent;
use linekit_tools::replay;
use serde_json::Value;
use std::sync::Arc;
use support::trace::TraceLines;

const SCHEMA: &str = include_str!("../../../docs/trace.schema.json");

fn trace_of(scenario: &str) -> Vec<String> {
    let sink = Arc::new(TraceLines::default());
    replay::run_traced(scenario, &mut Vec::new(), Some(sink.clone())).unwrap();
    sink.lines()
}

#[test]
fn the_committed_schema_is_generated_from_the_record_type() {
    assert!(
        SCHEMA == json_schema(),
        "docs/trace.schema.json is stale: run `linekit trace schema > docs/trace.schema.json`"
    );
}

#[test]
fn every_emitted_event_reads_back_without_losing_a_field() {
    let lines = trace_of(include_str!("../scenarios/whatif_outage.json"));
    let mut kinds = std::collections::BTreeSet::new();
    for line in &lines {
        let original: Value = serde_json::from_str(line).unwrap();
        let record: TraceEvent = serde_json::from_str(line).unwrap();
        assert_eq!(original, serde_json::to_value(&record).unwrap(), "{line}");
        assert_eq!(
            record.to_json(),
            *line,
            "a read event writes its line again"
        );
        kinds.insert(original["kind"].as_str().unwrap().to_string());
    }
    for kind in ["start", "route", "report", "probe", "breaker", "network"] {
        assert!(kinds.contains(kind), "no {kind} event in {kinds:?}");
    }
    let trace = read_trace(&lines.join("\n")).unwrap();
    assert_eq!(trace.records.len(), lines.len());
}

#[test]
fn traces_are_redacted() {
    let lines = trace_of(include_str!("../scenarios/outage_failover.json")).join("\n");
    for secret in [
        "://",
        "/v1/",
        "ticker",
        "sym=",
        "BTC",
        "api.example.com",
        "spot-ali",
    ] {
        assert!(!lines.contains(secret), "{secret} in the trace");
    }
    assert!(lines.contains("*.example.com"));
}
