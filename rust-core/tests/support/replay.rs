//! Running a replay scenario in-process and reading the JSON lines it prints.

#![allow(dead_code)]

use linekit_core::replay;
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
