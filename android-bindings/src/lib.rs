//! `liblinekit.so`: the native library loaded by the Kotlin side.
//!
//! Two doors lead into the same [`linekit_core::engine::LineKit`], one per kind of call:
//!
//! - **JNI start** — [`fast_start`] (`NativeStart.start`) builds the engine from the
//!   app's config sources and answers the handle the per-request calls take, so
//!   `build()` and the first route never wait for JNA (or it says why not: every problem
//!   of an invalid app config, or the error). The trace sink and the transport it
//!   announces wait in [`late_bound`] stand-ins until the control plane binds.
//! - **UniFFI (control plane)** — [`bind_engine`] turns a started engine's handle into a
//!   [`NativeLineKit`] and hands over the foreign [`TraceSink`] and [`HttpTransport`]
//!   callbacks; its methods are config updates, network changes, state, downgrade,
//!   detect, WebSocket lifecycle events and shutdown. Kotlin binds it off the caller's
//!   thread right after the start, and a control-plane call waits for it. Generated
//!   Kotlin lives in package `dev.linekit.ffi` (see `uniffi.toml`); it is produced by the
//!   build in library mode and never committed. UniFFI catches panics on its own calls and
//!   turns them into exceptions. Rust callers start an engine with [`start_engine`].
//! - **JNI (data plane)** — [`fast`] (`route`, `report`) and [`fast_dns`] (`lookup`,
//!   connect results) export `Java_dev_linekit_internal_*` for the calls made on every
//!   request or new connection. They are the only path for those calls: a UniFFI call
//!   goes through JNA and costs microseconds, these cost a few hundred nanoseconds. They
//!   reach the engine through the handle of the JNI start (a leaked [`fast::Handle`]
//!   released exactly once by `release`), catch every panic and
//!   rethrow it as a Java exception. Their arguments and answers are primitives; each
//!   record among them is declared once in [`jni_records`] (shapes in [`record_layout`]),
//!   and the strings of a route answer travel as codes ([`fast_codes`]). The host test
//!   build adds `test_hooks` (cargo feature `jni-test-hooks`): exports declared the same
//!   way that let a JVM test provoke a panic.
//!
//! Enums cross both doors as their wire code; their Kotlin form is generated from the
//! core's single declaration by [`kotlin_vocabulary`], and the Kotlin encoders and
//! decoders of the JNI records (plus `docs/jni-records.md`) by [`kotlin_records`].
//!
//! - **Transport** — [`HttpTransport`] is the foreign callback the core uses for probes
//!   and HTTPDNS queries (Kotlin's `OkHttpTransport`); results come back through the
//!   [`TransportCompletion`] object, so no runtime thread blocks on the network.
//! - **Diagnosis** — [`NativeLineKit::diagnosis`] returns a [`DiagnosisSession`] with the
//!   core's plan; Kotlin measures and the session renders the redacted report.
//!
//! On Android the first engine built initialises `android_logger` (tag `Linekit`).

uniffi::setup_scaffolding!();

mod consent;
mod diagnosis;
mod dns;
mod dns_fallback;
mod error;
pub mod fast;
pub mod fast_codes;
pub mod fast_dns;
pub mod fast_start;
pub mod jni_records;
pub mod kotlin_records;
pub mod kotlin_unbind;
pub mod kotlin_vocabulary;
pub mod late_bound;
mod native;
pub mod record_layout;
mod records;
mod remote;
mod sink;
mod startup;
#[cfg(feature = "jni-test-hooks")]
mod test_hooks;
mod transport;
mod ws;

pub use diagnosis::{DiagnosisHost, DiagnosisLine, DiagnosisPlan, DiagnosisSession};
pub use dns::pack_lookup;
pub use error::LineKitError;
pub use native::{bind_engine, NativeLineKit};
pub use records::{ConfigUpdate, NetworkInfo};
pub use sink::TraceSink;
pub use startup::{build_engine, start_engine, ConfigFieldError, StartOptions, Startup};
pub use transport::{
    HttpHeader, HttpTransport, TransportCompletion, TransportOutcome, TransportRequest,
};

pub use linekit_core;
