//! The one way the core reaches the network: [`Transport`] performs a single HTTP request
//! (a detect probe or an HTTPDNS query) with a deadline.
//!
//! The trait is callback-based so that no runtime thread ever blocks on I/O: `start`
//! must return at once and call the [`Completion`] exactly once, later, from any thread.
//! The Kotlin side implements it with its own `OkHttpClient` (own dispatcher and connection
//! pool, system DNS, never the business client or Linekit's interceptor and `Dns`);
//! `linekit replay` implements it with a script; tests with fakes. The engine enforces the
//! deadline itself as well, so a transport that never answers cannot wedge anything.

use std::fmt;

/// Largest response body the core accepts from a transport (HTTPDNS answers are small).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Most response headers the core reads from one transport response.
pub const MAX_HEADERS: usize = 64;

/// What a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum RequestKind {
    /// A detect probe of one line.
    Probe,
    /// An HTTPDNS query.
    HttpDns,
    /// A fetch of the remote config (`GET` one of `remote.urls`).
    Config,
    /// A connection warmed to a line before traffic moves there (`HEAD` on the line's
    /// detect path). Unlike the others it goes through the business client's connection
    /// pool, so the connection it leaves behind is one the business requests reuse; its
    /// answer is not counted.
    Warm,
}

impl RequestKind {
    /// `probe`, `httpdns`, `config` or `warm`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Probe => "probe",
            RequestKind::HttpDns => "httpdns",
            RequestKind::Config => "config",
            RequestKind::Warm => "warm",
        }
    }

    /// Largest body accepted for this kind: [`MAX_CONFIG_BODY_BYTES`] for config fetches,
    /// [`MAX_BODY_BYTES`] otherwise. A transport reads at most this much and reports a
    /// longer body as [`TransportError::TooLarge`].
    pub fn max_body_bytes(self) -> usize {
        match self {
            RequestKind::Config => MAX_CONFIG_BODY_BYTES,
            RequestKind::Probe | RequestKind::HttpDns | RequestKind::Warm => MAX_BODY_BYTES,
        }
    }
}

/// Largest remote config body accepted (signed envelope included).
pub const MAX_CONFIG_BODY_BYTES: usize = 256 * 1024;

/// One request for the transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportRequest {
    /// Engine-assigned id, unique per engine.
    pub id: u64,
    /// Probe or HTTPDNS query.
    pub kind: RequestKind,
    /// HTTP method.
    pub method: String,
    /// Absolute URL (a fixed line origin or a provider endpoint; never a routed URL).
    pub url: String,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// The request must finish within this many milliseconds.
    pub timeout_ms: u64,
}

/// Why a request failed without an HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum TransportError {
    /// The host name could not be resolved.
    Dns,
    /// The connection was refused or reset.
    ConnectRefused,
    /// Connecting timed out.
    ConnectTimeout,
    /// The TLS handshake failed.
    Tls,
    /// The response did not arrive in time.
    Timeout,
    /// The device has no usable network.
    LocalNetwork,
    /// The request was cancelled (for example on close).
    Cancelled,
    /// The body was larger than [`MAX_BODY_BYTES`].
    TooLarge,
    /// Anything else, with a short description (no URL, no payload).
    Other(String),
}

impl TransportError {
    /// The line outcome this error means for a probe.
    pub fn outcome(&self) -> crate::line::Outcome {
        use crate::line::Outcome;
        match self {
            TransportError::Dns => Outcome::DnsFailure,
            TransportError::ConnectRefused => Outcome::ConnectRefused,
            TransportError::ConnectTimeout => Outcome::ConnectTimeout,
            TransportError::Tls => Outcome::TlsFailure,
            TransportError::Timeout | TransportError::TooLarge | TransportError::Other(_) => {
                Outcome::ReadTimeout
            }
            TransportError::LocalNetwork => Outcome::LocalNetwork,
            TransportError::Cancelled => Outcome::Cancelled,
        }
    }

