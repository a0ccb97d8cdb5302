//! Address policy: which addresses an HTTPDNS answer may put in front of OkHttp.
//!
//! [`classify`] maps every IPv4/IPv6 address onto one [`AddrClass`], following the IANA
//! special-purpose address registries (RFC 6890 and successors). [`is_public`] is true only
//! for globally reachable unicast. [`AddressPolicy`] combines that with the config's
//! `httpdns.hosts` and `httpdns.allow_private` host patterns:
//!
//! - every host keeps globally reachable unicast ([`is_public`]);
//! - hosts matching `allow_private` may additionally keep private-use (10/8, 172.16/12,
//!   192.168/16), shared (100.64/10), loopback (127/8, ::1) and unique-local (fc00::/7, the
//!   IPv6 private-use block) addresses.
//!
//! Judgements worth knowing:
//! - IPv4-mapped (`::ffff:a.b.c.d`) is reported as class `ipv4_mapped` and judged by the
//!   embedded IPv4 ([`effective_class`]); the filter hands it on as the plain IPv4 address.
//! - NAT64 `64:ff9b::/96` (RFC 6052) is public when the embedded IPv4 is public (the
//!   well-known prefix must not carry non-global IPv4); the local-use `64:ff9b:1::/48` is not.
//! - Link-local is never kept, even for `allow_private` hosts: an IPv6 link-local address
//!   needs a zone index that an HTTPDNS answer cannot carry, and 169.254/16 is auto-config.
//! - 6to4 (2002::/16), Teredo (2001::/32) and ORCHID are tunnelling/identifier ranges that
//!   no CDN answer should contain; they are refused.
//! - The few globally reachable anycast addresses inside special blocks (192.0.0.9/10,
//!   2001:1::1/2/3, AS112, AMT) are `global`.
//!
//! Addresses are handled as [`std::net`] values only; nothing here parses address text.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The class of one address (IANA special-purpose registries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrClass {
    /// Globally reachable unicast.
    Global,
    /// RFC 1918 private-use IPv4.
    Private,
    /// 127/8, ::1.
    Loopback,
    /// 169.254/16, fe80::/10.
    LinkLocal,
    /// 224/4, ff00::/8.
    Multicast,
    /// 0.0.0.0, ::.
    Unspecified,
    /// 0.0.0.0/8 other than 0.0.0.0 ("this network").
    ThisNetwork,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20.
    Documentation,
    /// 100.64/10 carrier-grade NAT.
    Shared,
    /// 198.18/15, 2001:2::/48.
    Benchmarking,
    /// 240/4, SRv6 SIDs 5f00::/16, unallocated IPv6 outside 2000::/3, the dummy prefix.
    Reserved,
    /// 255.255.255.255.
    Broadcast,
    /// 192.0.0/24 and 2001::/23 IETF protocol assignments (not globally reachable).
    ProtocolAssignment,
    /// ::ffff:0:0/96; judged by the embedded IPv4 (see [`effective_class`]).
    Ipv4Mapped,
    /// 64:ff9b::/96 well-known NAT64 prefix.
    Nat64,
    /// 64:ff9b:1::/48 local-use NAT64 prefix.
    Nat64Local,
    /// fc00::/7 unique-local (IPv6 private use).
    UniqueLocal,
    /// fec0::/10, deprecated site-local.
    SiteLocal,
    /// 100::/64 discard-only.
    Discard,
    /// 2002::/16 6to4.
    SixToFour,
    /// 2001::/32 Teredo.
    Teredo,
    /// 2001:10::/28 and 2001:20::/28 ORCHID identifiers.
    Orchid,
    /// Deprecated blocks: 192.88.99/24 6to4 relay anycast, ::/96 IPv4-compatible.
    Deprecated,
}

