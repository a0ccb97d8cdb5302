//! `linekit replay --trace-out` and `linekit replay --from-trace` driven in-process: the
//! trace and report files are written, the compare line ends the output, and bad traces,
//! mixed installs and bad arguments exit 1 with a JSON error naming the problem.

use crate::support;

use serde_json::Value;
use support::temp::TempDir;

fn run_cli(args: &[&str]) -> (i32, String, String) {
    support::cli::run(args, b"").into()
}

/// `linekit replay --from-trace TRACE --config POLICY EXTRA…`.
fn what_if(trace: &str, policy: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["replay", "--from-trace", trace, "--config", policy];
    args.extend_from_slice(extra);
    run_cli(&args)
}

fn recorded(dir: &TempDir) -> (String, String) {
    let scenario = dir.file("scenario.json");
    std::fs::write(&scenario, include_str!("../scenarios/whatif_outage.json")).unwrap();
    let policy = dir.file("policy.json");
    std::fs::write(
        &policy,
        include_str!("../../../rust-core/tests/fixtures/whatif_policy_threshold1.json"),
    )
    .unwrap();
    let trace = dir.file("trace.jsonl");
    let (code, out, err) = run_cli(&["replay", &scenario, "--trace-out", &trace]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 600);
    (trace, policy)
}

#[test]
fn from_trace_prints_replay_lines_then_compare_and_writes_the_report() {
    let dir = TempDir::new("cli-whatif");
    let (trace, policy) = recorded(&dir);
    let html = dir.file("report.html");
    let (code, out, err) = what_if(&trace, &policy, &["--compare", "--html", &html]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["op"], "compare");
    for field in ["requests_on_failing_lines", "retries", "switches", "probes"] {
        assert!(last["recorded"][field].is_u64(), "{field} in {last}");
        assert!(last["replayed"][field].is_u64(), "{field} in {last}");
    }
    assert!(lines
        .iter()
        .any(|l| l["op"] == "route" && l["inferred"] == true));
    assert!(lines[..lines.len() - 1]
        .iter()
        .all(|l| l["op"] == "route" || l["op"] == "request"));
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.starts_with("<!DOCTYPE html>"));
}

#[test]
fn bad_traces_and_arguments_exit_1_with_a_clear_error() {
    let dir = TempDir::new("cli-whatif-bad");
    let (trace, policy) = recorded(&dir);
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[3] = lines[3].replace("0000000000000007", "0000000000000008");
    let mixed = dir.file("mixed.jsonl");
    std::fs::write(&mixed, lines.join("\n")).unwrap();
    let (code, out, err) = what_if(&mixed, &policy, &[]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    let e: Value = serde_json::from_str(err.trim()).unwrap();
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("trace line 4") && msg.contains("one install"),
        "{msg}"
    );

    let (code, _, err) = run_cli(&["replay", "--from-trace", &trace]);
    assert_eq!(code, 1);
    assert!(err.contains("--config"), "{err}");
    let (code, _, err) = what_if(&trace, &policy, &["--bogus"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown option --bogus"), "{err}");
    let (code, _, err) = what_if(&trace, &policy, &["--evidence-window-ms", "soon"]);
    assert_eq!(code, 1);
    assert!(err.contains("not a number"), "{err}");
    let (code, _, err) = what_if(&trace, &trace, &[]);
    assert_eq!(code, 1, "a trace is not a policy: {err}");
}

#[test]
fn trace_schema_prints_the_documented_schema() {
    let (code, out, _) = run_cli(&["trace", "schema"]);
    assert_eq!(code, 0);
    assert_eq!(out, include_str!("../../../docs/trace.schema.json"));
}
