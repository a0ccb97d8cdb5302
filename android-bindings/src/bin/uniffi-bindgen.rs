//! The `uniffi-bindgen` CLI, built from the same UniFFI version as the library so the
//! generated Kotlin always matches the scaffolding. Host tool only (feature `bindgen`).

fn main() {
    uniffi::uniffi_bindgen_main()
}