impl AddrClass {
    /// The snake_case name used by the CLI and in rejection reasons.
    pub fn as_str(self) -> &'static str {
        match self {
            AddrClass::Global => "global",
            AddrClass::Private => "private",
            AddrClass::Loopback => "loopback",
            AddrClass::LinkLocal => "link_local",
            AddrClass::Multicast => "multicast",
            AddrClass::Unspecified => "unspecified",
            AddrClass::ThisNetwork => "this_network",
            AddrClass::Documentation => "documentation",
            AddrClass::Shared => "shared",
            AddrClass::Benchmarking => "benchmarking",
            AddrClass::Reserved => "reserved",
            AddrClass::Broadcast => "broadcast",
            AddrClass::ProtocolAssignment => "protocol_assignment",
            AddrClass::Ipv4Mapped => "ipv4_mapped",
            AddrClass::Nat64 => "nat64",
            AddrClass::Nat64Local => "nat64_local",
            AddrClass::UniqueLocal => "unique_local",
            AddrClass::SiteLocal => "site_local",
            AddrClass::Discard => "discard",
            AddrClass::SixToFour => "6to4",
            AddrClass::Teredo => "teredo",
            AddrClass::Orchid => "orchid",
            AddrClass::Deprecated => "deprecated",
        }
    }

    /// Whether an `allow_private` host may keep an address of this class.
    pub fn is_private_use(self) -> bool {
        matches!(
            self,
            AddrClass::Private | AddrClass::Shared | AddrClass::Loopback | AddrClass::UniqueLocal
        )
    }
}

impl std::fmt::Display for AddrClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Classifies an address. IPv4-mapped IPv6 is [`AddrClass::Ipv4Mapped`] and NAT64 is
/// [`AddrClass::Nat64`] whatever they embed; use [`effective_class`] to judge them.
pub fn classify(ip: IpAddr) -> AddrClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// The class an address is judged by: the embedded IPv4's class for IPv4-mapped addresses,
/// [`classify`] otherwise.
pub fn effective_class(ip: IpAddr) -> AddrClass {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => classify_v4(v4),
            None => classify_v6(v6),
        },
        IpAddr::V4(v4) => classify_v4(v4),
    }
}

/// True for globally reachable unicast: class `global`, IPv4-mapped of a global IPv4, and
/// NAT64 (64:ff9b::/96) of a global IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match effective_class(ip) {
        AddrClass::Global => true,
        AddrClass::Nat64 => match ip {
            IpAddr::V6(v6) => classify_v4(nat64_embedded(v6)) == AddrClass::Global,
            IpAddr::V4(_) => false,
        },
        _ => false,
    }
}

fn nat64_embedded(v6: Ipv6Addr) -> Ipv4Addr {
    let o = v6.octets();
    Ipv4Addr::new(o[12], o[13], o[14], o[15])
}

fn in_v4(ip: u32, net: [u8; 4], len: u32) -> bool {
    let net = u32::from(Ipv4Addr::from(net));
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    ip & mask == net & mask
}

fn classify_v4(v4: Ipv4Addr) -> AddrClass {
    let ip = u32::from(v4);
    // Globally reachable exceptions inside special blocks first.
    const GLOBAL_EXCEPTIONS: [([u8; 4], u32); 5] = [
        ([192, 0, 0, 9], 32),    // PCP anycast
        ([192, 0, 0, 10], 32),   // TURN anycast
        ([192, 31, 196, 0], 24), // AS112-v4
        ([192, 52, 193, 0], 24), // AMT
        ([192, 175, 48, 0], 24), // direct delegation AS112
    ];
    if GLOBAL_EXCEPTIONS
        .iter()
        .any(|(net, len)| in_v4(ip, *net, *len))
    {
        return AddrClass::Global;
    }
    const TABLE: [([u8; 4], u32, AddrClass); 17] = [
        ([0, 0, 0, 0], 32, AddrClass::Unspecified),
        ([0, 0, 0, 0], 8, AddrClass::ThisNetwork),
        ([10, 0, 0, 0], 8, AddrClass::Private),
        ([100, 64, 0, 0], 10, AddrClass::Shared),
        ([127, 0, 0, 0], 8, AddrClass::Loopback),
        ([169, 254, 0, 0], 16, AddrClass::LinkLocal),
        ([172, 16, 0, 0], 12, AddrClass::Private),
        ([192, 0, 0, 0], 24, AddrClass::ProtocolAssignment),
        ([192, 0, 2, 0], 24, AddrClass::Documentation),
        ([192, 88, 99, 0], 24, AddrClass::Deprecated),
        ([192, 168, 0, 0], 16, AddrClass::Private),
        ([198, 18, 0, 0], 15, AddrClass::Benchmarking),
        ([198, 51, 100, 0], 24, AddrClass::Documentation),
        ([203, 0, 113, 0], 24, AddrClass::Documentation),
        ([224, 0, 0, 0], 4, AddrClass::Multicast),
        ([255, 255, 255, 255], 32, AddrClass::Broadcast),
        ([240, 0, 0, 0], 4, AddrClass::Reserved),
    ];
    // First match wins (more specific blocks come first); everything else is global.
    TABLE
        .iter()
        .find(|(net, len, _)| in_v4(ip, *net, *len))
        .map(|(_, _, class)| *class)
        .unwrap_or(AddrClass::Global)
}

