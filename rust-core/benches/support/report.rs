//! What the fleet simulations (`fleet`, `config_fleet`) share: how many installs to
//! simulate, the report they print, and the rounding of its figures.

#![allow(dead_code)]

use serde_json::Value;
use std::time::Instant;

/// Runs `simulate` for the install count (`FLEET_INSTALLS` when it is set to a number,
/// else `default_installs`) and prints the figures it returns as one JSON document, with
/// `benchmark`, `installs` and `sim_seconds` (how long the simulations took) added.
pub fn run(benchmark: &str, default_installs: u32, simulate: impl FnOnce(u32) -> Value) {
    let installs = std::env::var("FLEET_INSTALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_installs);
    let started = Instant::now();
    let mut report = simulate(installs);
    report["benchmark"] = benchmark.into();
    report["installs"] = installs.into();
    report["sim_seconds"] = started.elapsed().as_secs_f64().into();
    println!("{report}");
}

/// `x` rounded to one decimal place.
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// `x` rounded to two decimal places.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
