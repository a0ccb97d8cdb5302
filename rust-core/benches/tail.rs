//! `cargo bench --bench tail`: tail latency of the `Dns.lookup` hot path (`LineKit::lookup`
//! on a hit) measured call by call, in three situations side by side:
//!
//! - `idle`: nothing else happens;
//! - `writer`: another thread keeps publishing new HTTPDNS snapshots (an insert every
//!   iteration, as fast as it can: far more churn than real refreshes);
//! - `hang`: every record is past `refresh_at`, so each lookup asks for a refresh, and the
//!   HTTPDNS endpoint never answers (queries stay in flight; lookups must not wait).
//!
//! Prints one JSON document (nanoseconds; each per-call figure includes ~20-30 ns of
//! `Instant::now` overhead, the same in every situation).

#[path = "../tests/support/dns.rs"]
mod dns;
#[path = "../tests/support/manual.rs"]
mod manual;

use dns::HOSTS;
use linekit_core::clock::ManualClock;
use linekit_core::dns::Source;
use linekit_core::engine::LineKit;
use linekit_core::net::NetworkState;
use linekit_core::transport::{Completion, Transport, TransportRequest, TransportResult};
use parking_lot::Mutex;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

const SAMPLES: usize = 2_000_000;

/// Answers HTTPDNS queries at once, or (when `hang` is set) keeps them forever.
#[derive(Default)]
struct HangingTransport {
    hang: AtomicBool,
    started: AtomicU64,
    held: Mutex<Vec<Completion>>,
    ready: Mutex<Vec<(TransportRequest, Completion)>>,
}

impl Transport for HangingTransport {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.started.fetch_add(1, Ordering::Relaxed);
        if self.hang.load(Ordering::Relaxed) {
            self.held.lock().push(done);
        } else {
            self.ready.lock().push((request, done));
        }
    }
}

impl HangingTransport {
    /// Answers every queued query with two v4 and two v6 addresses.
    fn answer_all(&self) {
        let ready: Vec<_> = std::mem::take(&mut *self.ready.lock());
        for (req, done) in ready {
            let host = req
                .url
                .split("host=")
                .nth(1)
                .unwrap_or("api.example.com")
                .to_string();
            let [v4a, v4b, v6a, v6b] = dns::ADDRS;
            let body = format!(
                r#"{{"host":"{host}","ips":["{v4a}","{v4b}"],"ipsv6":["{v6a}","{v6b}"],"ttl":600}}"#
            );
            done.complete(TransportResult::Response {
                status: 200,
                body: body.into_bytes(),
                headers: Vec::new(),
            });
        }
    }
}

fn percentiles(mut v: Vec<u64>) -> serde_json::Value {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q) as usize];
    serde_json::json!({
        "samples": v.len(),
        "p50_ns": at(0.50),
        "p99_ns": at(0.99),
        "p999_ns": at(0.999),
        "max_ns": v[v.len() - 1],
    })
}

fn sample(mut f: impl FnMut()) -> Vec<u64> {
    for _ in 0..100_000 {
        f();
    }
    let mut out = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let s = Instant::now();
        f();
        out.push(s.elapsed().as_nanos() as u64);
    }
    out
}

/// The engine with four HTTPDNS records on network 1.
fn engine() -> (Arc<LineKit>, Arc<HangingTransport>, ManualClock) {
    let config = r#"{"version": 1,
      "biz_lines": {"spot": {"match": ["api.example.com"], "http": [{"id": "a", "url": "https://spot-a.example.com"}]}},
      "thresholds": {"startup_detect_delay_ms": 100000000, "revive_interval_ms": 100000000},
      "trace": {"sample_rate": 0.0},
      "httpdns": {"providers": [{"id": "ali", "format": "aliyun", "url": "https://47.74.1.1/1/d"}],
                  "hosts": ["*.example.com"], "refresh_ratio": 0.5, "jitter_ratio": 0, "min_ttl_s": 30}}"#;
    let transport = Arc::new(HangingTransport::default());
    let (kit, clock) = manual::engine(config, 3, &transport);
    kit.on_network_changed(NetworkState {
        handle: 1,
        validated: true,
        ..NetworkState::default()
    });
    for _ in 0..3 {
        for h in HOSTS {
            kit.lookup(h);
        }
        kit.run_due();
        transport.answer_all();
        kit.run_due();
    }
    for h in HOSTS {
        assert_eq!(kit.lookup(h).source, Source::HttpDns, "record for {h}");
    }
    (Arc::new(kit), transport, clock)
}

fn main() {
    // idle and hang go through the engine (`LineKit::lookup`, what the JNI path calls).
    let (kit, transport, clock) = engine();
    let idle = sample(|| {
        black_box(kit.lookup(black_box("api.example.com")));
    });

    // hang: past refresh_at (TTL 600 s, ratio 0.5), before expiry; the endpoint hangs.
    transport.hang.store(true, Ordering::Relaxed);
    clock.advance(400_000);
    let stop = Arc::new(AtomicBool::new(false));
    let runtime = {
        let (kit, stop) = (kit.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                kit.run_due();
                std::thread::yield_now();
            }
        })
    };
    let before = transport.started.load(Ordering::Relaxed);
    let mut i = 0usize;
    let hang = sample(|| {
        i = i.wrapping_add(1);
        let l = kit.lookup(black_box(HOSTS[i & 3]));
        debug_assert_eq!(l.source, Source::HttpDns);
        black_box(l);
    });
    stop.store(true, Ordering::Relaxed);
    let _ = runtime.join();
    let still_served = HOSTS
        .iter()
        .all(|h| kit.lookup(h).source == Source::HttpDns);
    let hung_queries = transport.started.load(Ordering::Relaxed) - before;

    // writer: the cache itself, another thread inserting (each insert publishes a snapshot).
    let (cache, net) = dns::filled_cache();
    let cache = Arc::new(cache);
    let cache_idle = sample(|| {
        black_box(cache.lookup(black_box("api.example.com"), 1_000));
    });
    let published = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (cache, stop, published) = (cache.clone(), stop.clone(), published.clone());
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                n = n.wrapping_add(1);
                let host = HOSTS[(n & 3) as usize];
                let _ = cache.insert(net, "ali", &dns::answer(host, 600 + (n % 50)), 1_000, 0);
                published.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let started = Instant::now();
    let writer_run = sample(|| {
        black_box(cache.lookup(black_box("api.example.com"), 1_000));
    });
    let secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let _ = writer.join();

    println!(
        "{}",
        serde_json::json!({
            "benchmark": "lookup_tail",
            "engine_lookup": {
                "idle": percentiles(idle),
                "httpdns_hanging": percentiles(hang),
                "hanging_queries_started": hung_queries,
                "records_still_served": still_served,
            },
            "cache_lookup": {
                "idle": percentiles(cache_idle),
                "writer_publishing": percentiles(writer_run),
                "snapshots_published_per_s": (published.load(Ordering::Relaxed) as f64 / secs).round(),
            },
        })
    );
}
