//! The bounds of a replay: a step's `at` and the scenario's `wall_start_ms` have maxima
//! (a clear error, nothing printed), and a run stops with an error instead of firing timers
//! without end before one step.

use linekit_tools::replay::{self, MAX_AT_MS, MAX_TIMERS_PER_STEP, MAX_WALL_START_MS};
use serde_json::{json, Value};

fn scenario(thresholds: Value, wall_start_ms: Option<u64>, steps: Value) -> String {
    let mut s = json!({
        "config": {
            "version": 1,
            "thresholds": thresholds,
            "biz_lines": {"spot": {"match": ["api.example.com"],
                "http": [{"id": "a", "url": "https://spot-a.example.com"}]}}
        },
        "steps": steps
    });
    if let Some(wall) = wall_start_ms {
        s["wall_start_ms"] = json!(wall);
    }
    s.to_string()
}

/// The error of running `text`, checking that it printed nothing.
fn error_of(text: &str) -> String {
    let mut out = Vec::new();
    let err = replay::run(text, &mut out).unwrap_err().to_string();
    assert!(out.is_empty(), "printed {}", String::from_utf8_lossy(&out));
    err
}

#[test]
fn a_step_past_the_longest_scenario_is_refused() {
    for at in [MAX_AT_MS + 1, u64::MAX] {
        let text = scenario(
            json!({}),
            None,
            json!([{"at": 0, "op": "tick"}, {"at": at, "op": "tick"}]),
        );
        let err = error_of(&text);
        assert!(
            err.contains("steps[1].at") && err.contains("366 days"),
            "{err}"
        );
    }
}

#[test]
fn a_wall_clock_start_that_would_overflow_is_refused() {
    for wall in [MAX_WALL_START_MS + 1, u64::MAX - 1] {
        let text = scenario(json!({}), Some(wall), json!([{"at": 0, "op": "tick"}]));
        let err = error_of(&text);
        assert!(err.contains("wall_start_ms"), "{err}");
    }
    // The latest start still runs.
    let text = scenario(
        json!({}),
        Some(MAX_WALL_START_MS),
        json!([{"at": 5, "op": "route", "url": "https://api.example.com/x"}]),
    );
    let mut out = Vec::new();
    replay::run(&text, &mut out).unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("spot-a.example.com"));
}

#[test]
fn timers_fired_before_one_step_are_capped() {
    // The revive check reschedules itself every millisecond: a step this far ahead would
    // fire it more often than the cap allows.
    let every_ms = json!({"revive_interval_ms": 1, "startup_detect_delay_ms": 100000000});
    let far = (MAX_TIMERS_PER_STEP as u64) * 3 / 2;
    let text = scenario(
        every_ms.clone(),
        None,
        json!([{"at": 0, "op": "tick"}, {"at": far, "op": "tick"}]),
    );
    let mut out = Vec::new();
    let err = replay::run(&text, &mut out).unwrap_err().to_string();
    assert!(
        err.contains("steps[1]")
            && err.contains(&format!("more than {MAX_TIMERS_PER_STEP} timers")),
        "{err}"
    );
    // The cap is per step: the same span in two steps runs.
    let half = far / 2;
    let text = scenario(
        every_ms,
        None,
        json!([{"at": 0, "op": "tick"}, {"at": half, "op": "tick"},
               {"at": far, "op": "route", "url": "https://api.example.com/x"}]),
    );
    let mut out = Vec::new();
    replay::run(&text, &mut out).unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("spot-a.example.com"));
}
