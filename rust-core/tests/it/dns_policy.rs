//! Address policy: every IANA special-purpose IPv4/IPv6 block, host patterns and the
//! public / allow_private split.

use linekit_core::dns::policy::{effective_class, normalize_host};
use linekit_core::dns::{classify, is_public, AddrClass, AddressPolicy, HostMatcher, HostPattern};
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap_or_else(|_| panic!("bad test address {s}"))
}

/// (address, class, public) for every block of the IANA IPv4 and IPv6 special-purpose
/// address registries, plus ordinary global addresses.
const TABLE: &[(&str, &str, bool)] = &[
    // IPv4 registry
    ("0.0.0.0", "unspecified", false),
    ("0.1.2.3", "this_network", false),
    ("10.0.0.1", "private", false),
    ("10.255.255.255", "private", false),
    ("100.64.0.1", "shared", false),
    ("100.127.255.254", "shared", false),
    ("100.128.0.1", "global", true),
    ("127.0.0.1", "loopback", false),
    ("127.255.0.1", "loopback", false),
    ("169.254.1.1", "link_local", false),
    ("172.16.0.1", "private", false),
    ("172.31.255.255", "private", false),
    ("172.32.0.1", "global", true),
    ("192.0.0.1", "protocol_assignment", false),
    ("192.0.0.8", "protocol_assignment", false),
    ("192.0.0.9", "global", true),
    ("192.0.0.10", "global", true),
    ("192.0.0.170", "protocol_assignment", false),
    ("192.0.0.171", "protocol_assignment", false),
    ("192.0.2.1", "documentation", false),
    ("192.31.196.1", "global", true),
    ("192.52.193.1", "global", true),
    ("192.88.99.1", "deprecated", false),
    ("192.168.1.1", "private", false),
    ("192.175.48.1", "global", true),
    ("198.18.0.1", "benchmarking", false),
    ("198.19.255.255", "benchmarking", false),
    ("198.20.0.1", "global", true),
    ("198.51.100.7", "documentation", false),
    ("203.0.113.7", "documentation", false),
    ("224.0.0.1", "multicast", false),
    ("239.255.255.255", "multicast", false),
    ("240.0.0.1", "reserved", false),
    ("255.255.255.254", "reserved", false),
    ("255.255.255.255", "broadcast", false),
    ("8.8.8.8", "global", true),
    ("47.118.227.108", "global", true),
    // IPv6 registry
    ("::", "unspecified", false),
    ("::1", "loopback", false),
    ("::ffff:8.8.8.8", "ipv4_mapped", true),
    ("::ffff:10.0.0.1", "ipv4_mapped", false),
    ("::ffff:127.0.0.1", "ipv4_mapped", false),
    ("::1.2.3.4", "deprecated", false),
    ("64:ff9b::808:808", "nat64", true),
    ("64:ff9b::a00:1", "nat64", false),
    ("64:ff9b:1::1", "nat64_local", false),
    ("100::1", "discard", false),
    ("100:0:0:1::1", "reserved", false),
    ("2001::1", "teredo", false),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo", false),
    ("2001:1::1", "global", true),
    ("2001:1::2", "global", true),
    ("2001:1::3", "global", true),
    ("2001:1::4", "protocol_assignment", false),
    ("2001:2::1", "benchmarking", false),
    ("2001:3::1", "global", true),
    ("2001:4:112::1", "global", true),
    ("2001:10::1", "orchid", false),
    ("2001:20::1", "orchid", false),
    ("2001:30::1", "global", true),
    ("2001:100::1", "protocol_assignment", false),
    ("2001:200::1", "global", true),
    ("2001:db8::1", "documentation", false),
    ("2001:db8:ffff::1", "documentation", false),
    ("2002:c000:0204::1", "6to4", false),
    ("2620:4f:8000::1", "global", true),
    ("3fff::1", "documentation", false),
    ("3fff:fff::1", "documentation", false),
    ("3fff:1000::1", "global", true),
    ("5f00::1", "reserved", false),
    ("fc00::1", "unique_local", false),
    ("fd12:3456::1", "unique_local", false),
    ("fe80::1", "link_local", false),
    ("febf::1", "link_local", false),
    ("fec0::1", "site_local", false),
    ("ff02::1", "multicast", false),
    ("4000::1", "reserved", false),
    ("1::1", "reserved", false),
    ("2400:3200::1", "global", true),
    ("240e:0960:0c00:000e:0003:0000:0000:03ef", "global", true),
];

