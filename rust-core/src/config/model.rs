//! The configuration model. Field names are a public contract, documented with their defaults
//! in `docs/config.md`. Unknown fields are ignored so newer servers can add fields freely.
//!
//! A section's defaults are written once, on its fields (`#[default(...)]`, derived into
//! `Default` by `SmartDefault`); a field without one defaults to empty or zero. The same
//! `Default` fills fields a document leaves out (`#[serde(default)]`) and the defaults of
//! the generated schema.
//!
//! Each type is read three ways from this one declaration: serde's `Deserialize`, the
//! generated JSON Schema (schemars) and the lenient decoder that validation runs
//! (`#[derive(Decode)]`, see [`super::decode`]), which follows the same serde attributes;
//! its own `#[decode(...)]` attributes add only what validation asks beyond serde (a field
//! required although serde defaults it, a list or map that must not be empty).

use super::decode::Decode;
use super::provider_auth::ProviderAuth;
use serde::{Deserialize, Serialize};
use smart_default::SmartDefault;
use std::collections::BTreeMap;

/// A whole Linekit configuration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(title = "Linekit config"))]
#[serde(default)]
pub struct Config {
    /// Monotonically increasing version; a remote config applies only if newer.
    #[decode(required)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_VERSION)))]
    pub version: u64,
    /// Kill switch: every business line uses its first line by priority.
    pub downgrade: bool,
    /// Allow `http://` / `ws://` lines and fixed hosts.
    pub allow_cleartext: bool,
    /// Tunables shared by every business line.
    pub thresholds: Thresholds,
    /// Business lines by name.
    #[decode(
        required,
        non_empty = "must name at least one business line",
        key = "super::rules::biz_key"
    )]
    pub biz_lines: BTreeMap<String, BizLine>,
    /// Domain convergence rules.
    pub merge_hosts: Vec<MergeHost>,
    /// Origins (`host[:port]`, exact host names) an `X-Line-Fixed-Host` header may pin a
    /// request to besides the lines' own; any other fixed host is ignored.
    pub fixed_hosts: Vec<String>,
    /// HTTPDNS settings.
    pub httpdns: HttpDnsConfig,
    /// Trace sampling.
    pub trace: TraceConfig,
    /// Staged rollout: how much of Linekit's behaviour each business line gets (a business
    /// line's own `rollout` replaces this one for it).
    pub rollout: Rollout,
    /// Where the engine fetches its remote config (absent: the app feeds `update_config`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<super::remote::RemoteConfig>,
    /// Keys a remote config must be signed with (absent or no keys: configs are unsigned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<super::trust::TrustConfig>,
    /// Unix seconds after which this config is no longer trusted (required with `trust`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_EXPIRES_AT_S)))]
    pub expires_at: Option<u64>,
}

