//! libFuzzer entry for the `trust_keys` target; the body is `linekit_fuzz_targets` (see there).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(t) = linekit_fuzz_targets::TARGETS.iter().find(|t| t.name == "trust_keys") {
        (t.run)(data);
    }
});
