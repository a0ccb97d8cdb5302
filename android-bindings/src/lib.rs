//! `liblinekit.so`: the native library loaded by the Kotlin side.
//!
//! Two doors lead into the same [`linekit_core::engine::LineKit`]:
//!
//! - **UniFFI (control plane)** — [`NativeLineKit`] and its records ([`RouteRequest`],
//!   [`RouteDecision`], [`AttemptReport`], [`ConfigUpdate`], [`NetworkInfo`], [`WsEvent`]) plus the
//!   foreign [`TraceSink`] callback. Generated Kotlin lives in package `dev.linekit.ffi`
//!   (see `uniffi.toml`); it is produced by the build in library mode and never committed.
//!   UniFFI catches panics on its own calls and turns them into exceptions.
//! - **JNI (data plane)** — [`fast`] exports `Java_dev_linekit_internal_NativeFast_*` for
//!   the two calls made on every request (`route`, `report`). A UniFFI call goes through
//!   JNA and costs microseconds; these cost a few hundred nanoseconds. They reach the
//!   engine through the handle returned by [`NativeLineKit::native_handle`] (a leaked
//!   `Arc` released exactly once by `release`), catch every panic and rethrow it as a
//!   Java exception.
//!
//! - **Transport** — [`HttpTransport`] is the foreign callback the core uses for probes
//!   and HTTPDNS queries (Kotlin's `OkHttpTransport`); results come back through the
//!   [`TransportCompletion`] object, so no runtime thread blocks on the network.
//! - **Diagnosis** — [`NativeLineKit::diagnosis`] returns a [`DiagnosisSession`] with the
//!   core's plan; Kotlin measures and the session renders the redacted report.
//! - **DNS** — [`NativeLineKit::lookup`] and the connect results through UniFFI, and the
//!   same calls through JNI in [`fast_dns`] for `LineKitDns` (one per new connection).
//!
//! On Android the first engine built initialises `android_logger` (tag `Linekit`).

uniffi::setup_scaffolding!();

mod diagnosis;
mod dns;
mod dns_fallback;
mod error;
pub mod fast;
pub mod fast_connect;
pub mod fast_dns;
mod native;
mod records;
mod remote;
mod sink;
mod transport;
mod ws;

pub use diagnosis::{
    AddressCheck, DiagnosisHost, DiagnosisLine, DiagnosisMeasurements, DiagnosisPlan,
    DiagnosisSession, DiagnosisText, HostAnswer, ProbeCheck,
};
pub use dns::{pack_lookup, ConnectFailure, DnsSource, LookupResult};
pub use error::LineKitError;
pub use native::NativeLineKit;
pub use records::{
    AttemptReport, ConfigUpdate, NetworkInfo, Outcome, PrivateDns, Protocol, RouteDecision,
    RouteRequest,
};
pub use remote::{app_config_errors, ConfigFieldError};
pub use sink::TraceSink;
pub use transport::{
    HttpHeader, HttpTransport, TransportCompletion, TransportFailure, TransportKind,
    TransportOutcome, TransportRequest,
};
pub use ws::{WsCloseCause, WsEvent};

pub use linekit_core;
