//! HTTPDNS and detect calls on [`NativeLineKit`] through UniFFI: `lookup` (the answer for
//! `LineKitDns`), `connect_failed` / `connect_succeeded` (per-address connect results for
//! the quarantine) and `detect`. The JNI fast path for the same calls is in
//! [`crate::fast_dns`]; both share the conversions here.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::dns::{ConnectError, Lookup, Source};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Where a lookup answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum DnsSource {
    /// Validated HTTPDNS addresses.
    HttpDns,
    /// Nothing usable: the caller must use the platform resolver.
    System,
}

/// The answer to [`NativeLineKit::lookup`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct LookupResult {
    /// Addresses in connect order (4 or 16 bytes each); empty for `System`.
    pub addresses: Vec<Vec<u8>>,
    /// Where they come from.
    pub source: DnsSource,
    /// Whether a refresh was queued by this lookup.
    pub refresh_due: bool,
    /// Why HTTPDNS is bypassed on the current network (`vpn`, `proxy`, ...), if it is.
    pub bypass: Option<String>,
}

impl From<Lookup> for LookupResult {
    fn from(l: Lookup) -> Self {
        LookupResult {
            addresses: l.addrs.iter().map(|ip| ip_bytes(ip).to_vec()).collect(),
            source: match l.source {
                // A stale answer (serve-stale opt-in) is usable addresses for the caller.
                Source::HttpDns | Source::HttpDnsStale => DnsSource::HttpDns,
                Source::System => DnsSource::System,
            },
            refresh_due: l.refresh_due,
            bypass: l.bypass.map(|b| b.as_str().to_string()),
        }
    }
}

/// How a connect to one address failed (see the core's `ConnectError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ConnectFailure {
    /// Connection refused (quarantines).
    Refused,
    /// Connect timeout (quarantines).
    Timeout,
    /// No route to the address (quarantines).
    NoRoute,
    /// TLS handshake failure (never quarantines).
    Tls,
    /// The server answered 5xx (never quarantines).
    Http5xx,
    /// Slow after connecting (never quarantines).
    ReadTimeout,
    /// Connecting through a proxy failed (never quarantines).
    ProxyConnect,
    /// A fast-fallback race lost or the call was cancelled (never quarantines).
    CancelledRace,
}

impl From<ConnectFailure> for ConnectError {
    fn from(f: ConnectFailure) -> Self {
        match f {
            ConnectFailure::Refused => ConnectError::Refused,
            ConnectFailure::Timeout => ConnectError::Timeout,
            ConnectFailure::NoRoute => ConnectError::NoRoute,
            ConnectFailure::Tls => ConnectError::Tls,
            ConnectFailure::Http5xx => ConnectError::Http5xx,
            ConnectFailure::ReadTimeout => ConnectError::ReadTimeout,
            ConnectFailure::ProxyConnect => ConnectError::ProxyConnect,
            ConnectFailure::CancelledRace => ConnectError::CancelledRace,
        }
    }
}

/// The raw bytes of an address (4 or 16).
pub(crate) fn ip_bytes(ip: &IpAddr) -> IpBytes {
    match ip {
        IpAddr::V4(v4) => IpBytes::V4(v4.octets()),
        IpAddr::V6(v6) => IpBytes::V6(v6.octets()),
    }
}

/// Address bytes without an allocation.
pub(crate) enum IpBytes {
    V4([u8; 4]),
    V6([u8; 16]),
}

impl IpBytes {
    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            IpBytes::V4(b) => b,
            IpBytes::V6(b) => b,
        }
    }

    fn to_vec(&self) -> Vec<u8> {
        self.as_slice().to_vec()
    }
}

/// Parses 4 or 16 address bytes (as `InetAddress.getAddress()` gives them).
pub(crate) fn ip_from_bytes(bytes: &[u8]) -> Option<IpAddr> {
    if let Ok(b) = <[u8; 4]>::try_from(bytes) {
        Some(IpAddr::V4(Ipv4Addr::from(b)))
    } else if let Ok(b) = <[u8; 16]>::try_from(bytes) {
        Some(IpAddr::V6(Ipv6Addr::from(b)))
    } else {
        None
    }
}

/// Packs a lookup for the JNI path: `None` for `system` (no allocation on the miss path),
/// else each address as one length byte (4 or 16) followed by its bytes.
pub fn pack_lookup(l: &Lookup) -> Option<Vec<u8>> {
    if l.source == Source::System || l.addrs.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(l.addrs.len() * 17);
    for ip in l.addrs.iter() {
        let b = ip_bytes(ip);
        let s = b.as_slice();
        out.push(s.len() as u8);
        out.extend_from_slice(s);
    }
    Some(out)
}

fn bad_ip() -> LineKitError {
    LineKitError::InvalidArgument("an IP address has 4 or 16 bytes".to_string())
}

