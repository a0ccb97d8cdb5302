//! Network identity, generation and the HTTPDNS bypass policy
//! (`docs/architecture.md#network-awareness`).
//!
//! The Android network callback reports the default network as a [`NetworkState`]. The
//! [`NetworkMonitor`] (owned by the engine) turns each report into a [`NetworkKey`]:
//! the platform network handle plus a generation bumped on *every* report, so work started
//! under an older view of the network can be recognised. DNS records are stored per
//! handle ([`NetworkKey::handle`]): a record learned on one network is never served on
//! another, and a network that comes back (same handle) finds its own unexpired records.
//!
//! [`HttpDnsBypass::reason`] says when HTTPDNS must not be used at all and the caller must
//! use the platform resolver on the same network:
//! - **VPN** — the VPN may route DNS by domain (split DNS) and reach hosts only its own
//!   resolver knows; addresses from a public HTTPDNS could bypass or break the tunnel.
//! - **Strict Private DNS** — the user (or admin) demanded that all DNS go through one
//!   DNS-over-TLS resolver; answering from HTTPDNS would silently override that choice.
//!   Opportunistic mode makes no such promise, so HTTPDNS stays on.
//! - **Proxy** — with an HTTP proxy the proxy resolves the host name; OkHttp does not call
//!   `Dns` for the origin, and pinning addresses would defeat proxy-side routing.
//! - **Not validated** — behind a captive portal, HTTPDNS endpoints are unreachable or
//!   answered by the portal; the platform resolver is what lets the sign-in page work.
//! - **No network** — handle 0 means there is no default network.

pub use crate::wire::vocabulary::PrivateDnsMode;

/// What the platform says about the default network.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetworkState {
    /// `Network.getNetworkHandle()`; 0 = no network.
    pub handle: u64,
    /// `NET_CAPABILITY_VALIDATED`.
    pub validated: bool,
    /// `TRANSPORT_VPN`.
    pub vpn: bool,
    /// Private DNS mode.
    pub private_dns: PrivateDnsMode,
    /// An HTTP proxy is configured for the network.
    pub proxy: bool,
    /// Transport name for traces (`wifi`, `cellular`, …).
    pub transport: Option<String>,
}

/// Identifies the network records belong to.
///
/// Equality compares handle *and* generation; records are stored by [`Self::handle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NetworkKey {
    handle: u64,
    generation: u64,
}

impl NetworkKey {
    /// A key for `handle` at `generation`.
    pub const fn new(handle: u64, generation: u64) -> Self {
        NetworkKey { handle, generation }
    }

    /// The platform network handle (the record-isolation key).
    pub const fn handle(self) -> u64 {
        self.handle
    }

    /// The generation: bumped by every network report.
    pub const fn generation(self) -> u64 {
        self.generation
    }
}

pub use crate::wire::vocabulary::HttpDnsBypass;

impl HttpDnsBypass {
    /// The reason HTTPDNS must be bypassed on `state`, or `None` when it may be used.
    /// When several apply, the first in declaration order is reported.
    pub fn reason(state: &NetworkState) -> Option<HttpDnsBypass> {
        if state.handle == 0 {
            Some(HttpDnsBypass::NoNetwork)
        } else if state.vpn {
            Some(HttpDnsBypass::Vpn)
        } else if state.private_dns == PrivateDnsMode::Strict {
            Some(HttpDnsBypass::StrictPrivateDns)
        } else if state.proxy {
            Some(HttpDnsBypass::Proxy)
        } else if !state.validated {
            Some(HttpDnsBypass::NotValidated)
        } else {
            None
        }
    }
}

/// Tracks the default network for the engine. Not shared across threads by itself: the
/// engine updates it on the control plane and publishes the result to the DNS cache
/// ([`crate::dns::DnsCache::set_network`]), which is what the data plane reads.
#[derive(Debug, Clone, Default)]
pub struct NetworkMonitor {
    generation: u64,
    state: NetworkState,
}

impl NetworkMonitor {
    /// A monitor that has seen no report yet (handle 0, generation 0: HTTPDNS bypassed).
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a report and returns the new key (generation bumped on every call).
    pub fn on_network_changed(&mut self, state: NetworkState) -> NetworkKey {
        self.generation = self.generation.wrapping_add(1);
        self.state = state;
        self.key()
    }

    /// The current key and bypass reason.
    pub fn current(&self) -> (NetworkKey, Option<HttpDnsBypass>) {
        (self.key(), HttpDnsBypass::reason(&self.state))
    }

    /// The last reported state.
    pub fn state(&self) -> &NetworkState {
        &self.state
    }

    fn key(&self) -> NetworkKey {
        NetworkKey::new(self.state.handle, self.generation)
    }
}
