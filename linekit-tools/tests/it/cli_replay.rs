//! `linekit replay` driven in-process through `cli::run` (`docs/architecture.md#cli`): a scenario file
//! prints JSON Lines; a bad scenario or a missing file prints a JSON error and exits 1.

use crate::support;

fn run_cli(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    support::cli::run(args, stdin).into()
}

#[test]
fn replay_runs_a_scenario_file_and_reports_bad_ones() {
    let dir = std::env::temp_dir().join(format!("linekit-cli-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(&good, include_str!("../scenarios/outage_failover.json")).unwrap();
    let (code, out, err) = run_cli(&["replay", good.to_str().unwrap()], b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 10);
    assert!(out
        .lines()
        .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"config": {}, "steps": []}"#).unwrap();
    let (code, out, err) = run_cli(&["replay", bad.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("biz_lines"), "{err}");
    let (code, _, err) = run_cli(&["replay", dir.join("missing.json").to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("error"));
    std::fs::remove_dir_all(&dir).ok();
}
