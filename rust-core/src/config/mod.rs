//! Configuration: the JSON model (DESIGN 3.3), validation that reports every problem with
//! a field path, the source chain (remote → last good remote → sealed asset → hard-coded
//! line) and sealing of the shipped asset with AES-256-GCM.

pub mod model;

pub use model::{
    BizLine, Config, HttpDnsConfig, LineConfig, MergeHost, ProviderConfig, Thresholds, TraceConfig,
};
