//! Fleet simulation of config fetches: many installs start at the same instant (a mass
//! relaunch) and each runs the real engine — its fetch rounds, jitter and back-off — on
//! its own manual clock, against one config server that answers at once. The model counts
//! the fetches reaching the server per second of virtual time. No sockets, no sleeps.

#![allow(dead_code)]

use linekit_core::clock::ManualClock;
use linekit_core::engine::{LineKit, RuntimeMode};
use linekit_core::transport::{
    Completion, RequestKind, Transport, TransportError, TransportRequest, TransportResult,
};
use parking_lot::Mutex;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct ConfigFleetParams {
    /// Number of installs.
    pub installs: u32,
    /// Simulated time in seconds.
    pub duration_s: u64,
    /// `remote.interval_s`.
    pub interval_s: u64,
    /// `remote.jitter_s`.
    pub jitter_s: u64,
    /// The config server fails every fetch during the first this many seconds.
    pub outage_s: u64,
}

/// Fetch traffic reaching the config server.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFleetResult {
    /// Fetches per second (index = second).
    pub per_second: Vec<u64>,
    /// Highest per-second count.
    pub peak_qps: u64,
    /// Mean per-second count.
    pub mean_qps: f64,
    /// `peak / mean`.
    pub peak_to_mean: f64,
    /// All fetches.
    pub total: u64,
}

/// The shared server: counts fetches per virtual second, fails during the outage.
struct Server {
    now: AtomicU64,
    outage_ms: u64,
    per_second: Mutex<Vec<u64>>,
}

impl Transport for Server {
    fn start(&self, request: TransportRequest, done: Completion) {
        let now = self.now.load(Ordering::Relaxed);
        if request.kind != RequestKind::Config {
            done.complete(TransportResult::Response {
                status: 204,
                body: Vec::new(),
                headers: Vec::new(),
            });
            return;
        }
        if let Some(slot) = self.per_second.lock().get_mut((now / 1_000) as usize) {
            *slot += 1;
        }
        done.complete(if now < self.outage_ms {
            TransportResult::Failed(TransportError::ConnectRefused)
        } else {
            TransportResult::Response {
                status: 304,
                body: Vec::new(),
                headers: Vec::new(),
            }
        });
    }
}

fn config(p: &ConfigFleetParams) -> String {
    format!(
        r#"{{"version":1,"biz_lines":{{"spot":{{"match":["api.example.com"],"http":[{{"id":"a","url":"https://spot-a.example.com"}}]}}}},
            "thresholds":{{"revive_interval_ms":100000000,"detect_cooldown_ms":100000000}},
            "remote":{{"urls":["https://cfg.example.com/lk.json"],"interval_s":{},"jitter_s":{},"timeout_ms":5000}}}}"#,
        p.interval_s, p.jitter_s
    )
}

/// Runs the simulation.
pub fn simulate(p: &ConfigFleetParams) -> ConfigFleetResult {
    let server = Arc::new(Server {
        now: AtomicU64::new(0),
        outage_ms: p.outage_s * 1_000,
        per_second: Mutex::new(vec![0; p.duration_s as usize]),
    });
    let text = config(p);
    let end = p.duration_s * 1_000;
    let mut installs: Vec<(LineKit, ManualClock)> = Vec::with_capacity(p.installs as usize);
    let mut heap = BinaryHeap::new();
    for i in 0..p.installs {
        // Monotonic time 0 = the common start; wall time only matters for expiry.
        let clock = ManualClock::new(0, 1_700_000_000_000);
        let kit = LineKit::builder()
            .config_json(text.as_str())
            .clock(Arc::new(clock.clone()))
            .seed(u64::from(i) * 7_919 + 1)
            .transport(server.clone())
            .runtime_mode(RuntimeMode::Manual)
            .build()
            .expect("fleet config");
        if let Some(d) = kit.next_deadline() {
            heap.push(Reverse((d, i)));
        }
        installs.push((kit, clock));
    }
    while let Some(Reverse((t, i))) = heap.pop() {
        if t >= end {
            break;
        }
        let (kit, clock) = &installs[i as usize];
        clock.set_now(t);
        server.now.store(t, Ordering::Relaxed);
        kit.run_due();
        if let Some(d) = kit.next_deadline() {
            heap.push(Reverse((d.max(t), i)));
        }
    }
    for (kit, _) in &installs {
        kit.close();
    }
    let per_second = std::mem::take(&mut *server.per_second.lock());
    let total: u64 = per_second.iter().sum();
    let peak_qps = per_second.iter().copied().max().unwrap_or(0);
    let mean_qps = total as f64 / per_second.len().max(1) as f64;
    ConfigFleetResult {
        peak_to_mean: if mean_qps > 0.0 {
            peak_qps as f64 / mean_qps
        } else {
            0.0
        },
        peak_qps,
        mean_qps,
        total,
        per_second,
    }
}

/// Linekit's defaults (`interval_s` 1800, `jitter_s` 300), over `duration_s`.
pub fn defaults(installs: u32, duration_s: u64) -> ConfigFleetParams {
    ConfigFleetParams {
        installs,
        duration_s,
        interval_s: 1_800,
        jitter_s: 300,
        outage_s: 0,
    }
}

/// No jitter: every install fetches in lock-step.
pub fn lock_step(installs: u32, duration_s: u64) -> ConfigFleetParams {
    ConfigFleetParams {
        jitter_s: 0,
        ..defaults(installs, duration_s)
    }
}
