//! # linekit-core
//!
//! The Linekit line engine: every routing decision an app makes about *which* CDN line,
//! DNS answer or network path to use is taken here, in pure Rust, with no FFI, OkHttp or
//! Android types. The bindings crate (`linekit-android`) wraps [`engine::LineKit`] for Kotlin;
//! the records it passes through unchanged derive their UniFFI form here, behind the
//! `uniffi` feature it enables (namespace `linekit_core`; see `ffi`).
//!
//! Layout (one idea per module):
//! - [`config`]: the JSON model, validation with field paths, the source chain and sealing.
//! - [`mod@line`]: lines, sliding-window stats, ranking, switch guard, breaker, router,
//!   convergence, WebSocket quality.
//! - [`dns`]: HTTPDNS records, snapshot cache, provider parsers and their authentication,
//!   address policy, quarantine, serve-stale, bootstrap addresses, connect ranking,
//!   refresh bookkeeping.
//! - [`net`]: network identity/generation and the HTTPDNS bypass policy.
//! - [`detect`]: the probe scheduler (triggers, single-flight, cooldown, jitter, budget).
//! - [`diagnose`]: the network diagnosis plan (what to measure, within the probe budget)
//!   and its redacted report.
//! - [`store`]: atomic, checksummed files for everything kept on disk.
//! - [`trace`]: reason codes, trace events, redaction and sampling.
//! - [`runtime`]: the timer queue on the injectable clock that runs background work.
//! - [`transport`]: the callback-based `Transport` for probes and HTTPDNS queries.
//! - [`engine`]: the `LineKit` facade owning all of the above.
//!
//! The core talks to the world through small traits only: [`clock::Clock`],
//! [`trace::TraceSink`], [`transport::Transport`] and a storage directory, so every rule
//! is testable in virtual time. The developer tools (replay scenarios, what-if replays of
//! traces, the HTML report, the `linekit` command) live in the `linekit-tools` crate, on
//! this crate's public API.
#![deny(missing_docs)]
// Public docs may name internal modules and items (the design is explained where it
// lives); `cargo doc --document-private-items` renders those links.
#![allow(rustdoc::private_intra_doc_links)]

/// Declares a module outside the public API: crate-private, and public only with the
/// `testing` feature, which the integration tests, benchmarks and fuzz targets turn on to
/// reach the parts they check one by one. The bindings and the tools build without it, so
/// whatever they use is declared `pub mod`.
macro_rules! internal_mod {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[cfg(feature = "testing")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "testing"))]
        pub(crate) mod $name;
    };
}

#[cfg(feature = "uniffi")]
mod ffi;
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("linekit_core");
pub mod clock;
pub mod config;
internal_mod!(detect);
pub mod diagnose;
pub mod dns;
pub mod engine;
pub mod error;
internal_mod!(host_pattern);
pub mod line;
pub mod net;
internal_mod!(runtime);
pub mod store;
pub mod trace;
pub mod transport;
pub mod wire;

pub use clock::{Clock, ManualClock, SystemClock};
pub use engine::LineKit;
pub use error::{Error, Result};