#[test]
fn every_special_purpose_block_is_classified() {
    for (addr, class, public) in TABLE {
        let a = ip(addr);
        assert_eq!(classify(a).as_str(), *class, "class of {addr}");
        assert_eq!(is_public(a), *public, "public of {addr}");
    }
}

#[test]
fn ipv4_mapped_is_judged_by_its_ipv4() {
    assert_eq!(
        effective_class(ip("::ffff:192.168.0.1")),
        AddrClass::Private
    );
    assert_eq!(effective_class(ip("::ffff:1.1.1.1")), AddrClass::Global);
    assert_eq!(classify(ip("::ffff:1.1.1.1")), AddrClass::Ipv4Mapped);
}

#[test]
fn public_hosts_keep_only_global_unicast() {
    let policy = AddressPolicy::default();
    assert_eq!(policy.accepts("api.example.com", ip("1.1.1.1")), Ok(()));
    assert_eq!(policy.accepts("api.example.com", ip("2400::1")), Ok(()));
    for (addr, why) in [
        ("10.0.0.1", "private"),
        ("127.0.0.1", "loopback"),
        ("100.64.0.1", "shared"),
        ("fd00::1", "unique_local"),
        ("224.0.0.1", "multicast"),
        ("::ffff:10.1.1.1", "private"),
    ] {
        assert_eq!(
            policy.accepts("api.example.com", ip(addr)),
            Err(why),
            "{addr}"
        );
    }
}

#[test]
fn allow_private_hosts_keep_private_shared_loopback_and_ula_only() {
    let (m, invalid) = HostMatcher::new(&["intranet.example.com", "*.corp.example"]);
    assert!(invalid.is_empty());
    let policy = AddressPolicy::new(m);
    for addr in [
        "10.0.0.1",
        "172.16.1.1",
        "192.168.1.1",
        "100.64.1.1",
        "127.0.0.1",
        "::1",
        "fd00::1",
    ] {
        assert_eq!(
            policy.accepts("INTRANET.example.com.", ip(addr)),
            Ok(()),
            "{addr}"
        );
        assert_eq!(
            policy.accepts("a.b.corp.example", ip(addr)),
            Ok(()),
            "{addr}"
        );
        assert!(
            policy.accepts("other.example.com", ip(addr)).is_err(),
            "{addr}"
        );
    }
    for (addr, why) in [
        ("169.254.1.1", "link_local"),
        ("fe80::1", "link_local"),
        ("0.0.0.0", "unspecified"),
        ("192.0.2.1", "documentation"),
        ("255.255.255.255", "broadcast"),
        ("ff02::1", "multicast"),
    ] {
        assert_eq!(
            policy.accepts("intranet.example.com", ip(addr)),
            Err(why),
            "{addr}"
        );
    }
}

#[test]
fn filter_canonicalises_mapped_and_dedupes() {
    let policy = AddressPolicy::default();
    let f = policy.filter(
        "h",
        [
            ip("::ffff:1.1.1.1"),
            ip("1.1.1.1"),
            ip("10.0.0.1"),
            ip("2400::1"),
        ],
    );
    assert_eq!(f.accepted, vec![ip("1.1.1.1"), ip("2400::1")]);
    assert_eq!(f.rejected, vec![(ip("10.0.0.1"), "private")]);
}

#[test]
fn host_patterns_exact_and_suffix() {
    let exact = HostPattern::parse("API.Example.com.").unwrap_or_else(|| panic!("parse"));
    assert!(exact.matches("api.example.com"));
    assert!(exact.matches("api.EXAMPLE.com."));
    assert!(!exact.matches("x.api.example.com"));
    let suffix = HostPattern::parse("*.example.com").unwrap_or_else(|| panic!("parse"));
    assert!(suffix.matches("a.example.com"));
    assert!(suffix.matches("A.B.Example.COM."));
    assert!(!suffix.matches("example.com"));
    assert!(!suffix.matches("badexample.com"));
    for bad in ["", " ", "*", "*.", "a.*.com", "**.x", "*..x"] {
        assert!(HostPattern::parse(bad).is_none(), "{bad:?}");
    }
    let (m, invalid) = HostMatcher::new(&["*.example.com", "*", "solo.test"]);
    assert_eq!(invalid, vec!["*".to_string()]);
    assert!(m.matches("solo.test") && m.matches("x.example.com") && !m.matches("example.org"));
    assert_eq!(normalize_host("WWW.Example.COM."), "www.example.com");
}
