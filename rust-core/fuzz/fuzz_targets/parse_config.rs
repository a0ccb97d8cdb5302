//! Fuzzes config parsing and validation (`parse_config`); a config that validates must
//! also build an engine (pools, DNS cache, providers) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linekit_core::config::validate::parse_config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = parse_config(text) {
        let clock = std::sync::Arc::new(linekit_core::ManualClock::new(0, 0));
        let sink = std::sync::Arc::new(linekit_core::trace::event::NoopSink);
        if let Ok(kit) = linekit_core::LineKit::new(config, clock, sink, 1) {
            let _ = kit.lookup("a.example.com");
            let _ = kit.state_json();
        }
    }
});
