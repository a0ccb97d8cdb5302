//! Running a replay scenario in-process and reading the JSON lines it prints.

#![allow(dead_code)]

use linekit_tools::replay;
use serde_json::Value;

/// The text `scenario` prints.
pub fn output(scenario: &str) -> String {
    let mut out = Vec::new();
    replay::run(scenario, &mut out).expect("scenario runs");
    String::from_utf8(out).expect("replay prints UTF-8")
}

/// Runs `scenario` and parses every line it prints.
pub fn run(scenario: &str) -> Vec<Value> {
    parse_lines(&output(scenario))
}

/// Runs the scenario document `scenario` and parses every line it prints.
pub fn run_json(scenario: &Value) -> Vec<Value> {
    run(&scenario.to_string())
}

/// Runs `scenario` twice, checks both runs print the same bytes, and parses the lines.
pub fn run_deterministic(scenario: &str) -> Vec<Value> {
    let first = output(scenario);
    assert_eq!(first, output(scenario), "replay is deterministic");
    parse_lines(&first)
}

/// Each line of `text` as JSON.
pub fn parse_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The first `op` line printed at virtual time `at`.
pub fn line_at<'a>(lines: &'a [Value], op: &str, at: u64) -> &'a Value {
    lines
        .iter()
        .find(|l| l["op"] == op && l["at"] == at)
        .unwrap_or_else(|| panic!("no {op} line at {at}"))
}

/// Pool `key` (`biz/protocol`) of the `state` line printed at `at`.
pub fn pool_at<'a>(lines: &'a [Value], at: u64, key: &str) -> &'a Vec<Value> {
    line_at(lines, "state", at)["pools"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no pool {key} at {at}"))
}

/// Breaker state of line `id` in pool `key` at `at`.
pub fn breaker_at(lines: &[Value], at: u64, key: &str, id: &str) -> String {
    let line = pool_at(lines, at, key)
        .iter()
        .find(|l| l["id"] == id)
        .unwrap();
    line["breaker"].as_str().unwrap().to_string()
}

/// `(at, line, reason)` of every `route` line; the line is `-` where a route names none.
pub fn routes(lines: &[Value]) -> Vec<(u64, String, String)> {
    lines
        .iter()
        .filter(|l| l["op"] == "route")
        .map(|l| {
            (
                l["at"].as_u64().unwrap(),
                l["line"].as_str().unwrap_or("-").to_string(),
                l["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(at, id, url)` of every `request` line of `kind` (`probe`, `httpdns`, `config`).
pub fn requests(lines: &[Value], kind: &str) -> Vec<(u64, u64, String)> {
    lines
        .iter()
        .filter(|l| l["op"] == "request" && l["kind"] == kind)
        .map(|l| {
            (
                l["at"].as_u64().unwrap(),
                l["id"].as_u64().unwrap(),
                l["url"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(at, field)` of every `request` line, any kind: `field` is `kind`, `url`, ...
pub fn request_field(lines: &[Value], field: &str) -> Vec<(u64, String)> {
    lines
        .iter()
        .filter(|l| l["op"] == "request")
        .map(|l| {
            (
                l["at"].as_u64().unwrap(),
                l[field].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `url` as a `request` line prints it: redacted, the query as a digest (the test's way
/// to check which query was sent).
pub fn redacted(url: &str) -> String {
    linekit_core::trace::redact_url(url)
}

/// The `method` of every `request` line of `kind`.
pub fn request_methods(lines: &[Value], kind: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["op"] == "request" && l["kind"] == kind)
        .map(|l| l["method"].as_str().unwrap().to_string())
        .collect()
}
