//! The address order handed to OkHttp.
//!
//! OkHttp's fast fallback (Happy Eyeballs, RFC 8305) races connections in list order, so
//! the list interleaves families starting with IPv6: v6, v4, v6, v4, … and, once one family
//! runs out, the rest of the other. Order inside a family is the provider's (stable).

use std::net::IpAddr;

/// Interleaves `addrs` v6/v4 starting with IPv6, stable inside each family.
pub fn order_addresses(addrs: &[IpAddr]) -> Vec<IpAddr> {
    let mut v6 = addrs.iter().filter(|a| a.is_ipv6());
    let mut v4 = addrs.iter().filter(|a| a.is_ipv4());
    let mut out = Vec::with_capacity(addrs.len());
    loop {
        let a = v6.next();
        let b = v4.next();
        if a.is_none() && b.is_none() {
            return out;
        }
        out.extend(a.copied());
        out.extend(b.copied());
    }
}
