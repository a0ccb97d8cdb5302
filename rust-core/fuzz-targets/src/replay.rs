//! Replay scenarios: the parser, and for short scenarios the whole run on the real engine
//! with the virtual clock and the scripted transport.

use linekit_tools::replay::{parse_scenario, run};

/// Longest virtual span that is also run (timers fire for every period up to the last
/// step, so an enormous `at` would only measure the loop, not find bugs).
const MAX_RUN_SPAN_MS: u64 = 3_600_000;
/// Most steps that are also run.
const MAX_RUN_STEPS: usize = 64;

/// Parses `data` as a scenario; a short one that parses is also run, and its output must
/// be JSON Lines, each line an object with `at` and `op`.
pub fn replay_scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((_, _, steps)) = parse_scenario(text) else {
        return;
    };
    if steps.len() > MAX_RUN_STEPS || last_at(text) > MAX_RUN_SPAN_MS {
        return;
    }
    let mut out = Vec::new();
    if run(text, &mut out).is_err() {
        return;
    }
    let out = String::from_utf8(out).expect("replay output is UTF-8");
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("replay line is JSON");
        assert!(v.get("at").is_some(), "replay line without `at`: {line}");
        assert!(v.get("op").is_some(), "replay line without `op`: {line}");
    }
}

/// The largest `at` of the scenario's steps (the parser accepted it, so it is well formed).
fn last_at(text: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    v.get("steps")
        .and_then(|s| s.as_array())
        .map(|steps| {
            steps
                .iter()
                .filter_map(|s| s.get("at").and_then(|a| a.as_u64()))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}
