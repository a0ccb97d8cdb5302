//! `linekit replay` with traces:
//! - `replay SCENARIO.json --trace-out TRACE.jsonl` runs a scenario and also writes every
//!   trace event of the run (every window recorded) to TRACE.jsonl;
//! - `replay --from-trace TRACE.jsonl --config POLICY.json [--compare] [--html OUT.html]
//!   [--evidence-window-ms N] [--trace-out REPLAYED.jsonl]` re-runs a recorded trace under
//!   POLICY (see [`crate::whatif`]); `--compare` ends with the compare line, preceded for
//!   a trace recorded under `observe` by the counterfactual line;
//! - `trace schema` prints the JSON Schema of a trace line.
//!
//! Output files are written only after the run succeeded; a bad trace or policy prints one
//! error (with the trace line number) and exits 1.

use super::Streams;
use linekit_core::trace::format::MAX_TRACE_BYTES;
use linekit_core::trace::{TraceEvent, TraceSink};
use parking_lot::Mutex;
use std::io::Write;
use std::sync::Arc;

const USAGE: &str = "usage: linekit replay SCENARIO.json --trace-out TRACE.jsonl | linekit replay \
--from-trace TRACE.jsonl --config POLICY.json [--compare] [--html OUT.html] \
[--evidence-window-ms N] [--trace-out REPLAYED.jsonl]";

/// Collects trace lines in memory, in the order the engine emits them.
#[derive(Default)]
struct Lines(Mutex<Vec<u8>>);

impl TraceSink for Lines {
    fn emit(&self, event: &TraceEvent) {
        let mut buf = self.0.lock();
        buf.extend_from_slice(event.to_json().as_bytes());
        buf.push(b'\n');
    }
}

#[derive(Default)]
struct Args<'a> {
    scenario: Option<&'a str>,
    from_trace: Option<&'a str>,
    config: Option<&'a str>,
    trace_out: Option<&'a str>,
    html: Option<&'a str>,
    compare: bool,
    window_ms: Option<u64>,
}

fn parse<'a>(args: &[&'a str]) -> Result<Args<'a>, String> {
    let mut a = Args::default();
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .copied()
                .ok_or_else(|| format!("{name} needs a value; {USAGE}"))
        };
        match arg {
            "--from-trace" => a.from_trace = Some(value(arg)?),
            "--config" => a.config = Some(value(arg)?),
            "--trace-out" => a.trace_out = Some(value(arg)?),
            "--html" => a.html = Some(value(arg)?),
            "--compare" => a.compare = true,
            "--evidence-window-ms" => {
                let v = value(arg)?;
                a.window_ms = Some(
                    v.parse()
                        .map_err(|_| format!("--evidence-window-ms: {v:?} is not a number"))?,
                );
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}; {USAGE}")),
            s if a.scenario.is_none() => a.scenario = Some(s),
            s => return Err(format!("unexpected argument {s:?}; {USAGE}")),
        }
    }
    Ok(a)
}

fn write_file(path: &str, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}

/// `linekit replay …` with `--trace-out` or `--from-trace`.
pub fn replay(args: &[&str], io: &mut Streams<'_>) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => return super::fail(io.err, &e),
    };
    let result = match (a.scenario, a.from_trace) {
        (Some(scenario), None) => scenario_with_trace(&a, scenario, io),
        (None, Some(trace)) => from_trace(&a, trace, io),
        (Some(_), Some(_)) => Err(format!(
            "give a scenario or --from-trace, not both; {USAGE}"
        )),
        (None, None) => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => 0,
        Err(e) => super::fail(io.err, &e),
    }
}

fn scenario_with_trace(a: &Args<'_>, scenario: &str, io: &mut Streams<'_>) -> Result<(), String> {
    if a.config.is_some() || a.html.is_some() || a.compare || a.window_ms.is_some() {
        return Err(format!(
            "--config, --compare, --html and --evidence-window-ms go with --from-trace; {USAGE}"
        ));
    }
    let Some(trace_out) = a.trace_out else {
        return Err(USAGE.to_string());
    };
    let text = super::read_text(scenario, io.input, crate::replay::MAX_SCENARIO_BYTES)?;
    let lines = Arc::new(Lines::default());
    let mut buf = Vec::new();
    crate::replay::run_traced(&text, &mut buf, Some(lines.clone())).map_err(|e| e.to_string())?;
    write_file(trace_out, &lines.0.lock())?;
    io.out.write_all(&buf).map_err(|e| format!("output: {e}"))
}

fn from_trace(a: &Args<'_>, trace: &str, io: &mut Streams<'_>) -> Result<(), String> {
    let Some(config) = a.config else {
        return Err(format!("--from-trace needs --config POLICY.json; {USAGE}"));
    };
    if trace == "-" && config == "-" {
        return Err("only one of the trace and the policy can be standard input".to_string());
    }
    let trace_text = super::read_text(trace, io.input, MAX_TRACE_BYTES)?;
    let policy = super::read_text(config, io.input, crate::replay::MAX_SCENARIO_BYTES)?;
    let window = a
        .window_ms
        .unwrap_or(crate::whatif::driver::DEFAULT_EVIDENCE_WINDOW_MS);
    let mut buf = Vec::new();
    let what_if =
        crate::whatif::run(&trace_text, &policy, window, &mut buf).map_err(|e| e.to_string())?;
    if a.compare {
        // The compare line stays the last one; an observe trace's counterfactual precedes it.
        if let Some(line) = what_if.counterfactual_line() {
            buf.extend_from_slice(line.to_string().as_bytes());
            buf.push(b'\n');
        }
        buf.extend_from_slice(what_if.compare_line().to_string().as_bytes());
        buf.push(b'\n');
    }
    if let Some(path) = a.trace_out {
        let mut lines = Vec::new();
        for r in &what_if.replayed.records {
            lines.extend_from_slice(r.to_json().as_bytes());
            lines.push(b'\n');
        }
        write_file(path, &lines)?;
    }
    if let Some(path) = a.html {
        let html = crate::whatif::html::render(&what_if, a.compare);
        write_file(path, html.as_bytes())?;
    }
    io.out.write_all(&buf).map_err(|e| format!("output: {e}"))
}

/// `linekit trace schema`: the JSON Schema of one trace line.
pub fn schema(out: &mut dyn Write) -> i32 {
    let _ = out.write_all(linekit_core::trace::format::json_schema().as_bytes());
    0
}
