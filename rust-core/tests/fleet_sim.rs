//! Fleet simulation at test scale (`docs/architecture.md#fleet-behaviour`): installs that
//! share an outage in lock-step probe the backup close to their mean rate (peak/mean under
//! 2) with the jitter that spans the cooldown — from the start when they know the backup is
//! fast, after one burst in the short urgent jitter when they do not; the same cooldown
//! without jitter keeps arriving in waves.

#[path = "../benches/fleet_model.rs"]
mod fleet_model;

#[test]
fn jitter_flattens_fleet_probe_waves_after_the_onset() {
    let installs = 5_000;
    let ours = fleet_model::simulate(&fleet_model::linekit_backup_unknown(installs, 600));
    let naive = fleet_model::simulate(&fleet_model::lock_step(installs, 600));
    eprintln!(
        "linekit onset peak {} steady {:.2}; lock-step steady {:.2}",
        ours.onset_peak_qps, ours.steady_peak_to_mean, naive.steady_peak_to_mean
    );
    assert!(
        ours.steady_peak_to_mean < 2.0,
        "linekit steady peak/mean {:.2}",
        ours.steady_peak_to_mean
    );
    assert!(
        naive.steady_peak_to_mean > 10.0,
        "lock-step steady peak/mean {:.2}",
        naive.steady_peak_to_mean
    );
    assert!(ours.steady_peak_qps * 5 < naive.steady_peak_qps);
    // The onset: every install probes the backup once, within the urgent jitter (1 s).
    let onset: u64 = ours.per_second[..2].iter().sum();
    assert!(
        onset >= u64::from(installs) * 99 / 100 && onset <= u64::from(installs),
        "onset {onset}"
    );
    // After it, nothing above the steady state's bound.
    let after_onset = ours.per_second[2..ours.steady_from_s].iter().max().copied();
    assert!(
        after_onset.unwrap_or(0) as f64 <= 2.0 * ours.steady_mean_qps,
        "after the onset {after_onset:?}"
    );
    // Jitter spreads probes; it does not suppress them.
    let ratio = ours.total_probes as f64 / naive.total_probes as f64;
    assert!(
        (0.5..=1.0).contains(&ratio),
        "probe volume ratio {ratio:.2}"
    );
}

#[test]
fn installs_that_know_their_backup_do_not_burst_at_the_onset() {
    let ours = fleet_model::simulate(&fleet_model::linekit(5_000, 600));
    assert!(
        ours.peak_to_mean < 2.0,
        "peak/mean {:.2}",
        ours.peak_to_mean
    );
    assert!(ours.onset_peak_qps as f64 <= 2.0 * ours.steady_mean_qps);
}
