//! Config fetches of a fleet that starts at the same instant, at test scale: the jitter
//! spreads the start-up round and every later one (peak/mean far below lock-step), and a
//! config server outage at start-up does not turn the back-off into synchronized waves.

#[path = "../../benches/config_fleet_model.rs"]
mod config_fleet_model;

use config_fleet_model::{defaults, lock_step, simulate};

#[test]
fn jitter_spreads_the_config_fetches_of_a_fleet_that_starts_together() {
    let ours = simulate(&defaults(2_000, 4 * 3_600));
    let naive = simulate(&lock_step(2_000, 4 * 3_600));
    eprintln!(
        "config fetches: linekit peak {} mean {:.2} (x{:.1}); lock-step peak {} (x{:.1})",
        ours.peak_qps, ours.mean_qps, ours.peak_to_mean, naive.peak_qps, naive.peak_to_mean
    );
    // Lock-step: the whole fleet in one second, every interval.
    assert_eq!(naive.peak_qps, 2_000);
    assert!(
        ours.peak_qps * 50 < naive.peak_qps,
        "peak {}",
        ours.peak_qps
    );
    // The start-up round spreads over `jitter_s` (300 s): about installs / 300 per second,
    // with Poisson noise at this scale; the mean spans the whole run.
    assert!(ours.peak_qps <= 3 * 2_000 / 300, "peak {}", ours.peak_qps);
    assert!(
        ours.peak_to_mean < 20.0,
        "peak/mean {:.1}",
        ours.peak_to_mean
    );
    // Spreading does not suppress fetches: about one per install per interval.
    let rounds = ours.total as f64 / 2_000.0;
    assert!(
        (7.0..=9.0).contains(&rounds),
        "rounds per install {rounds:.1}"
    );
}

#[test]
fn a_server_outage_at_start_up_backs_off_without_waves() {
    let mut p = defaults(2_000, 3_600);
    p.outage_s = 600;
    let r = simulate(&p);
    let outage: Vec<u64> = r.per_second[..600].to_vec();
    let peak = outage.iter().copied().max().unwrap();
    let mean = outage.iter().sum::<u64>() as f64 / 600.0;
    eprintln!("outage: peak {peak} mean {mean:.2}");
    // Without back-off every install would retry every few seconds (2000 / 3 s); with it
    // the outage sees a handful of fetches per install in ten minutes.
    let per_install = outage.iter().sum::<u64>() as f64 / 2_000.0;
    assert!(
        per_install < 8.0,
        "fetches per install during the outage {per_install:.1}"
    );
    assert!(peak < 200, "peak {peak}");
}