/// Timing and counting thresholds (milliseconds unless named otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Thresholds {
    /// A request or probe slower than this is a failure; all lines slower → first line.
    #[default(3_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_DEADLINE_MS)))]
    pub timeout_ms: u64,
    /// A request slower than this triggers a detect.
    #[default(2_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_DEADLINE_MS)))]
    pub slow_request_ms: u64,
    /// Minimum time between two detects of one business line.
    #[default(30_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_PERIOD_MS)))]
    pub detect_cooldown_ms: u64,
    /// Minimum time between two line switches of one pool (0: no guard, switch freely).
    #[default(10_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_PERIOD_MS)))]
    pub switch_interval_ms: u64,
    /// Length of the sliding statistics window.
    #[default(300_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_PERIOD_MS)))]
    pub window_ms: u64,
    /// Consecutive line faults that open a line's breaker.
    #[default(3)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_FAILURE_THRESHOLD)))]
    pub failure_threshold: u32,
    /// How long an open breaker keeps a line out before half-open.
    #[default(30_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_PERIOD_MS)))]
    pub open_cooldown_ms: u64,
    /// How often open lines get a revive probe.
    #[default(600_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_PERIOD_MS)))]
    pub revive_interval_ms: u64,
    /// How many extra lines one call may try after a line fault.
    #[default(1)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_RETRIES)))]
    pub max_retries: u32,
    /// Upper bound of the random delay before a detect starts. The default spans the
    /// whole cooldown, so installs that hit the same outage at the same instant spread
    /// their probes evenly instead of arriving in waves (see the fleet simulation).
    #[default(30_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_DELAY_MS)))]
    pub detect_jitter_ms: u64,
    /// Delay before the start-up detect (plus jitter).
    #[default(3_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_PERIOD_MS)))]
    pub startup_detect_delay_ms: u64,
    /// Global cap on probes per minute per install.
    #[default(20)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_PROBE_BUDGET_PER_MIN)))]
    pub probe_budget_per_min: u32,
    /// A WebSocket that closes abnormally sooner than this after opening counts against
    /// its line.
    #[default(30_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_DELAY_MS)))]
    pub ws_stable_ms: u64,
    /// A response to a replayable request whose declared length is at most this many
    /// bytes is read whole before the call returns, so a cut-off body is a line fault
    /// retried on the next line (0 = never buffer). Longer and streaming bodies are
    /// watched while the app reads them instead.
    #[default(256 * 1024)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_BUFFER_BODY_BYTES)))]
    pub buffer_body_max_bytes: u64,
    /// This many consecutive requests slower than `slow_request_ms` on the serving line
    /// move its traffic to a line known to be fast, even inside the switch interval.
    #[default(3)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_SLOW_SWITCH_COUNT)))]
    pub slow_switch_count: u32,
    /// A streak of at least two slow requests on the serving line that has lasted this long
    /// (from its first slow request) moves traffic the same way, when requests are sparse.
    #[default(3_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_DEADLINE_MS)))]
    pub slow_switch_ms: u64,
    /// Upper bound of the random delay before an urgent detect (slow requests, consecutive
    /// failures, WebSocket handshake failures, with no line known to be fast) that opens an
    /// incident, i.e. is the first urgent detect of its business line for two cooldowns.
    /// Later detects of the same incident use `detect_jitter_ms`. Wide enough to spread a
    /// fleet that must discover its lines at the same instant over several seconds, short
    /// against the cooldown.
    #[default(10_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_DELAY_MS)))]
    pub urgent_jitter_ms: u64,
    /// For this long after a read-side fault on a line (a truncated body, a reset or a read
    /// timeout), a probe success that does not verify a body (no `detect_expect_length`)
    /// neither clears the fault nor restores the line's rank: a HEAD answer says nothing
    /// of the bodies real traffic just found cut (0 = every probe success counts). For
    /// as long, the serving line's traffic moves to a line known to be fast that has no
    /// such fault, even inside the switch interval.
    #[default(60_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_PERIOD_MS)))]
    pub read_fault_hold_ms: u64,
}

/// One business line: which logical hosts it owns and its pools per protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct BizLine {
    /// Logical hosts (exact, or `*.suffix`) whose requests belong to this business line.
    #[serde(rename = "match")]
    pub match_hosts: Vec<String>,
    /// Path probed by detect requests.
    #[default = "/line/ping"]
    pub detect_path: String,
    /// Method of detect requests (`HEAD` by default).
    #[default = "HEAD"]
    pub detect_method: String,
    /// A probe passes only with this status (default: any status below 400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 100, max = 599)))]
    pub detect_expect_status: Option<u16>,
    /// A probe passes only with a body of exactly this many bytes (`GET` probes only; a
    /// HEAD answer has no body to verify). Catches lines that cut bodies short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(max = crate::transport::MAX_BODY_BYTES)))]
    pub detect_expect_length: Option<u64>,
    /// HTTP lines.
    #[decode(non_empty = EMPTY_POOL)]
    pub http: Vec<LineConfig>,
    /// WebSocket lines.
    #[decode(non_empty = EMPTY_POOL)]
    pub ws: Vec<LineConfig>,
    /// Response header carrying the deployment fingerprint of the line that answered
    /// (e.g. `X-Deployment-Version`); `None` turns the version guard off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_header: Option<String>,
    /// What the version guard does when lines disagree on the fingerprint.
    pub version_policy: VersionPolicy,
    /// Before traffic moves to another line of the HTTP pool (a pending switch, trouble on
    /// the serving line), open a connection to it on the business client's pool, at most
    /// once per line per switch and from the probe budget, on a validated network only.
    #[default(true)]
    pub warm_connections: bool,
    /// This business line's staged rollout, replacing the top-level `rollout` as a whole
    /// (its absent fields take their defaults, not the top level's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<Rollout>,
}

pub use crate::wire::vocabulary::RolloutMode;

/// A staged rollout: `percent` of installs (by the stable per-install bucket) get `mode`,
/// the others get `others`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Rollout {
    /// The mode of installs inside `percent`.
    #[default(RolloutMode::On)]
    pub mode: RolloutMode,
    /// Share of installs that get `mode`, in percent (0..=100).
    #[default(100)]
    #[cfg_attr(feature = "schema", schemars(range(max = 100)))]
    pub percent: u32,
    /// The mode of the remaining installs.
    #[default(RolloutMode::Off)]
    pub others: RolloutMode,
}