#[uniffi::export]
impl NativeLineKit {
    /// The addresses to use for `host` (a pure memory read; may queue a refresh).
    pub fn lookup(&self, host: String) -> Result<LookupResult, LineKitError> {
        Ok(self.engine()?.lookup(&host).into())
    }

    /// The addresses to use for `host` on network `network` (`Network.getNetworkHandle()`
    /// of a client bound to it): that network's own records, never the default network's.
    pub fn lookup_on(&self, host: String, network: u64) -> Result<LookupResult, LineKitError> {
        Ok(self.engine()?.lookup_on(&host, network).into())
    }

    /// A connect to `ip` (4 or 16 bytes) for `host` failed; returns whether the address
    /// was quarantined.
    pub fn connect_failed(
        &self,
        host: String,
        ip: Vec<u8>,
        error: ConnectFailure,
    ) -> Result<bool, LineKitError> {
        let ip = ip_from_bytes(&ip).ok_or_else(bad_ip)?;
        Ok(self.engine()?.connect_failed(&host, ip, error.into()))
    }

    /// A connect to `ip` for `host` succeeded: clears its quarantine.
    pub fn connect_succeeded(&self, host: String, ip: Vec<u8>) -> Result<(), LineKitError> {
        let ip = ip_from_bytes(&ip).ok_or_else(bad_ip)?;
        self.engine()?.connect_succeeded(&host, ip);
        Ok(())
    }

    /// Asks for a detect (probes) of business line `biz` now; returns whether one was
    /// scheduled (false for an unknown line, no transport, single-flight or budget).
    pub fn detect(&self, biz: String) -> Result<bool, LineKitError> {
        Ok(self.engine()?.detect(&biz))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn lookups_pack_length_prefixed_addresses() {
        let v4: IpAddr = "127.0.0.1".parse().expect("ip");
        let v6: IpAddr = "2001:db8::1".parse().expect("ip");
        let l = Lookup {
            addrs: Arc::from(vec![v6, v4]),
            source: Source::HttpDns,
            refresh_due: false,
            bypass: None,
            fallback: None,
        };
        let packed = pack_lookup(&l).expect("httpdns");
        assert_eq!(packed.len(), 1 + 16 + 1 + 4);
        assert_eq!(packed[0], 16);
        assert_eq!(&packed[17..], &[4, 127, 0, 0, 1]);
        let r = LookupResult::from(l);
        assert_eq!(r.addresses[1], vec![127, 0, 0, 1]);
        assert_eq!(r.source, DnsSource::HttpDns);
        let miss = Lookup {
            addrs: Arc::from(Vec::new()),
            source: Source::System,
            refresh_due: true,
            bypass: None,
            fallback: None,
        };
        assert!(pack_lookup(&miss).is_none());
    }

    #[test]
    fn address_bytes_round_trip_and_bad_lengths_are_rejected() {
        assert_eq!(
            ip_from_bytes(&[10, 0, 0, 1]),
            Some("10.0.0.1".parse().expect("ip"))
        );
        let v6: IpAddr = "::1".parse().expect("ip");
        assert_eq!(ip_from_bytes(ip_bytes(&v6).as_slice()), Some(v6));
        assert_eq!(ip_from_bytes(&[1, 2, 3]), None);
        assert_eq!(ip_from_bytes(&[]), None);
    }

    #[test]
    fn connect_failures_map_one_to_one() {
        let all = [
            ConnectFailure::Refused,
            ConnectFailure::Timeout,
            ConnectFailure::NoRoute,
            ConnectFailure::Tls,
            ConnectFailure::Http5xx,
            ConnectFailure::ReadTimeout,
            ConnectFailure::ProxyConnect,
            ConnectFailure::CancelledRace,
        ];
        // Same order as the core's list, so the JNI code is the index in both.
        for (f, c) in all.iter().zip(ConnectError::ALL) {
            assert_eq!(ConnectError::from(*f), c);
        }
    }

    #[test]
    fn engine_calls_work_and_fail_once_closed() {
        let kit = NativeLineKit::from_json(
            r#"{"version":1,"httpdns":{"hosts":["*.linekit.test"]}}"#.into(),
        )
        .expect("config");
        let l = kit.lookup("api.linekit.test".into()).expect("open");
        assert_eq!(l.source, DnsSource::System);
        assert!(l.addresses.is_empty());
        assert!(matches!(
            kit.connect_failed("a.linekit.test".into(), vec![1], ConnectFailure::Refused),
            Err(LineKitError::InvalidArgument(_))
        ));
        assert_eq!(
            kit.connect_failed(
                "a.linekit.test".into(),
                vec![127, 0, 0, 1],
                ConnectFailure::Tls
            ),
            Ok(false)
        );
        assert_eq!(kit.detect("nope".into()), Ok(false));
        kit.shutdown();
        assert!(matches!(
            kit.lookup("x".into()),
            Err(LineKitError::Closed(_))
        ));
    }
}
