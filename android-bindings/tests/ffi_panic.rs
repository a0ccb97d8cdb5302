//! `cargo test` side of `examples/ffi_panic.rs`: a panic inside a UniFFI call comes back as
//! an error status and the engine carries on. The example itself is what proves the
//! release build (test binaries always unwind).

#[path = "../examples/ffi_panic.rs"]
mod ffi_panic;

use std::sync::atomic::Ordering;

#[test]
fn a_panic_inside_a_uniffi_call_is_an_error_status_and_the_engine_carries_on() {
    let panics = ffi_panic::count_panics();
    assert_eq!(ffi_panic::check(), Ok(()));
    assert_eq!(panics.load(Ordering::Relaxed), ffi_panic::EXPECTED_PANICS);
}
