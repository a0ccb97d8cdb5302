//! Line configs and pools for the line-quality tests: line `x` serves `https://x.example.com`
//! with the default weight and its position as priority.

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

/// An HTTP pool of `ids` under thresholds `t`.
pub fn http_pool(ids: &[&str], t: &Thresholds) -> LinePool {
    LinePool::new(Protocol::Http, &line_configs(ids), t, false).expect("pool")
}
