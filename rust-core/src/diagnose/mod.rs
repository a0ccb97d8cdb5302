//! Network diagnosis: the core's half of "what did the phone actually see".
//!
//! A diagnosis runs in three steps:
//! 1. the engine builds a [`DiagnosisPlan`] ([`crate::LineKit::diagnosis_plan`]): the
//!    network as the platform last reported it, every host the chosen business lines
//!    connect to with the HTTPDNS answer the cache holds for it, and every line with its
//!    address, TLS flag and probe request. Probes come out of the same global probe budget
//!    as detects: lines past the budget are planned without a probe;
//! 2. the platform side measures (system resolver, TCP connect and TLS handshake per
//!    address, the probe per line) through the independent transport, bounded by one
//!    deadline, and hands back [`Observations`];
//! 3. [`render`] turns plan and observations into the report: one JSON document and a
//!    readable text, redacted like traces (line ids, host groups and addresses; never
//!    URLs, paths, queries or tokens; free-text details are bounded and stripped of
//!    control characters).
//!
//! The line plans and the observations are the records the Android bindings hand to and
//! take from Kotlin as they are (UniFFI records under the `uniffi` feature; addresses
//! cross as text, see `crate::ffi`).
//!
//! Addresses the system resolver gave that the public-address policy would refuse for
//! HTTPDNS (loopback, private, link-local, ... for a host not in `allow_private`) are listed
//! as rejected: on a public host they are the mark of a hijacked or captive resolver.

mod render;

pub use render::{render, Rendered};

use crate::line::Protocol;
use crate::net::NetworkState;
use std::net::IpAddr;

/// What a diagnosis measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagnosisPlan {
    /// The business line diagnosed, or `None` for all of them.
    pub biz: Option<String>,
    /// The network as last reported by the platform.
    pub network: NetworkState,
    /// Whether the platform reported a network at all (a host JVM never does).
    pub network_reported: bool,
    /// Why HTTPDNS is bypassed on it, if it is.
    pub httpdns_bypass: Option<&'static str>,
    /// Every distinct line host, in first-use order.
    pub hosts: Vec<HostPlan>,
    /// Every line of the chosen business lines (http pool, then ws).
    pub lines: Vec<LinePlan>,
    /// Timeout of one probe (`thresholds.timeout_ms`).
    pub probe_timeout_ms: u64,
}

impl DiagnosisPlan {
    /// Whether there is anything to measure: `false` once the platform said there is no
    /// network (the report then says so instead of listing failures).
    pub fn network_available(&self) -> bool {
        !self.network_reported || self.network.handle != 0
    }
}

/// One host the lines connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPlan {
    /// Host name or IP literal.
    pub host: String,
    /// What the HTTPDNS cache holds for it (empty: nothing usable).
    pub httpdns: Vec<IpAddr>,
    /// `httpdns` when the cache answered, `system` when the caller would fall back,
    /// `literal` for an IP-literal host.
    pub httpdns_source: &'static str,
}

/// One line to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LinePlan {
    /// Business line.
    pub biz: String,
    /// Pool.
    pub protocol: Protocol,
    /// Line id.
    pub id: String,
    /// Host name or IP literal to connect to.
    pub host: String,
    /// Port (the scheme's default when the line names none).
    pub port: u16,
    /// Whether the connection uses TLS.
    pub tls: bool,
    /// Absolute probe URL (the line's own origin plus `detect_path`; never routed).
    pub probe_url: String,
    /// Probe method (`detect_method`).
    pub probe_method: String,
    /// Whether the probe budget granted this line a probe.
    pub probe_allowed: bool,
    /// Why there is no probe: `no_network`, `no_transport` (the engine never probes) or
    /// `probe_budget`.
    pub probe_skipped: Option<String>,
}

impl LinePlan {
    /// The key of this line in the report: `biz/id` (ids are unique per business line).
    pub fn key(&self) -> String {
        format!("{}/{}", self.biz, self.id)
    }
}

/// What the platform side measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Observations {
    /// System resolver answers per host.
    pub hosts: Vec<HostObservation>,
    /// TCP/TLS per line and address.
    pub addresses: Vec<AddressObservation>,
    /// Probe per line.
    pub probes: Vec<ProbeObservation>,
    /// Wall time the whole diagnosis took.
    pub elapsed_ms: u64,
    /// Whether the deadline cut some measurements short.
    pub timed_out: bool,
}

/// The system resolver's answer for one host.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HostObservation {
    /// Host (as in [`HostPlan::host`]).
    pub host: String,
    /// Addresses answered.
    pub addresses: Vec<IpAddr>,
    /// Why it failed (`dns_failure`, `timeout`, ...).
    pub error: Option<String>,
    /// Time taken.
    pub ms: Option<u64>,
}

/// TCP connect and TLS handshake to one address of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressObservation {
    /// [`LinePlan::key`].
    pub line: String,
    /// Address tried.
    pub addr: IpAddr,
    /// Connect time.
    pub tcp_ms: Option<u64>,
    /// Why connecting failed (`connect_refused`, `connect_timeout`, `no_route`, ...).
    pub tcp_error: Option<String>,
    /// Handshake time (TLS lines).
    pub tls_ms: Option<u64>,
    /// Why the handshake failed.
    pub tls_error: Option<String>,
}

/// The probe of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ProbeObservation {
    /// [`LinePlan::key`].
    pub line: String,
    /// HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// Time taken.
    pub ms: Option<u64>,
    /// Why no response arrived.
    pub error: Option<String>,
}
