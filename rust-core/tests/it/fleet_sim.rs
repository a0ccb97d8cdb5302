//! Fleet simulation at test scale (`docs/architecture.md#fleet-behaviour`): installs that
//! share an outage in lock-step probe the backup close to their mean rate (peak/mean under
//! 2) with the jitter that spans the cooldown — from the start when they know the backup is
//! fast, after an onset spread over the urgent jitter (10 s) when only a probe can find it;
//! the same cooldown without jitter keeps arriving in waves.

#[path = "../../benches/fleet_model.rs"]
mod fleet_model;

const INSTALLS: u32 = 5_000;

#[test]
fn jitter_flattens_fleet_probe_waves_after_the_onset() {
    let ours = fleet_model::simulate(&fleet_model::linekit_backup_unknown(INSTALLS, 600));
    let naive = fleet_model::simulate(&fleet_model::lock_step(INSTALLS, 600));
    eprintln!(
        "linekit first second {} onset peak {} steady {:.2}; lock-step steady {:.2}",
        ours.per_second[0],
        ours.onset_peak_qps,
        ours.steady_peak_to_mean,
        naive.steady_peak_to_mean
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
    // The onset: every install probes the backup once, within the urgent jitter (10 s),
    // about a tenth of the fleet per second — not all of it in the first second.
    let onset: u64 = ours.per_second[..11].iter().sum();
    assert!(
        onset >= u64::from(INSTALLS) * 99 / 100 && onset <= u64::from(INSTALLS),
        "onset {onset}"
    );
    let busiest = ours.per_second[..11].iter().max().copied().unwrap_or(0);
    assert!(
        busiest <= u64::from(INSTALLS) * 15 / 100,
        "the onset is spread: {:?}",
        &ours.per_second[..11]
    );
    // After it, nothing above the steady state's bound.
    let after_onset = ours.per_second[11..ours.steady_from_s]
        .iter()
        .max()
        .copied();
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
    let ours = fleet_model::simulate(&fleet_model::linekit(INSTALLS, 600));
    assert!(
        ours.peak_to_mean < 2.0,
        "peak/mean {:.2}",
        ours.peak_to_mean
    );
    assert!(ours.onset_peak_qps as f64 <= 2.0 * ours.steady_mean_qps);
}
