//! The trace file format: one [`TraceRecord`] per line (JSON Lines), as written by
//! `linekit replay --trace-out` and by a sink that appends each event's JSON to a file.
//! `docs/trace-format.md` describes it; `docs/trace.schema.json` is generated from
//! [`TraceRecord`] (feature `schema`) and a test keeps the two in step.
//!
//! [`read_trace`] checks a whole file before anyone uses it: every line must be a JSON
//! object of a known kind with the fields that kind needs, all from one install, with
//! `seq` counting up by one and `at_ms` never going back. Any other line is an error that
//! names its line number; nothing is guessed and nothing panics.

use super::event::{TraceEvent, TraceKind};
use crate::line::{Outcome, Timings};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest trace file accepted (bytes).
pub const MAX_TRACE_BYTES: usize = 1024 * 1024 * 1024;

/// One line of a trace file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(title = "Linekit trace event"))]
pub struct TraceRecord {
    /// What the event describes.
    pub kind: TraceKind,
    /// Monotonic time of the event (ms; the origin is the recording device's).
    pub at_ms: u64,
    /// The recording install (its seed, 16 hex digits).
    pub install: String,
    /// Position of the event in the install's trace, from 0, without gaps.
    pub seq: u64,
    /// Business line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub biz: Option<String>,
    /// Pool of the line: `http` or `ws`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Line id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Redacted group of the request's logical host (`*.example.com`, `ip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_host: Option<String>,
    /// Redacted group of the host the request was sent to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_host: Option<String>,
    /// Reason code of a routing decision (`sticky`, `ranked`, `guarded`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The routing decision reused the pool's current line.
    #[serde(default)]
    pub from_cache: bool,
    /// The kill switch was on (route events); the new kill switch state (downgrade events).
    #[serde(default)]
    pub downgrade: bool,
    /// A fixed host pinned the request.
    #[serde(default)]
    pub fixed_host: bool,
    /// Outcome of a report or probe: `ok`, `http_4xx`, `http_5xx`, `connect_timeout`,
    /// `connect_refused`, `dns_failure`, `tls_failure`, `read_timeout`, `local_network`,
    /// `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// HTTP status of a report or probe, when a response arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Phase times of a report or probe: `dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`.
    #[serde(flatten)]
    pub timings: Timings,
    /// Total time of the attempt or probe (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<u64>,
    /// Free-form detail without sensitive data (`closed -> open`, `applied version 3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// HTTP method of a routed request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Attempt of a routed request within its call: 0, then one more per retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Line ids a retry excluded (the lines its call already tried).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<String>>,
    /// New breaker state of a breaker event: `closed`, `open` or `half_open`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breaker: Option<String>,
    /// How long a breaker that just opened stays open before a trial (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_ms: Option<u64>,
    /// The network of a network event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<RecordNetwork>,
    /// Config version in force after a start or config event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_version: Option<u64>,
}

/// The network of a network event: no addresses, names or SSIDs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordNetwork {
    /// Platform network handle.
    pub handle: u64,
    /// Whether the network is validated.
    pub validated: bool,
    /// VPN.
    #[serde(default)]
    pub vpn: bool,
    /// Private DNS mode: `off`, `opportunistic` or `strict`.
    #[serde(default = "off")]
    pub private_dns: String,
    /// HTTP proxy set.
    #[serde(default)]
    pub proxy: bool,
    /// Transport type (`wifi`, `cellular`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
}

fn off() -> String {
    "off".to_string()
}

impl TraceRecord {
    /// The record of an event the engine stamped (`install` and `seq` set; an unstamped
    /// event gets an empty install and seq 0).
    pub fn from_event(e: &TraceEvent) -> Self {
        let s = |v: &Option<&'static str>| v.map(str::to_string);
        TraceRecord {
            kind: e.kind.unwrap_or(TraceKind::Config),
            at_ms: e.at_ms,
            install: e.install.clone().unwrap_or_default(),
            seq: e.seq.unwrap_or(0),
            biz: e.biz.clone(),
            protocol: s(&e.protocol),
            line: e.line.clone(),
            logical_host: e.logical_host.clone(),
            final_host: e.final_host.clone(),
            reason: s(&e.reason),
            from_cache: e.from_cache,
            downgrade: e.downgrade,
            fixed_host: e.fixed_host,
            outcome: s(&e.outcome),
            status: e.status,
            timings: e.timings,
            total_ms: e.total_ms,
            detail: e.detail.clone(),
            method: e.method.clone(),
            attempt: e.attempt,
            exclude: e.exclude.clone(),
            breaker: s(&e.breaker),
            cooldown_ms: e.cooldown_ms,
            network: e.network.as_ref().map(|n| RecordNetwork {
                handle: n.handle,
                validated: n.validated,
                vpn: n.vpn,
                private_dns: n.private_dns.to_string(),
                proxy: n.proxy,
                transport: n.transport.clone(),
            }),
            config_version: e.config_version,
        }
    }

    /// The record's outcome, when it has a known one.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome.as_deref().and_then(|o| o.parse().ok())
    }

    /// Whether this report or probe was a fault of the line itself.
    pub fn is_line_fault(&self) -> bool {
        self.outcome().is_some_and(|o| o.is_line_fault(self.status))
    }
}

/// A checked trace: the events of one install, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The recording install.
    pub install: String,
    /// Its events, `seq` and `at_ms` in order.
    pub records: Vec<TraceRecord>,
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
    let mut records: Vec<TraceRecord> = Vec::new();
    let mut install: Option<(String, usize)> = None;
    let mut previous: Option<(u64, u64, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let record: TraceRecord = serde_json::from_str(raw).map_err(|e| at_line(n, why(raw, e)))?;
        check_fields(&record).map_err(|e| at_line(n, e))?;
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

/// The fields each kind needs, with known values.
fn check_fields(r: &TraceRecord) -> Result<(), String> {
    if r.install.is_empty()
        || r.install.len() > 16
        || !r.install.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return Err(format!("install {:?} is not 1 to 16 hex digits", r.install));
    }
    let need = |field: &str, v: bool| {
        if v {
            Ok(())
        } else {
            Err(format!("a {} event needs `{field}`", kind_name(r.kind)))
        }
    };
    if let Some(p) = &r.protocol {
        if p != "http" && p != "ws" {
            return Err(format!("protocol {p:?} is not http or ws"));
        }
    }
    if let Some(o) = &r.outcome {
        o.parse::<Outcome>().map_err(|e| format!("outcome: {e}"))?;
    }
    match r.kind {
        TraceKind::Route => need("reason", r.reason.is_some()),
        TraceKind::Report | TraceKind::Probe => {
            need("biz", r.biz.is_some())?;
            need("line", r.line.is_some())?;
            need("outcome", r.outcome.is_some())
        }
        TraceKind::Breaker => {
            need("line", r.line.is_some())?;
            match r.breaker.as_deref() {
                Some("closed" | "open" | "half_open") => Ok(()),
                Some(other) => Err(format!(
                    "breaker {other:?} is not closed, open or half_open"
                )),
                None => need("breaker", false),
            }
        }
        TraceKind::Network => need("network", r.network.is_some()),
        TraceKind::Config | TraceKind::Downgrade | TraceKind::Start => Ok(()),
    }
}

fn kind_name(kind: TraceKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
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
