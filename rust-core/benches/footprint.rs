//! `cargo bench --bench footprint`: what Linekit costs an app besides per-request time.
//!
//! - `startup`: time from `LineKitBuilder::build()` (sealed config of 100 lines: open
//!   AES-GCM, parse, validate, spawn the runtime thread) to the first routed request,
//!   the first time in the process and as the median of later repetitions.
//! - `httpdns_memory`: live heap bytes added by 1,000 hosts × 3 networks of HTTPDNS
//!   records (2 IPv4 + 2 IPv6 addresses each), counted by a global counting allocator
//!   around the inserts (exact, unlike RSS which moves in pages); RSS is shown too.
//!
//! Prints one JSON document.

use linekit_core::config::model::HttpDnsConfig;
use linekit_core::config::seal;
use linekit_core::dns::{DnsCache, DnsSettings, HostAnswer};
use linekit_core::engine::{LineKit, RouteRequest};
use linekit_core::net::NetworkKey;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

/// The system allocator, counting live bytes.
struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);

// SAFETY: delegates to `System`; only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u64>().ok())
        })
        .map(|pages| pages * 4096)
        .unwrap_or(0)
}

/// A config with 20 business lines × 5 HTTP lines = 100 lines.
fn config_100_lines() -> String {
    let biz: serde_json::Map<String, serde_json::Value> = (0..20)
        .map(|b| {
            let lines: Vec<serde_json::Value> = (0..5)
                .map(|l| serde_json::json!({"id": format!("b{b}l{l}"), "url": format!("https://b{b}-l{l}.cdn{l}.example.com"), "priority": l, "weight": 100}))
                .collect();
            (format!("biz{b}"), serde_json::json!({"match": [format!("api{b}.example.com")], "http": lines}))
        })
        .collect();
    serde_json::json!({"version": 1, "trace": {"sample_rate": 0.0}, "biz_lines": biz}).to_string()
}

fn startup() -> serde_json::Value {
    let key = [7u8; 32];
    let sealed =
        seal::seal(config_100_lines().as_bytes(), &key).unwrap_or_else(|e| panic!("seal: {e}"));
    let once = || {
        let s = Instant::now();
        let kit = LineKit::builder()
            .sealed_config(sealed.clone(), key.to_vec())
            .build()
            .unwrap_or_else(|e| panic!("build: {e}"));
        let d = kit.route(&RouteRequest::new(
            "https://api7.example.com/v1/ticker?s=BTC",
            "GET",
        ));
        let ns = s.elapsed().as_nanos() as u64;
        assert_eq!(
            d.line.as_deref(),
            Some("b7l0"),
            "routed onto the first line"
        );
        kit.close();
        black_box(d);
        ns
    };
    let first = once();
    let mut rest: Vec<u64> = (0..200).map(|_| once()).collect();
    rest.sort_unstable();
    serde_json::json!({
        "lines": 100,
        "sealed_bytes": sealed.len(),
        "first_in_process_us": first as f64 / 1000.0,
        "median_us": rest[rest.len() / 2] as f64 / 1000.0,
        "p99_us": rest[rest.len() * 99 / 100] as f64 / 1000.0,
    })
}

fn httpdns_memory() -> serde_json::Value {
    let (settings, _) = DnsSettings::from_config(&HttpDnsConfig {
        hosts: vec!["*.example.com".into()],
        ..HttpDnsConfig::default()
    });
    let cache = DnsCache::new(settings, 1);
    let rss_before = rss_bytes();
    let before = LIVE.load(Ordering::Relaxed);
    for net in 1..=3u64 {
        let key = NetworkKey::new(net, net);
        cache.set_network(key, None);
        for h in 0..1_000u32 {
            let mut a = HostAnswer::new(&format!("host{h}.svc{}.example.com", h % 17), 600);
            for ip in [
                format!("47.118.{}.{}", h / 250, h % 250 + 1),
                format!("47.119.{}.{}", h / 250, h % 250 + 1),
                format!("240e:960:c00:{h:x}::3ef"),
                format!("240e:960:c00:{h:x}::3f0"),
            ] {
                if let Ok(ip) = ip.parse() {
                    a.push(ip);
                }
            }
            let _ = cache.insert(key, "ali", &a, 0, 1_700_000_000_000);
        }
    }
    let added = LIVE.load(Ordering::Relaxed) - before;
    let rss_after = rss_bytes();
    let stored: usize = cache.records().len();
    black_box(&cache);
    serde_json::json!({
        "hosts": 1000,
        "networks": 3,
        "records_on_current_network": stored,
        "heap_bytes_added": added,
        "heap_bytes_per_record": (added as f64 / 3000.0).round(),
        "rss_bytes_added": rss_after.saturating_sub(rss_before),
    })
}

fn main() {
    let memory = httpdns_memory();
    println!(
        "{}",
        serde_json::json!({
            "benchmark": "footprint",
            "startup": startup(),
            "httpdns_memory": memory,
        })
    );
}
