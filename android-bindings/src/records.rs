//! Records and enums that cross the UniFFI boundary, with their conversions to the core's
//! borrowed request/report types.

use linekit_core::engine as core;
use linekit_core::line as core_line;

/// The pool a request uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Protocol {
    /// Request/response HTTP(S).
    Http,
    /// WebSocket.
    Ws,
}

impl From<Protocol> for core_line::Protocol {
    fn from(p: Protocol) -> Self {
        match p {
            Protocol::Http => core_line::Protocol::Http,
            Protocol::Ws => core_line::Protocol::Ws,
        }
    }
}

/// Outcome of one attempt (DESIGN 3.2 vocabulary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Outcome {
    /// 2xx/3xx.
    Ok,
    /// 4xx.
    Http4xx,
    /// 5xx.
    Http5xx,
    /// Connecting timed out.
    ConnectTimeout,
    /// Connection refused or reset while connecting.
    ConnectRefused,
    /// Host not resolved.
    DnsFailure,
    /// TLS handshake failed.
    TlsFailure,
    /// No response in time after connecting.
    ReadTimeout,
    /// The device's own network failed.
    LocalNetwork,
    /// The caller cancelled.
    Cancelled,
}

impl From<Outcome> for core_line::Outcome {
    fn from(o: Outcome) -> Self {
        use core_line::Outcome as C;
        match o {
            Outcome::Ok => C::Ok,
            Outcome::Http4xx => C::Http4xx,
            Outcome::Http5xx => C::Http5xx,
            Outcome::ConnectTimeout => C::ConnectTimeout,
            Outcome::ConnectRefused => C::ConnectRefused,
            Outcome::DnsFailure => C::DnsFailure,
            Outcome::TlsFailure => C::TlsFailure,
            Outcome::ReadTimeout => C::ReadTimeout,
            Outcome::LocalNetwork => C::LocalNetwork,
            Outcome::Cancelled => C::Cancelled,
        }
    }
}

/// One request to route.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct RouteRequest {
    /// The URL the app built (logical host).
    pub url: String,
    /// HTTP method.
    pub method: String,
    /// `X-Line-Biz`.
    pub biz: Option<String>,
    /// `X-Line-Keep-Original-Host: true`.
    pub keep_original: bool,
    /// `X-Line-Fixed-Host`.
    pub fixed_host: Option<String>,
    /// Pool to use.
    pub protocol: Protocol,
    /// Line ids already tried in this call.
    pub exclude: Vec<String>,
}

/// The routing answer.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RouteDecision {
    /// Final URL to send.
    pub url: String,
    /// Owning business line.
    pub biz: Option<String>,
    /// Chosen line id.
    pub line: Option<String>,
    /// Reason code (`sticky`, `ranked`, `fixed_host`, …).
    pub reason: String,
    /// The line runs another deployment than the business line's reference.
    pub version_mismatch: bool,
    /// Response header whose value the attempt's report carries (`version_header`).
    pub version_header: Option<String>,
}

impl From<core::RouteDecision> for RouteDecision {
    fn from(d: core::RouteDecision) -> Self {
        RouteDecision {
            url: d.url,
            biz: d.biz.map(|b| b.to_string()),
            line: d.line.map(|l| l.to_string()),
            reason: d.reason.as_str().to_string(),
            version_mismatch: d.version_mismatch,
            version_header: d.version_header.map(|h| h.to_string()),
        }
    }
}

/// The outcome of one attempt.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AttemptReport {
    /// Business line (from the decision).
    pub biz: Option<String>,
    /// Pool of the attempt.
    pub protocol: Protocol,
    /// Line id (from the decision).
    pub line: Option<String>,
    /// Host, when no line id is known.
    pub host: Option<String>,
    /// What happened.
    pub outcome: Outcome,
    /// HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// Total cost in milliseconds.
    pub cost_ms: u64,
    /// DNS time.
    pub dns_ms: Option<u64>,
    /// TCP connect time.
    pub connect_ms: Option<u64>,
    /// TLS time.
    pub tls_ms: Option<u64>,
    /// Time to first byte.
    pub ttfb_ms: Option<u64>,
    /// Value of the decision's `version_header` on the response, if any.
    pub version: Option<String>,
}

impl AttemptReport {
    /// The borrowed core view of this report.
    pub(crate) fn as_core(&self) -> core::Report<'_> {
        core::Report {
            biz: self.biz.as_deref(),
            protocol: self.protocol.into(),
            line: self.line.as_deref(),
            host: self.host.as_deref(),
            outcome: self.outcome.into(),
            status: self.status,
            cost_ms: self.cost_ms,
            dns_ms: self.dns_ms,
            connect_ms: self.connect_ms,
            tls_ms: self.tls_ms,
            ttfb_ms: self.ttfb_ms,
            version: self.version.as_deref(),
        }
    }
}