fn in_v6(ip: u128, net: [u16; 8], len: u32) -> bool {
    let net = u128::from(Ipv6Addr::from(net));
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    ip & mask == net & mask
}

fn classify_v6(v6: Ipv6Addr) -> AddrClass {
    let ip = u128::from(v6);
    const GLOBAL_EXCEPTIONS: [([u16; 8], u32); 7] = [
        ([0x2001, 0x1, 0, 0, 0, 0, 0, 1], 128),      // PCP anycast
        ([0x2001, 0x1, 0, 0, 0, 0, 0, 2], 128),      // TURN anycast
        ([0x2001, 0x1, 0, 0, 0, 0, 0, 3], 128),      // DNS-SD service registration anycast
        ([0x2001, 0x3, 0, 0, 0, 0, 0, 0], 32),       // AMT
        ([0x2001, 0x4, 0x112, 0, 0, 0, 0, 0], 48),   // AS112-v6
        ([0x2001, 0x30, 0, 0, 0, 0, 0, 0], 28),      // drone remote ID (DET)
        ([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48), // direct delegation AS112
    ];
    if GLOBAL_EXCEPTIONS
        .iter()
        .any(|(net, len)| in_v6(ip, *net, *len))
    {
        return AddrClass::Global;
    }
    const TABLE: [([u16; 8], u32, AddrClass); 21] = [
        ([0; 8], 128, AddrClass::Unspecified),
        ([0, 0, 0, 0, 0, 0, 0, 1], 128, AddrClass::Loopback),
        ([0, 0, 0, 0, 0, 0xffff, 0, 0], 96, AddrClass::Ipv4Mapped),
        ([0; 8], 96, AddrClass::Deprecated), // IPv4-compatible
        ([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96, AddrClass::Nat64),
        ([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, AddrClass::Nat64Local),
        ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, AddrClass::Discard),
        ([0x100, 0, 0, 1, 0, 0, 0, 0], 64, AddrClass::Reserved), // dummy prefix
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 32, AddrClass::Teredo),
        ([0x2001, 0x2, 0, 0, 0, 0, 0, 0], 48, AddrClass::Benchmarking),
        ([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28, AddrClass::Orchid),
        ([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28, AddrClass::Orchid),
        (
            [0x2001, 0, 0, 0, 0, 0, 0, 0],
            23,
            AddrClass::ProtocolAssignment,
        ),
        (
            [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0],
            32,
            AddrClass::Documentation,
        ),
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16, AddrClass::SixToFour),
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, AddrClass::Documentation),
        ([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16, AddrClass::Reserved), // SRv6 SIDs
        ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, AddrClass::UniqueLocal),
        ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, AddrClass::LinkLocal),
        ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, AddrClass::SiteLocal),
        ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, AddrClass::Multicast),
    ];
    if let Some((_, _, class)) = TABLE.iter().find(|(net, len, _)| in_v6(ip, *net, *len)) {
        return *class;
    }
    // Only 2000::/3 is allocated as global unicast; the rest is reserved by IETF.
    if in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        AddrClass::Global
    } else {
        AddrClass::Reserved
    }
}

