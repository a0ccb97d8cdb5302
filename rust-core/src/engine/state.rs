//! The engine's state as one typed value, [`EngineState`]: what [`super::LineKit::state`]
//! returns and what [`super::LineKit::state_json`] serializes.
//!
//! One declaration serves every reader. The JSON is this value's serde form (objects with
//! their keys sorted, as `serde_json::Value` orders them); with the `uniffi` feature the
//! same structs cross to Kotlin as records, so the Kotlin snapshot is generated from here
//! and cannot drift from the JSON. Names that belong to a wire vocabulary (breaker states,
//! outcomes, config sources, Private DNS modes, HTTPDNS bypass reasons) are carried as
//! their wire names, which the bindings map to the enums generated from the same
//! vocabularies. No payloads, keys, tokens or query strings appear here; line hosts,
//! redacted config URLs and HTTPDNS host names do (they come from the app's own config).

use crate::line::pool::PoolSnapshot;
use serde::Serialize;
use std::collections::HashMap;

use super::DnsRecordState;

/// The engine's state.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct EngineState {
    /// `version` of the config in force.
    pub version: u64,
    /// Whether the kill switch is on (the config's `downgrade` or the runtime switch).
    pub downgrade: bool,
    /// The source the engine started from (a `config_source` wire name).
    pub source: String,
    /// The network the platform last reported.
    pub network: NetworkView,
    /// Each business line's effective rollout mode (an `off`/`observe`/`on` wire name), by
    /// business line.
    pub rollout: HashMap<String, String>,
    /// Every pool's lines, best first, keyed `"biz/protocol"` (e.g. `"spot/http"`).
    pub pools: HashMap<String, PoolSnapshot>,
    /// The current network's HTTPDNS records and the providers' back-off.
    pub httpdns: HttpDnsState,
    /// The config in force: its source, expiry and the remote fetches.
    pub config: ConfigState,
}

/// The network the platform last reported, and whether HTTPDNS is bypassed on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NetworkView {
    /// `Network.getNetworkHandle()`; 0 = no network.
    pub handle: u64,
    /// The platform validated internet access.
    pub validated: bool,
    /// The network is a VPN.
    pub vpn: bool,
    /// The Private DNS mode (a `private_dns` wire name).
    pub private_dns: String,
    /// An HTTP proxy is configured.
    pub proxy: bool,
    /// `wifi`, `cellular`, … when known.
    pub transport: Option<String>,
    /// Why HTTPDNS is bypassed on this network (an `httpdns_bypass` wire name), or null
    /// when it is used.
    pub httpdns_bypass: Option<String>,
}

/// HTTPDNS on the current network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HttpDnsState {
    /// The records, sorted by host.
    pub records: Vec<DnsRecordState>,
    /// Each provider's back-off.
    pub providers: Vec<ProviderBackoff>,
}

/// How long one HTTPDNS provider is still backed off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ProviderBackoff {
    /// The provider's id.
    pub id: String,
    /// Milliseconds left (0 = usable).
    pub backoff_ms: u64,
}

/// The config in force and the remote fetches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ConfigState {
    /// Where the config in force came from (a `config_source` wire name).
    pub source: String,
    /// Its `version`.
    pub version: u64,
    /// Its `expires_at` (Unix seconds), if it has one.
    pub expires_at: Option<u64>,
    /// Whether it is past `expires_at` (it still routes).
    pub expired: bool,
    /// `ok`, or `config_expired` once it is past `expires_at`.
    pub status: String,
    /// The sources skipped at start-up, in chain order, with why.
    pub skipped: Vec<SkippedSource>,
    /// Each config URL's last fetch outcome, in `remote.urls` order.
    pub fetch: Vec<ConfigFetch>,
}

/// A config source skipped at start-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SkippedSource {
    /// The source (a `config_source` wire name).
    pub source: String,
    /// Why it was skipped (the error, without config content or keys).
    pub reason: String,
}

/// The last fetch of one config URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ConfigFetch {
    /// The URL as the config lists it, redacted: no credentials, the query as a digest
    /// ([`crate::trace::redact_url`]).
    pub url: String,
    /// What its last fetch gave (`applied`, `not_modified`, a rejection reason, …).
    pub last_outcome: String,
}

impl EngineState {
    /// The JSON form: this value's serde form with every object's keys sorted.
    pub fn to_json(&self) -> String {
        // Serializing these structs cannot fail (string keys, no custom serializers).
        serde_json::to_value(self)
            .unwrap_or(serde_json::Value::Null)
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::pool::LineSnapshot;

    #[test]
    fn the_json_is_the_typed_value_with_sorted_keys() {
        let line = LineSnapshot {
            id: "a".into(),
            host: "a.example.com".into(),
            breaker: "open".into(),
            successes: 1,
            failures: 3,
            avg_latency_ms: Some(40),
            used: true,
            last_error: Some("http_5xx".into()),
            current: false,
            version: None,
        };
        let state = EngineState {
            version: 3,
            downgrade: false,
            source: "sealed".into(),
            network: NetworkView {
                handle: 7,
                validated: true,
                vpn: false,
                private_dns: "off".into(),
                proxy: false,
                transport: Some("wifi".into()),
                httpdns_bypass: None,
            },
            rollout: HashMap::from([("spot".to_string(), "observe".to_string())]),
            pools: HashMap::from([("spot/http".to_string(), PoolSnapshot { lines: vec![line] })]),
            httpdns: HttpDnsState {
                records: vec![],
                providers: vec![ProviderBackoff {
                    id: "ali".into(),
                    backoff_ms: 0,
                }],
            },
            config: ConfigState {
                source: "sealed".into(),
                version: 3,
                expires_at: None,
                expired: false,
                status: "ok".into(),
                skipped: vec![SkippedSource {
                    source: "remote".into(),
                    reason: "invalid: version: missing".into(),
                }],
                fetch: vec![],
            },
        };
        assert_eq!(
            state.to_json(),
            concat!(
                r#"{"config":{"expired":false,"expires_at":null,"fetch":[],"#,
                r#""skipped":[{"reason":"invalid: version: missing","source":"remote"}],"#,
                r#""source":"sealed","status":"ok","version":3},"downgrade":false,"#,
                r#""httpdns":{"providers":[{"backoff_ms":0,"id":"ali"}],"records":[]},"#,
                r#""network":{"handle":7,"httpdns_bypass":null,"private_dns":"off","proxy":false,"#,
                r#""transport":"wifi","validated":true,"vpn":false},"#,
                r#""pools":{"spot/http":[{"avg_latency_ms":40,"breaker":"open","current":false,"#,
                r#""failures":3,"host":"a.example.com","id":"a","last_error":"http_5xx","#,
                r#""successes":1,"used":true,"version":null}]},"rollout":{"spot":"observe"},"#,
                r#""source":"sealed","version":3}"#
            )
        );
    }
}
