//! Fleet simulation model (`docs/architecture.md#fleet-behaviour`): many installs hit the same outage of a primary line
//! at the same instant and keep failing on a fixed request schedule (the worst case: every
//! install in lock-step). Each install runs the real [`DetectScheduler`]; the model counts
//! the probes that reach the backup line per second of virtual time. No sockets, no sleeps.
//!
//! What an install knows of the backup decides how urgent its first detect is
//! ([`Discovery`]): known fast (the usual case) — traffic moves without a probe and no detect
//! is urgent; found only by probing (nothing known fast) — the whole fleet probes once
//! within `urgent_jitter_ms` (the *onset*). Every later detect uses the jitter that spans
//! the cooldown. The result keeps the onset apart from the steady state.

use linekit_core::config::Thresholds;
use linekit_core::detect::{DetectScheduler, Plan, Trigger};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct FleetParams {
    /// Number of installs.
    pub installs: u32,
    /// Outage length in seconds.
    pub outage_s: u64,
    /// Every install retries (and fails on) the primary this often.
    pub request_interval_ms: u64,
    /// Scheduler thresholds (jitter, cooldown, budget).
    pub thresholds: Thresholds,
    /// How installs learn that the backup is fast.
    pub discovery: Discovery,
}

/// How an install learns that the backup is fast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discovery {
    /// Known before the outage (start-up probes, earlier traffic): the failures are not
    /// urgent triggers.
    Known,
    /// Unknown until a probe of it answers: the failures are urgent triggers.
    ProbeOnly,
}

/// Probe traffic reaching the backup line.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetResult {
    /// Probes per second of the outage (index = second).
    pub per_second: Vec<u64>,
    /// Highest per-second count.
    pub peak_qps: u64,
    /// Mean per-second count over the outage.
    pub mean_qps: f64,
    /// `peak / mean`.
    pub peak_to_mean: f64,
    /// All probes sent (both lines).
    pub total_probes: u64,
    /// Highest per-second count in the onset (the seconds before `steady_from_s`).
    pub onset_peak_qps: u64,
    /// First second of the steady state: one cooldown plus one long jitter after the start.
    pub steady_from_s: usize,
    /// Highest per-second count from `steady_from_s` on.
    pub steady_peak_qps: u64,
    /// Mean per-second count from `steady_from_s` on.
    pub steady_mean_qps: f64,
    /// `steady_peak / steady_mean`.
    pub steady_peak_to_mean: f64,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The install's request fails on the primary: a detect trigger.
    Trigger,
    /// A scheduled detect starts.
    Start(u64),
    /// One probe finished.
    ProbeDone,
}

const PRIMARY_PROBE_MS: u64 = 3_000; // the primary black-holes: the probe times out
const BACKUP_PROBE_MS: u64 = 50;

/// Runs the simulation.
pub fn simulate(p: &FleetParams) -> FleetResult {
    let biz: Arc<str> = Arc::from("spot");
    let mut schedulers: Vec<DetectScheduler> = (0..p.installs)
        .map(|i| DetectScheduler::new(&p.thresholds, u64::from(i), 0))
        .collect();
    let end = p.outage_s * 1_000;
    let mut per_second = vec![0u64; p.outage_s as usize];
    let mut total = 0u64;
    // When each install knows the backup is fast (`u64::MAX`: not yet).
    let mut known_at: Vec<u64> = vec![
        match p.discovery {
            Discovery::Known => 0,
            Discovery::ProbeOnly => u64::MAX,
        };
        p.installs as usize
    ];
    let mut heap: BinaryHeap<Reverse<(u64, u32, Event)>> = BinaryHeap::new();
    for i in 0..p.installs {
        heap.push(Reverse((0, i, Event::Trigger)));
    }
    while let Some(Reverse((t, i, event))) = heap.pop() {
        if t >= end {
            break;
        }
        let s = &mut schedulers[i as usize];
        let known = t >= known_at[i as usize];
        match event {
            Event::Trigger => {
                if let Plan::StartAt { at, token } =
                    s.request_as(&biz, Trigger::ConsecutiveFailures, !known, t)
                {
                    heap.push(Reverse((at, i, Event::Start(token))));
                }
                heap.push(Reverse((t + p.request_interval_ms, i, Event::Trigger)));
            }
            Event::Start(token) => {
                let Some(granted) = s.begin(&biz, token, 2, t) else {
                    continue;
                };
                // The sticky line (the backup, after failover) first, then the primary.
                for (k, cost) in [BACKUP_PROBE_MS, PRIMARY_PROBE_MS]
                    .iter()
                    .enumerate()
                    .take(granted as usize)
                {
                    total += 1;
                    if k == 0 {
                        per_second[(t / 1_000) as usize] += 1;
                        let learned = &mut known_at[i as usize];
                        *learned = (*learned).min(t + cost);
                    }
                    heap.push(Reverse((t + cost, i, Event::ProbeDone)));
                }
            }
            Event::ProbeDone => s.probe_finished(&biz),
        }
    }
    let (peak_qps, mean_qps) = peak_mean(&per_second);
    let t = &p.thresholds;
    let steady_from_s = ((t.detect_cooldown_ms + t.detect_jitter_ms) / 1_000) as usize;
    let steady_from_s = steady_from_s.min(per_second.len());
    let (onset_peak_qps, _) = peak_mean(&per_second[..steady_from_s]);
    let (steady_peak_qps, steady_mean_qps) = peak_mean(&per_second[steady_from_s..]);
    FleetResult {
        peak_qps,
        mean_qps,
        peak_to_mean: ratio(peak_qps, mean_qps),
        total_probes: total,
        onset_peak_qps,
        steady_from_s,
        steady_peak_qps,
        steady_mean_qps,
        steady_peak_to_mean: ratio(steady_peak_qps, steady_mean_qps),
        per_second,
    }
}

fn peak_mean(per_second: &[u64]) -> (u64, f64) {
    let peak = per_second.iter().copied().max().unwrap_or(0);
    let mean = per_second.iter().sum::<u64>() as f64 / per_second.len().max(1) as f64;
    (peak, mean)
}

fn ratio(peak: u64, mean: f64) -> f64 {
    if mean > 0.0 {
        peak as f64 / mean
    } else {
        0.0
    }
}

/// Linekit's defaults, installs that know the backup is fast.
pub fn linekit(installs: u32, outage_s: u64) -> FleetParams {
    FleetParams {
        installs,
        outage_s,
        request_interval_ms: 10_000,
        thresholds: Thresholds::default(),
        discovery: Discovery::Known,
    }
}

/// Linekit's defaults, installs that have no data on the backup and can learn it only by
/// probing (the worst case).
pub fn linekit_backup_unknown(installs: u32, outage_s: u64) -> FleetParams {
    FleetParams {
        discovery: Discovery::ProbeOnly,
        ..linekit(installs, outage_s)
    }
}

/// The same cooldown without jitter: every install probes in lock-step.
pub fn lock_step(installs: u32, outage_s: u64) -> FleetParams {
    FleetParams {
        thresholds: Thresholds {
            detect_jitter_ms: 0,
            urgent_jitter_ms: 0,
            ..Thresholds::default()
        },
        ..linekit(installs, outage_s)
    }
}
