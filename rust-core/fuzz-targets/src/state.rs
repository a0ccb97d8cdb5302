//! The state-file loader: header and checksum, the JSON body, and the import of what it
//! holds into live pools and a DNS cache (which rebuild deadlines from wall-clock ages).
//!
//! The first input byte picks the framing: odd = the rest is a body behind a correct
//! header (so the fuzzer reaches the JSON and the importers instead of stopping at the
//! checksum); even = the rest is the whole file as read from disk.

use linekit_core::config::model::{HttpDnsConfig, LineConfig, Thresholds};
use linekit_core::dns::{DnsCache, DnsSettings};
use linekit_core::line::{LinePool, Protocol};
use linekit_core::store::encode_checked;
use linekit_core::store::state::{decode_state, STATE_TAG, STATE_VERSION};
use std::path::Path;

/// Wall clock of the importing process (Unix ms) and its monotonic now.
const WALL_MS: u64 = 1_700_000_000_000;
const NOW_MS: u64 = 5_000_000;

/// Decodes `data` as a state file and imports it.
pub fn state_file(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let bytes = if selector % 2 == 1 {
        let Ok(body) = std::str::from_utf8(rest) else {
            return;
        };
        encode_checked(STATE_TAG, STATE_VERSION, body).into_bytes()
    } else {
        rest.to_vec()
    };
    let Ok(body) = decode_state(Path::new("state.json"), bytes) else {
        return;
    };
    let thresholds = Thresholds::default();
    for persisted in &body.pools {
        let Ok(protocol) = persisted.protocol.parse::<Protocol>() else {
            continue;
        };
        let lines = pool_lines(protocol);
        let Ok(mut pool) = LinePool::new(protocol, &lines, &thresholds, true) else {
            continue;
        };
        let imported = pool.import(&persisted.lines, NOW_MS, WALL_MS);
        assert!(
            imported <= lines.len(),
            "imported more lines than the pool has"
        );
        let _ = pool.export(NOW_MS, WALL_MS);
    }
    let config = HttpDnsConfig {
        hosts: vec!["*".into()],
        ..HttpDnsConfig::default()
    };
    let (settings, _) = DnsSettings::from_config(&config);
    let cache = DnsCache::new(settings, u64::from(selector));
    let _ = cache.import(&body.dns, NOW_MS, WALL_MS);
    let _ = cache.lookup("a.example.com", NOW_MS);
    let _ = cache.export(WALL_MS, NOW_MS);
}

/// The pool the fuzzed statistics are imported into: ids and origins a seed can name.
fn pool_lines(protocol: Protocol) -> Vec<LineConfig> {
    let scheme = match protocol {
        Protocol::Http => "https",
        Protocol::Ws => "wss",
    };
    ["a", "b", "c"]
        .iter()
        .map(|id| LineConfig {
            id: (*id).into(),
            url: format!("{scheme}://{id}.example.com"),
            priority: None,
            weight: 100,
        })
        .collect()
}
