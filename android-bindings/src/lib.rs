//! `liblinekit.so`: the native library loaded by the Kotlin side. It exposes the
//! `linekit-core` engine through UniFFI (control plane) and a direct JNI path (per-request
//! calls). This first cut only links the core; the bindings arrive with their issue.

pub use linekit_core;