    /// Parses the replay/FFI names (`dns`, `connect_refused`, `connect_timeout`, `tls`,
    /// `timeout`, `local_network`, `cancelled`, `too_large`; anything else is `Other`).
    pub fn from_name(name: &str) -> TransportError {
        match name {
            "dns" | "dns_failure" => TransportError::Dns,
            "connect_refused" => TransportError::ConnectRefused,
            "connect_timeout" => TransportError::ConnectTimeout,
            "tls" | "tls_failure" => TransportError::Tls,
            "timeout" | "read_timeout" => TransportError::Timeout,
            "local_network" => TransportError::LocalNetwork,
            "cancelled" => TransportError::Cancelled,
            "too_large" => TransportError::TooLarge,
            other => TransportError::Other(other.chars().take(64).collect()),
        }
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Dns => f.write_str("dns failure"),
            TransportError::ConnectRefused => f.write_str("connection refused"),
            TransportError::ConnectTimeout => f.write_str("connect timeout"),
            TransportError::Tls => f.write_str("tls failure"),
            TransportError::Timeout => f.write_str("timeout"),
            TransportError::LocalNetwork => f.write_str("no local network"),
            TransportError::Cancelled => f.write_str("cancelled"),
            TransportError::TooLarge => f.write_str("response too large"),
            TransportError::Other(why) => write!(f, "transport error: {why}"),
        }
    }
}

/// A finished request: an HTTP status with its (size-limited) body, or an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportResult {
    /// An HTTP response arrived.
    Response {
        /// Status code.
        status: u16,
        /// Body (at most [`RequestKind::max_body_bytes`]).
        body: Vec<u8>,
        /// Response headers the engine may read (name, value), in arrival order. A
        /// transport may pass only a bounded subset; at most [`MAX_HEADERS`] are read.
        headers: Vec<(String, String)>,
    },
    /// No response.
    Failed(TransportError),
}

impl TransportResult {
    /// The first value of response header `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        match self {
            TransportResult::Response { headers, .. } => headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str()),
            TransportResult::Failed(_) => None,
        }
    }
}

/// Called once when a request finishes. Dropping it without calling counts as a
/// cancellation; the engine's own deadline covers a completion that is never called.
pub struct Completion(Box<dyn FnOnce(TransportResult) + Send>);

impl Completion {
    /// Wraps a callback.
    pub fn new(f: impl FnOnce(TransportResult) + Send + 'static) -> Self {
        Completion(Box::new(f))
    }

    /// Delivers the result.
    pub fn complete(self, result: TransportResult) {
        (self.0)(result)
    }
}

impl fmt::Debug for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completion")
    }
}

/// Performs requests for the core. See the module docs for the contract.
pub trait Transport: Send + Sync {
    /// Starts `request` and returns at once; `done` is called exactly once, later.
    fn start(&self, request: TransportRequest, done: Completion);

    /// Best-effort cancellation of a started request (its completion may still arrive and
    /// is then ignored).
    fn cancel(&self, _id: u64) {}

    /// Whether this transport sends [`RequestKind::Warm`] requests through the business
    /// client's connection pool, so that a warm leaves a connection the business requests
    /// reuse. Only then does the engine warm lines; by default it does not (a scripted
    /// replay, a transport of its own with a separate pool).
    fn warms_business_pool(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::Outcome;

    #[test]
    fn errors_map_to_line_outcomes() {
        assert_eq!(TransportError::Dns.outcome(), Outcome::DnsFailure);
        assert_eq!(
            TransportError::ConnectRefused.outcome(),
            Outcome::ConnectRefused
        );
        assert_eq!(TransportError::Timeout.outcome(), Outcome::ReadTimeout);
        assert_eq!(
            TransportError::LocalNetwork.outcome(),
            Outcome::LocalNetwork
        );
        assert_eq!(TransportError::from_name("tls"), TransportError::Tls);
        assert_eq!(
            TransportError::from_name("weird"),
            TransportError::Other("weird".into())
        );
    }

    #[test]
    fn completion_delivers_once() {
        let (tx, rx) = std::sync::mpsc::channel();
        let c = Completion::new(move |r| tx.send(r).unwrap());
        c.complete(TransportResult::Failed(TransportError::Cancelled));
        assert_eq!(
            rx.recv().unwrap(),
            TransportResult::Failed(TransportError::Cancelled)
        );
    }
}
