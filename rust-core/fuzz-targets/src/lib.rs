//! The bodies of every cargo-fuzz target, one function per target.
//!
//! The fuzz crate (`rust-core/fuzz`, built by cargo-fuzz on a nightly-capable compiler)
//! only wraps these functions in `fuzz_target!`. Keeping them here, in an ordinary
//! workspace crate, lets `cargo test` replay each target's committed corpus
//! (`rust-core/fuzz/seeds/<target>/`) on the stable compiler, so every input a fuzzer
//! once found interesting — and every crash it found — stays a regression test.
//!
//! Each function must never panic, on any input; where an input parses, it checks the
//! invariants the consumers of that parser rely on (and panics when one breaks, which a
//! fuzzer reports as a crash).

#![deny(missing_docs)]

mod config_envelope;
mod encrypted;
mod jni_pack;
mod provider;
mod replay;
mod state;
mod trust_keys;

pub use config_envelope::config_envelope;
pub use encrypted::encrypted;
pub use jni_pack::jni_pack;
pub use provider::provider;
pub use replay::replay_scenario;
pub use state::state_file;
pub use trust_keys::trust_keys;

use linekit_core::dns::ProviderFormat;

/// A fuzz target: its cargo-fuzz name (= its corpus directory) and its body.
pub struct Target {
    /// The cargo-fuzz binary name and corpus directory name.
    pub name: &'static str,
    /// Runs one input.
    pub run: fn(&[u8]),
}

impl Target {
    /// The target `name` running `run`.
    pub const fn new(name: &'static str, run: fn(&[u8])) -> Self {
        Target { name, run }
    }
}

/// Every target, by name.
pub const TARGETS: &[Target] = &[
    Target::new("aliyun", |d| provider(ProviderFormat::Aliyun, d)),
    Target::new("aliyun_batch", |d| provider(ProviderFormat::AliyunBatch, d)),
    Target::new("dnspod", |d| provider(ProviderFormat::Dnspod, d)),
    Target::new("doh_json", |d| provider(ProviderFormat::DohJson, d)),
    Target::new("doh_wire", |d| provider(ProviderFormat::DohWire, d)),
    Target::new("parse_config", parse_config),
    Target::new("replay_scenario", replay_scenario),
    Target::new("state_file", state_file),
    Target::new("jni_pack", jni_pack),
    Target::new("config_envelope", config_envelope),
    Target::new("trust_keys", trust_keys),
    Target::new("dnspod_des", |d| encrypted(false, d)),
    Target::new("dnspod_aes", |d| encrypted(true, d)),
];

/// Config parsing and validation; a config that validates must also build an engine
/// (pools, DNS cache, providers) and answer a lookup and a state dump.
pub fn parse_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = linekit_core::config::validate::parse_config(text) {
        let clock = std::sync::Arc::new(linekit_core::ManualClock::new(0, 0));
        let sink = std::sync::Arc::new(linekit_core::trace::event::NoopSink);
        if let Ok(kit) = linekit_core::LineKit::new(config, clock, sink, 1) {
            let _ = kit.lookup("a.example.com");
            let _ = kit.state_json();
        }
    }
}
