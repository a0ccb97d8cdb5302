//! The trace file format: one [`TraceEvent`] per line (JSON Lines, each line
//! [`TraceEvent::to_json`], its wire form [`TraceRecord`]), as written by `linekit replay
//! --trace-out` and by a sink that appends each event's JSON to a file.
//! `docs/trace-format.md` describes it; `docs/trace.schema.json` is generated from
//! [`TraceRecord`] (feature `schema`) and a test keeps the two in step.
//!
//! [`read_trace`] checks a whole file before anyone uses it: every line must be a JSON
//! object of a known kind with the fields that kind needs, all from one install, with
//! `seq` counting up by one and `at_ms` never going back. Any other line is an error that
//! names its line number; nothing is guessed and nothing panics.

use super::event::TraceEvent;
use super::record::TraceRecord;
use std::fmt;

/// Largest trace file accepted (bytes).
pub const MAX_TRACE_BYTES: usize = 1024 * 1024 * 1024;

/// A checked trace: the events of one install, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The recording install.
    pub install: String,
    /// Its events, `seq` and `at_ms` in order.
    pub records: Vec<TraceEvent>,
}

impl Trace {
    /// The install's seed (the `install` field read as hex).
    pub fn seed(&self) -> u64 {
        u64::from_str_radix(&self.install, 16).unwrap_or(0)
    }
}

/// Why a trace file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "trace: {}", self.message)
        } else {
            write!(f, "trace line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

fn at_line(line: usize, message: impl Into<String>) -> TraceError {
    TraceError {
        line,
        message: message.into(),
    }
}

/// Parses and checks a whole trace file (blank lines are skipped).
pub fn read_trace(text: &str) -> Result<Trace, TraceError> {
    if text.len() > MAX_TRACE_BYTES {
        return Err(at_line(
            0,
            format!("{} bytes; the limit is {MAX_TRACE_BYTES}", text.len()),
        ));
    }
    let mut records: Vec<TraceEvent> = Vec::new();
    let mut install: Option<(String, usize)> = None;
    let mut previous: Option<(u64, u64, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let record: TraceRecord = serde_json::from_str(raw).map_err(|e| at_line(n, why(raw, e)))?;
        check_install(&record.install).map_err(|e| at_line(n, e))?;
        let record = record.typed().map_err(|e| at_line(n, e))?;
        match &install {
            None => install = Some((record.install.clone(), n)),
            Some((first, first_line)) if *first != record.install => {
                return Err(at_line(
                    n,
                    format!(
                        "event of install {}, but line {first_line} is install {first}: a trace \
                         replays one install; split the file by its `install` field",
                        record.install
                    ),
                ));
            }
            Some(_) => {}
        }
        if let Some((seq, at, line)) = previous {
            if record.seq <= seq {
                return Err(at_line(
                    n,
                    format!(
                        "seq {} does not follow seq {seq} of line {line}: lines are reordered \
                         or repeated",
                        record.seq
                    ),
                ));
            }
            if record.seq != seq + 1 {
                return Err(at_line(
                    n,
                    format!(
                        "seq jumps from {seq} (line {line}) to {}: {} event(s) missing or lines \
                         reordered",
                        record.seq,
                        record.seq - seq - 1
                    ),
                ));
            }
            if record.at_ms < at {
                return Err(at_line(
                    n,
                    format!(
                        "at_ms {} is earlier than {at} on line {line}: lines are reordered",
                        record.at_ms
                    ),
                ));
            }
        }
        previous = Some((record.seq, record.at_ms, n));
        records.push(record);
    }
    let Some((install, _)) = install else {
        return Err(at_line(0, "no events"));
    };
    Ok(Trace { install, records })
}

/// Why a line did not parse: broken JSON, or JSON that is not a trace event.
fn why(raw: &str, e: serde_json::Error) -> String {
    match serde_json::from_str::<serde_json::Value>(raw) {
        Err(j) if j.is_eof() => format!("truncated JSON ({j})"),
        Err(j) => format!("not JSON ({j})"),
        Ok(v) if !v.is_object() => "not a JSON object: not a Linekit trace event".to_string(),
        Ok(_) => format!("not a Linekit trace event ({e})"),
    }
}

/// The install field: 1 to 16 hex digits (the fields each kind needs are checked by
/// [`TraceRecord::typed`]).
fn check_install(install: &str) -> Result<(), String> {
    if install.is_empty() || install.len() > 16 || !install.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("install {install:?} is not 1 to 16 hex digits"));
    }
    Ok(())
}

/// The JSON Schema of one trace line, pretty-printed (what `docs/trace.schema.json` holds).
#[cfg(feature = "schema")]
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(TraceRecord);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64, at: u64) -> String {
        format!(
            r#"{{"kind":"report","at_ms":{at},"install":"00000000000000aa","seq":{seq},"biz":"spot","line":"ali","outcome":"ok","total_ms":5}}"#
        )
    }

    #[test]
    fn a_good_trace_reads_back() {
        let text = [line(0, 1), line(1, 1), String::new(), line(2, 9)].join("\n");
        let t = read_trace(&text).unwrap();
        assert_eq!(t.records.len(), 3);
        assert_eq!(t.seed(), 0xaa);
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        let truncated = [line(0, 1), line(1, 2)[..40].to_string()].join("\n");
        let e = read_trace(&truncated).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("truncated"), "{e}");
        let reordered = [line(0, 1), line(2, 5), line(1, 3)].join("\n");
        let e = read_trace(&reordered).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let foreign = [line(0, 1), r#"{"level":"info","msg":"hello"}"#.to_string()].join("\n");
        let e = read_trace(&foreign).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not a Linekit trace event"), "{e}");
    }
}
