//! Fuzzes the decrypting `dnspod-des` answer path (hex, decryption, padding, then the
//! DNSPod parser and the cache insert).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    linekit_core_fuzz::encrypted(false, data);
});
