//! Fleet simulation at test scale (`docs/architecture.md#fleet-behaviour`): with Linekit's jitter spanning the cooldown,
//! probes reaching the backup line during a shared outage stay close to their mean rate
//! (peak/mean under 2); the same cooldown in lock-step arrives in waves.

#[path = "../benches/fleet_model.rs"]
mod fleet_model;

#[test]
fn jitter_flattens_fleet_probe_waves() {
    let ours = fleet_model::simulate(&fleet_model::linekit(5_000, 600));
    let naive = fleet_model::simulate(&fleet_model::lock_step(5_000, 600));
    eprintln!(
        "linekit {:.2} lock-step {:.2}",
        ours.peak_to_mean, naive.peak_to_mean
    );
    assert!(
        ours.peak_to_mean < 2.0,
        "linekit peak/mean {:.2}",
        ours.peak_to_mean
    );
    assert!(
        naive.peak_to_mean > 10.0,
        "lock-step peak/mean {:.2}",
        naive.peak_to_mean
    );
    assert!(ours.peak_qps * 5 < naive.peak_qps);
    // Jitter spreads probes; it does not suppress them.
    let ratio = ours.total_probes as f64 / naive.total_probes as f64;
    assert!(
        (0.5..=1.0).contains(&ratio),
        "probe volume ratio {ratio:.2}"
    );
}