/// One `httpdns.hosts` / `allow_private` entry: an exact name or `*.suffix`.
///
/// Matching is ASCII case-insensitive and ignores one trailing dot on either side.
/// `*.example.com` matches `a.example.com` and `a.b.example.com`, not `example.com`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// Exactly this (lowercased, dot-less) name.
    Exact(Box<str>),
    /// Any name ending in `.suffix`; holds the `.suffix` part (lowercased).
    Suffix(Box<str>),
}

impl HostPattern {
    /// Parses a pattern; `None` for blank text, a bare `*`/`*.`, or a `*` anywhere but the
    /// leading label.
    pub fn parse(text: &str) -> Option<HostPattern> {
        let t = normalize_host(text.trim());
        if let Some(rest) = t.strip_prefix("*.") {
            if rest.is_empty() || rest.contains('*') || rest.starts_with('.') {
                return None;
            }
            return Some(HostPattern::Suffix(format!(".{rest}").into_boxed_str()));
        }
        if t.is_empty() || t.contains('*') {
            return None;
        }
        Some(HostPattern::Exact(t.into_boxed_str()))
    }

    /// Whether `host` (any case, trailing dot allowed) matches.
    pub fn matches(&self, host: &str) -> bool {
        let host = host.strip_suffix('.').unwrap_or(host);
        match self {
            HostPattern::Exact(name) => host.eq_ignore_ascii_case(name),
            HostPattern::Suffix(suffix) => {
                host.len() > suffix.len()
                    && host
                        .get(host.len() - suffix.len()..)
                        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
            }
        }
    }
}

/// Lowercases a host name and strips one trailing dot.
pub fn normalize_host(host: &str) -> String {
    host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase()
}

/// A set of [`HostPattern`]s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostMatcher {
    patterns: Vec<HostPattern>,
}

impl HostMatcher {
    /// Builds a matcher from config entries; returns the entries that are not valid
    /// patterns alongside it (callers report them; config validation should reject them).
    pub fn new<S: AsRef<str>>(entries: &[S]) -> (HostMatcher, Vec<String>) {
        let mut patterns = Vec::with_capacity(entries.len());
        let mut invalid = Vec::new();
        for e in entries {
            match HostPattern::parse(e.as_ref()) {
                Some(p) => patterns.push(p),
                None => invalid.push(e.as_ref().to_string()),
            }
        }
        (HostMatcher { patterns }, invalid)
    }

    /// A matcher that matches every host name (used by the CLI's `--allow-private`).
    pub fn any() -> HostMatcher {
        HostMatcher {
            patterns: vec![HostPattern::Suffix("".into())],
        }
    }

    /// Whether any pattern matches `host`.
    pub fn matches(&self, host: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(host))
    }

    /// Whether there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// Addresses an answer kept and those it lost, with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filtered {
    /// Accepted addresses in input order, IPv4-mapped ones turned into plain IPv4,
    /// duplicates removed.
    pub accepted: Vec<IpAddr>,
    /// Refused addresses and the reason (an [`AddrClass`] name).
    pub rejected: Vec<(IpAddr, &'static str)>,
}

/// The per-host address policy (`httpdns.allow_private`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    allow_private: HostMatcher,
}

impl AddressPolicy {
    /// A policy whose `allow_private` hosts are `allow_private`.
    pub fn new(allow_private: HostMatcher) -> Self {
        AddressPolicy { allow_private }
    }

    /// Whether `host` may keep `ip`; `Err` carries the class name that disqualified it.
    pub fn accepts(&self, host: &str, ip: IpAddr) -> Result<(), &'static str> {
        if is_public(ip) {
            return Ok(());
        }
        let class = effective_class(ip);
        if class.is_private_use() && self.allow_private.matches(host) {
            return Ok(());
        }
        Err(class.as_str())
    }

    /// Splits `addrs` into accepted (canonical, de-duplicated) and rejected addresses.
    pub fn filter<I: IntoIterator<Item = IpAddr>>(&self, host: &str, addrs: I) -> Filtered {
        let mut out = Filtered::default();
        for ip in addrs {
            match self.accepts(host, ip) {
                Ok(()) => {
                    let ip = ip.to_canonical();
                    if !out.accepted.contains(&ip) {
                        out.accepted.push(ip);
                    }
                }
                Err(why) => out.rejected.push((ip, why)),
            }
        }
        out
    }
}