/// The finding of a pool given as an empty list.
const EMPTY_POOL: &str = "empty pool: list at least one line or omit the field";

/// What the version guard does with lines whose deployment fingerprint differs from the
/// business line's reference (see [`crate::line::version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum VersionPolicy {
    /// A switch skips lines of another known fingerprint while a same-fingerprint line is
    /// usable; decisions that land on one anyway are flagged.
    Strict,
    /// Nothing is skipped; decisions that land on another fingerprint are flagged.
    #[default]
    Report,
}

impl VersionPolicy {
    /// `strict` or `report`.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionPolicy::Strict => "strict",
            VersionPolicy::Report => "report",
        }
    }
}

/// One CDN line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LineConfig {
    /// Stable identifier, unique within the business line.
    pub id: String,
    /// `scheme://host[:port]` of the line.
    pub url: String,
    /// Lower is preferred; defaults to the position in the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[decode(nullable)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_PRIORITY)))]
    pub priority: Option<u32>,
    /// Relative preference among healthy lines (default 100).
    #[serde(default = "default_weight")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_WEIGHT)))]
    pub weight: u32,
}

/// The `weight` of a line that names none.
pub(crate) fn default_weight() -> u32 {
    100
}

/// A legacy host converged onto a business line with a path prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MergeHost {
    /// The legacy host, e.g. `image.example.com`.
    pub host: String,
    /// The unified business line that serves it.
    pub biz: String,
    /// Prefix prepended to the original path, e.g. `/image`.
    #[serde(default)]
    pub path_prefix: String,
    /// Share of installs (0..=1) released onto the unified host.
    #[serde(default = "default_rate")]
    pub rate: f64,
}

/// The `rate` of a merge host that names none.
pub(crate) fn default_rate() -> f64 {
    1.0
}

/// HTTPDNS settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct HttpDnsConfig {
    /// Providers tried in order.
    pub providers: Vec<ProviderConfig>,
    /// Hosts (exact or `*.suffix`) resolved through HTTPDNS at all.
    pub hosts: Vec<String>,
    /// Hosts (exact or `*.suffix`) whose answers may keep private-use addresses.
    pub allow_private: Vec<String>,
    /// Refresh when this share of the TTL has passed.
    #[default(0.75)]
    pub refresh_ratio: f64,
    /// Random jitter, as a share of the TTL, subtracted from the refresh time.
    #[default(0.1)]
    pub jitter_ratio: f64,
    /// Lower clamp for TTLs.
    #[default(30)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_TTL_S)))]
    pub min_ttl_s: u64,
    /// Upper clamp for TTLs.
    #[default(3_600)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_TTL_S)))]
    pub max_ttl_s: u64,
    /// Hosts resolved ahead of need at start-up and after the network is validated.
    pub pre_resolve: Vec<String>,
    /// Opt-in per host: serve an expired record for a while during a refresh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serve_stale: Option<ServeStaleConfig>,
    /// App-vouched addresses per host, offered as a last-resort fallback.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub bootstrap: BTreeMap<String, Vec<String>>,
}

/// `httpdns.serve_stale`: hosts whose owner agreed to expired answers being served.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ServeStaleConfig {
    /// Hosts (exact or `*.suffix`).
    #[decode(required)]
    pub hosts: Vec<String>,
    /// How long past `expires_at` a record may still be served, in seconds.
    #[decode(required)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = super::limits::MAX_STALE_S)))]
    pub max_stale_s: u64,
}

/// One HTTPDNS provider endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[decode(unsupported = "super::validate::unsupported_provider")]
pub struct ProviderConfig {
    /// Identifier used in traces and back-off bookkeeping.
    pub id: String,
    /// `aliyun`, `aliyun-batch`, `dnspod`, `doh-json` or `doh-wire`.
    pub format: String,
    /// Endpoint URL.
    pub url: String,
    /// Request signing or encryption (none = plain requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<ProviderAuth>,
}

/// Trace settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TraceConfig {
    /// Share of installs that record, decided afresh for each time window.
    #[default(0.01)]
    pub sample_rate: f64,
    /// Length of a sampling window: an install that records keeps every event of it.
    #[default(600_000)]
    #[cfg_attr(feature = "schema", schemars(range(max = super::limits::MAX_DELAY_MS)))]
    pub window_ms: u64,
}

/// The JSON Schema of a config document, generated from [`Config`] (checked in as
/// `docs/config.schema.json`). It describes shapes and defaults; the rules that relate
/// fields to each other live in [`super::validate`] (`docs/config.md#validation`).
#[cfg(feature = "schema")]
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Config);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}
