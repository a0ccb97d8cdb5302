//! `cargo bench --bench config_fleet`: 20,000 simulated installs (each a real engine on a
//! manual clock) start at the same instant and fetch their config for four hours; prints
//! the fetch QPS at the config server with Linekit's defaults, with `jitter_s` equal to
//! `interval_s`, in lock-step (no jitter), and with a 10-minute server outage at start-up,
//! as one JSON document.

#[path = "config_fleet_model.rs"]
mod config_fleet_model;
#[path = "support/report.rs"]
mod report;

use config_fleet_model::{defaults, lock_step, simulate, ConfigFleetParams, ConfigFleetResult};

fn main() {
    report::run("config_fetch_qps", 20_000, figures);
}

fn figures(installs: u32) -> serde_json::Value {
    let duration_s = 4 * 3_600;
    let summary = |r: &ConfigFleetResult| {
        serde_json::json!({
            "peak_qps": r.peak_qps,
            "mean_qps": report::round2(r.mean_qps),
            "peak_to_mean": report::round2(r.peak_to_mean),
            "total_fetches": r.total,
        })
    };
    let ours = simulate(&defaults(installs, duration_s));
    let wide = simulate(&ConfigFleetParams {
        jitter_s: 1_800,
        ..defaults(installs, duration_s)
    });
    let naive = simulate(&lock_step(installs, duration_s));
    let outage = simulate(&ConfigFleetParams {
        outage_s: 600,
        ..defaults(installs, 3_600)
    });
    let outage_window = &outage.per_second[..600];
    serde_json::json!({
        "duration_s": duration_s,
        "linekit_defaults": summary(&ours),
        "jitter_equals_interval": summary(&wide),
        "lock_step": summary(&naive),
        "outage_600s_first": {
            "peak_qps": outage_window.iter().max(),
            "mean_qps": report::round2(outage_window.iter().sum::<u64>() as f64 / 600.0),
        },
    })
}
