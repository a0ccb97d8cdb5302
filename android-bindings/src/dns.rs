//! Address helpers shared by the JNI DNS path ([`crate::fast_dns`]) and the `detect`
//! control-plane call.
//!
//! `LineKitDns` lookups and per-address connect results run once per new connection, so
//! they go through JNI only; their answers are packed here.

use crate::error::LineKitError;
use crate::jni_records::LOOKUP_ANSWER;
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

/// Packs a lookup for the JNI path as a [`LOOKUP_ANSWER`] that may be kept `keep_ms`:
/// `None` for `system` (no allocation on the miss path).
pub fn pack_lookup(l: &Lookup, keep_ms: u32) -> Option<Vec<u8>> {
    if l.source == Source::System || l.addrs.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(LOOKUP_ANSWER.total_width() as usize + l.addrs.len() * 17);
    LOOKUP_ANSWER.write_head(&[u64::from(keep_ms)], &mut out);
    for ip in l.addrs.iter() {
        LOOKUP_ANSWER.write_entry(ip_bytes(ip).as_slice(), &mut out);
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
        let packed = pack_lookup(&l, 0x0102_0304).expect("httpdns");
        assert_eq!(packed.len(), 4 + 1 + 16 + 1 + 4);
        assert_eq!(&packed[..5], &[1, 2, 3, 4, 16]);
        assert_eq!(&packed[21..], &[4, 127, 0, 0, 1]);
        let (head, entries) = LOOKUP_ANSWER.read(&packed).expect("well formed");
        assert_eq!(head, [0x0102_0304]);
        assert_eq!(
            entries,
            [ip_bytes(&v6).as_slice(), ip_bytes(&v4).as_slice()]
        );
        let miss = Lookup {
            addrs: Arc::from(Vec::new()),
            source: Source::System,
            refresh_due: true,
            bypass: None,
            fallback: None,
            memo_until_ms: 0,
        };
        assert!(pack_lookup(&miss, 5).is_none());
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
