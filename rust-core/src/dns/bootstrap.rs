//! Built-in addresses (`httpdns.bootstrap`): the last resort when DNS itself is poisoned
//! or down.
//!
//! The app vouches for these addresses, so they skip the public-address policy. A lookup
//! of a listed host offers them as `fallback` whenever it answers `system`; the caller
//! uses them only when it has no usable HTTPDNS record *and* the system resolver failed or
//! returned only addresses the policy rejects ([`Bootstrap::fallback`] decides that). A
//! remote config replaces or revokes the list like any other field.

use crate::dns::order::order_addresses;
use crate::dns::policy::{normalize_host, AddressPolicy};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

/// The built-in addresses per host, already in connect order.
#[derive(Debug, Clone, Default)]
pub struct Bootstrap {
    hosts: HashMap<Box<str>, Arc<[IpAddr]>>,
}

impl Bootstrap {
    /// From the config map; unparsable addresses are skipped (validation reports them).
    pub fn from_config<'a>(map: impl IntoIterator<Item = (&'a String, &'a Vec<String>)>) -> Self {
        let hosts = map
            .into_iter()
            .filter_map(|(host, addrs)| {
                let ips: Vec<IpAddr> = addrs
                    .iter()
                    .filter_map(|a| a.trim().parse::<IpAddr>().ok())
                    .map(|ip| ip.to_canonical())
                    .collect();
                (!ips.is_empty()).then(|| {
                    (
                        normalize_host(host).into_boxed_str(),
                        Arc::from(order_addresses(&ips)),
                    )
                })
            })
            .collect();
        Bootstrap { hosts }
    }

    /// The built-in addresses of `host` (normalized), if it is listed.
    pub fn addresses(&self, host: &str) -> Option<&Arc<[IpAddr]>> {
        if self.hosts.is_empty() {
            return None;
        }
        self.hosts.get(host)
    }

    /// What the caller should connect to after the system resolver answered `system`
    /// (empty = it failed) for `host`: the built-in addresses when the system gave nothing
    /// usable under `policy`, else `None` (keep the system answer).
    pub fn fallback(
        &self,
        host: &str,
        system: &[IpAddr],
        policy: &AddressPolicy,
    ) -> Option<Arc<[IpAddr]>> {
        let host = normalize_host(host);
        let listed = self.addresses(&host)?;
        let usable = policy.filter(&host, system.iter().copied());
        usable.accepted.is_empty().then(|| Arc::clone(listed))
    }
}
