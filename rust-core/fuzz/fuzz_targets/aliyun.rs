//! Fuzzes the `aliyun` HTTPDNS answer parser (and the cache insert of what it accepts).
#![no_main]

use libfuzzer_sys::fuzz_target;
use linekit_core::dns::ProviderFormat;

fuzz_target!(|data: &[u8]| {
    linekit_core_fuzz::provider(ProviderFormat::Aliyun, data);
});
