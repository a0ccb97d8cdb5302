//! The bounds of every number a config may hold, in one place.
//!
//! Validation refuses a value outside its bound with the field's path (the rules in
//! `config::rules`, `config::remote` and `config::httpdns_rules` compare against these
//! constants), the generated JSON Schema states the same maxima (the model's `schemars`
//! attributes name these constants), and `docs/config.md#limits` lists them.
//!
//! Why every number is bounded: an unbounded field is a lever for a config that validates
//! yet breaks the engine. A `version` of `u64::MAX` would lock out every later update, a
//! `max_ttl_s` of `u64::MAX` would keep a record forever, and durations near `u64::MAX`
//! overflow the millisecond arithmetic of timers (which saturates anyway, so a bound is the
//! second line of defence, not the only one). The maxima are far above any realistic value
//! so that no real config meets them; they are chosen by kind:
//!
//! - *deadlines* (how long one attempt may take): 10 minutes;
//! - *delays and short windows* (jitter, stable-connection spans, trace windows): 1 day;
//! - *periods* (cooldowns, holds, revive intervals, the statistics window, fetch rounds):
//!   30 days;
//! - *counts*: a few orders of magnitude above their defaults.

/// Largest `version`: 2^53, the largest integer every JSON implementation reads exactly.
pub const MAX_VERSION: u64 = 1 << 53;

/// Largest `expires_at`: 9999-12-31T23:59:59Z in Unix seconds.
pub const MAX_EXPIRES_AT_S: u64 = 253_402_300_799;

/// One day in milliseconds.
pub const DAY_MS: u64 = 86_400_000;

/// Largest deadline of one attempt (`thresholds.timeout_ms`, `slow_request_ms`,
/// `slow_switch_ms`, `remote.timeout_ms`): 10 minutes.
pub const MAX_DEADLINE_MS: u64 = 600_000;

/// Largest delay or short window (`detect_jitter_ms`, `urgent_jitter_ms`, `ws_stable_ms`,
/// `trace.window_ms`): 1 day.
pub const MAX_DELAY_MS: u64 = DAY_MS;

/// Largest period (`detect_cooldown_ms`, `switch_interval_ms`, `window_ms`,
/// `open_cooldown_ms`, `revive_interval_ms`, `startup_detect_delay_ms`,
/// `read_fault_hold_ms`): 30 days.
pub const MAX_PERIOD_MS: u64 = 30 * DAY_MS;

/// Largest `thresholds.failure_threshold`.
pub const MAX_FAILURE_THRESHOLD: u32 = 1_000;

/// Upper bound of `thresholds.max_retries`.
pub const MAX_RETRIES: u32 = 5;

/// Largest `thresholds.probe_budget_per_min`.
pub const MAX_PROBE_BUDGET_PER_MIN: u32 = 1_000;

/// Largest `thresholds.slow_switch_count`.
pub const MAX_SLOW_SWITCH_COUNT: u32 = 1_000;

/// Largest `thresholds.buffer_body_max_bytes` (16 MiB: a buffered body is held in memory).
pub const MAX_BUFFER_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// Upper bound of a line's `weight`.
pub const MAX_WEIGHT: u32 = 10_000;

/// Largest line `priority`.
pub const MAX_PRIORITY: u32 = 1_000_000;

/// Largest `httpdns.max_ttl_s` (and so `min_ttl_s`): 1 day.
pub const MAX_TTL_S: u64 = 86_400;

/// Longest accepted `serve_stale.max_stale_s` (a day).
pub const MAX_STALE_S: u64 = 86_400;

/// Longest accepted `aliyun-sign` `validity_s` (a day).
pub const MAX_SIGN_VALIDITY_S: u64 = 86_400;

/// Most addresses listed for one bootstrap host (within the cap of addresses one host
/// may have from any source, [`crate::dns::providers::MAX_ADDRS_PER_HOST`]).
pub const MAX_BOOTSTRAP_ADDRS: usize = 16;
const _: () = assert!(MAX_BOOTSTRAP_ADDRS <= crate::dns::providers::MAX_ADDRS_PER_HOST);

/// Shortest allowed `remote.interval_s` (a config server is not a polling target).
pub const MIN_INTERVAL_S: u64 = 60;

/// Longest allowed `remote.interval_s`: 30 days.
pub const MAX_INTERVAL_S: u64 = MAX_PERIOD_MS / 1_000;

/// Most URLs one remote round may try.
pub const MAX_URLS: usize = 8;

/// The finding of a value above its maximum `max`.
pub(crate) fn above(max: impl std::fmt::Display) -> String {
    format!("must be at most {max}")
}
