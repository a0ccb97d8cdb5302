//! Line configs and pools for the line-quality tests and the pool benchmarks: line `x`
//! serves `https://x.example.com` with the default weight and its position as priority.
//! Benchmarks include this file with `#[path]`, so it depends on `linekit_core` alone.

#![allow(dead_code)]

use linekit_core::config::{LineConfig, Thresholds};
use linekit_core::line::{LinePool, Protocol};

/// The config of line `id`.
pub fn line_config(id: &str) -> LineConfig {
    LineConfig {
        id: id.to_string(),
        url: format!("https://{id}.example.com"),
        priority: None,
        weight: 100,
    }
}

/// One config per id, in order.
pub fn line_configs(ids: &[&str]) -> Vec<LineConfig> {
    ids.iter().map(|id| line_config(id)).collect()
}

/// `n` lines `line0`, `line1`, … serving `https://cdn0.example.com`, … with the default
/// weight.
pub fn cdn_lines(n: usize) -> Vec<LineConfig> {
    (0..n)
        .map(|i| LineConfig {
            id: format!("line{i}"),
            url: format!("https://cdn{i}.example.com"),
            priority: None,
            weight: 100,
        })
        .collect()
}

/// An HTTP pool of `ids` under thresholds `t`.
pub fn http_pool(ids: &[&str], t: &Thresholds) -> LinePool {
    LinePool::new(Protocol::Http, &line_configs(ids), t, false).expect("pool")
}