/// Result of offering a remote config.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConfigUpdate {
    /// Whether it replaced the config in force.
    pub applied: bool,
    /// The version now in force.
    pub version: u64,
    /// Why it was rejected.
    pub error: Option<String>,
}

impl From<core::ConfigUpdate> for ConfigUpdate {
    fn from(u: core::ConfigUpdate) -> Self {
        ConfigUpdate {
            applied: u.applied,
            version: u.version,
            error: u.error,
        }
    }
}

/// Android Private DNS mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum PrivateDns {
    /// Off.
    Off,
    /// Opportunistic (automatic).
    Opportunistic,
    /// Strict (a named resolver).
    Strict,
}

impl PrivateDns {
    /// `off`, `opportunistic` or `strict`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrivateDns::Off => "off",
            PrivateDns::Opportunistic => "opportunistic",
            PrivateDns::Strict => "strict",
        }
    }
}

/// The default network as the platform sees it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct NetworkInfo {
    /// `Network.getNetworkHandle()` (0 when there is no network).
    pub handle: u64,
    /// Whether the platform validated internet access.
    pub validated: bool,
    /// Whether it is a VPN.
    pub vpn: bool,
    /// Private DNS mode.
    pub private_dns: PrivateDns,
    /// Whether an HTTP proxy is configured.
    pub proxy: bool,
    /// Transport (`wifi`, `cellular`, `ethernet`, …), if known.
    pub transport: Option<String>,
}

impl From<PrivateDns> for linekit_core::net::PrivateDnsMode {
    fn from(p: PrivateDns) -> Self {
        use linekit_core::net::PrivateDnsMode as C;
        match p {
            PrivateDns::Off => C::Off,
            PrivateDns::Opportunistic => C::Opportunistic,
            PrivateDns::Strict => C::Strict,
        }
    }
}

impl From<NetworkInfo> for linekit_core::net::NetworkState {
    fn from(n: NetworkInfo) -> Self {
        linekit_core::net::NetworkState {
            handle: n.handle,
            validated: n.validated,
            vpn: n.vpn,
            private_dns: n.private_dns.into(),
            proxy: n.proxy,
            transport: n.transport,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_map_one_to_one() {
        let all = [
            Outcome::Ok,
            Outcome::Http4xx,
            Outcome::Http5xx,
            Outcome::ConnectTimeout,
            Outcome::ConnectRefused,
            Outcome::DnsFailure,
            Outcome::TlsFailure,
            Outcome::ReadTimeout,
            Outcome::LocalNetwork,
            Outcome::Cancelled,
        ];
        // Same order as the core's list, so the JNI outcome code is the index in both.
        for (o, c) in all.iter().zip(core_line::Outcome::ALL) {
            assert_eq!(core_line::Outcome::from(*o), c);
        }
    }

    #[test]
    fn network_info_maps_to_the_core_state() {
        let n: linekit_core::net::NetworkState = NetworkInfo {
            handle: 9,
            validated: true,
            vpn: true,
            private_dns: PrivateDns::Strict,
            proxy: false,
            transport: Some("wifi".into()),
        }
        .into();
        assert_eq!((n.handle, n.validated, n.vpn), (9, true, true));
        assert_eq!(n.private_dns, linekit_core::net::PrivateDnsMode::Strict);
        assert_eq!(PrivateDns::Opportunistic.as_str(), "opportunistic");
    }

    #[test]
    fn report_borrows_every_field() {
        let r = AttemptReport {
            biz: Some("spot".into()),
            protocol: Protocol::Ws,
            line: Some("ali".into()),
            host: None,
            outcome: Outcome::Http5xx,
            status: Some(503),
            cost_ms: 12,
            dns_ms: Some(1),
            connect_ms: Some(2),
            tls_ms: None,
            ttfb_ms: Some(9),
            version: Some("v2".into()),
        };
        let c = r.as_core();
        assert_eq!(c.version, Some("v2"));
        assert_eq!(c.biz, Some("spot"));
        assert_eq!(c.protocol, core_line::Protocol::Ws);
        assert_eq!(c.outcome, core_line::Outcome::Http5xx);
        assert_eq!((c.status, c.cost_ms, c.ttfb_ms), (Some(503), 12, Some(9)));
    }
}
