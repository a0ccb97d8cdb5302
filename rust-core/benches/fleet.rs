//! `cargo bench --bench fleet`: 100,000 simulated installs share a 30-minute outage of the
//! primary line; prints probe QPS on the backup line with Linekit's jitter + cooldown +
//! budget against the same cooldown in lock-step, as one JSON document: the whole outage,
//! its first second, its onset (the short urgent jitter) and the steady state after one
//! cooldown + jitter; for installs that know the backup and for installs that can learn it
//! only by probing (with a sweep of `urgent_jitter_ms` for those).

#[path = "fleet_model.rs"]
mod fleet_model;
#[path = "support/report.rs"]
mod report;

fn main() {
    report::run("fleet_probe_qps", 100_000, figures);
}

fn figures(installs: u32) -> serde_json::Value {
    let outage_s = 30 * 60;
    let ours = fleet_model::simulate(&fleet_model::linekit(installs, outage_s));
    let unknown = fleet_model::simulate(&fleet_model::linekit_backup_unknown(installs, outage_s));
    // The worst case against the width of the short urgent jitter.
    let sweep: Vec<serde_json::Value> = [1_000u64, 5_000, 10_000, 15_000, 20_000, 25_000]
        .iter()
        .map(|&w| {
            let mut p = fleet_model::linekit_backup_unknown(installs, outage_s);
            p.thresholds.urgent_jitter_ms = w;
            let r = fleet_model::simulate(&p);
            serde_json::json!({
                "urgent_jitter_ms": w,
                "first_second_qps": r.per_second[0],
                "peak_qps": r.peak_qps,
                "peak_to_mean": report::round2(r.peak_to_mean),
            })
        })
        .collect();
    let naive = fleet_model::simulate(&fleet_model::lock_step(installs, outage_s));
    let summary = |r: &fleet_model::FleetResult| {
        serde_json::json!({
            "peak_qps": r.peak_qps,
            "mean_qps": report::round1(r.mean_qps),
            "peak_to_mean": report::round2(r.peak_to_mean),
            "total_probes": r.total_probes,
            "first_second_qps": r.per_second[0],
            "onset_peak_qps": r.onset_peak_qps,
            "steady_from_s": r.steady_from_s,
            "steady_peak_qps": r.steady_peak_qps,
            "steady_mean_qps": report::round1(r.steady_mean_qps),
            "steady_peak_to_mean": report::round2(r.steady_peak_to_mean),
        })
    };
    serde_json::json!({
        "outage_s": outage_s,
        "linekit": summary(&ours),
        "linekit_backup_unknown": summary(&unknown),
        "backup_unknown_by_urgent_jitter": sweep,
        "lock_step": summary(&naive),
        "peak_ratio_lock_step_over_linekit": report::round2(naive.peak_qps as f64 / ours.peak_qps.max(1) as f64),
    })
}
