//! Address helpers shared by the JNI DNS path ([`crate::fast_dns`]) and the `detect`
//! control-plane call.
//!
//! `LineKitDns` lookups and per-address connect results run once per new connection, so
//! they go through JNI only; their answers are packed here.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::dns::{Lookup, Source};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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

#[uniffi::export]
impl NativeLineKit {
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
            memo_until_ms: 0,
        };
        let packed = pack_lookup(&l).expect("httpdns");
        assert_eq!(packed.len(), 1 + 16 + 1 + 4);
        assert_eq!(packed[0], 16);
        assert_eq!(&packed[17..], &[4, 127, 0, 0, 1]);
        let miss = Lookup {
            addrs: Arc::from(Vec::new()),
            source: Source::System,
            refresh_due: true,
            bypass: None,
            fallback: None,
            memo_until_ms: 0,
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
    fn detect_answers_and_fails_once_closed() {
        let kit = NativeLineKit::from_json(r#"{"version":1}"#.into()).expect("config");
        assert_eq!(kit.detect("nope".into()), Ok(false));
        kit.shutdown();
        assert!(matches!(
            kit.detect("nope".into()),
            Err(LineKitError::Closed(_))
        ));
    }
}
