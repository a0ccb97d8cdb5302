//! Records that cross the UniFFI control plane, with their conversions to the core's types.
//!
//! Enums inside them travel as their wire code (the position in the core enum's `ALL`),
//! the same number the JNI path carries; the Kotlin enums are generated from the core's
//! lists (see `linekit_core::wire`), so there is no second declaration to keep in step.

use crate::error::LineKitError;
use linekit_core::engine as core;
use linekit_core::net::PrivateDnsMode;

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

/// The default network as the platform sees it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct NetworkInfo {
    /// `Network.getNetworkHandle()` (0 when there is no network).
    pub handle: u64,
    /// Whether the platform validated internet access.
    pub validated: bool,
    /// Whether it is a VPN.
    pub vpn: bool,
    /// Private DNS mode: the code of a `PrivateDnsMode` (`off`, `opportunistic`, `strict`).
    pub private_dns: u8,
    /// Whether an HTTP proxy is configured.
    pub proxy: bool,
    /// Transport (`wifi`, `cellular`, `ethernet`, …), if known.
    pub transport: Option<String>,
}

impl TryFrom<NetworkInfo> for linekit_core::net::NetworkState {
    type Error = LineKitError;
    fn try_from(n: NetworkInfo) -> Result<Self, LineKitError> {
        let private_dns = PrivateDnsMode::from_code(i32::from(n.private_dns)).ok_or_else(|| {
            LineKitError::InvalidArgument(format!("unknown private_dns code {}", n.private_dns))
        })?;
        Ok(linekit_core::net::NetworkState {
            handle: n.handle,
            validated: n.validated,
            vpn: n.vpn,
            private_dns,
            proxy: n.proxy,
            transport: n.transport,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_info_maps_to_the_core_state() {
        let n: linekit_core::net::NetworkState = NetworkInfo {
            handle: 9,
            validated: true,
            vpn: true,
            private_dns: PrivateDnsMode::Strict.code(),
            proxy: false,
            transport: Some("wifi".into()),
        }
        .try_into()
        .expect("known code");
        assert_eq!((n.handle, n.validated, n.vpn), (9, true, true));
        assert_eq!(n.private_dns, PrivateDnsMode::Strict);
        let bad = NetworkInfo {
            handle: 1,
            validated: true,
            vpn: false,
            private_dns: 200,
            proxy: false,
            transport: None,
        };
        assert!(matches!(
            linekit_core::net::NetworkState::try_from(bad),
            Err(LineKitError::InvalidArgument(_))
        ));
    }
}
