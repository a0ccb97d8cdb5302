//! Configuration: the JSON model (`docs/config.md`), validation that reports every problem with
//! a field path, the source chain (remote → last good remote → sealed asset → hard-coded
//! line) and sealing of the shipped asset with AES-256-GCM.

pub mod accept;
pub(crate) mod decode;
pub mod envelope;
mod fixed_hosts;
mod httpdns_rules;
mod json;
pub mod limits;
pub mod model;
internal_mod!(provider_auth);
internal_mod!(remote);
mod rules;
pub mod seal;
internal_mod!(source);
pub mod trust;
pub mod validate;

pub use fixed_hosts::{fixed_host_entry, MAX_FIXED_HOSTS};
#[cfg(feature = "schema")]
pub use model::json_schema;
pub use model::{
    BizLine, Config, HttpDnsConfig, LineConfig, MergeHost, ProviderConfig, Rollout, RolloutMode,
    Thresholds, TraceConfig, VersionPolicy,
};
pub use rules::{is_valid_biz_name, is_valid_host, is_valid_host_pattern, MAX_REPORTED_ERRORS};
pub use seal::{open, parse_key_hex, seal};
pub use source::{
    check_update, resolve, resolve_at, AppConfigErrors, ConfigSource, ConfigSources, LastGoodStore,
    Persisted, Resolved,
};
pub use validate::{parse_config, parse_config_with_warnings, validate, MAX_CONFIG_BYTES};
