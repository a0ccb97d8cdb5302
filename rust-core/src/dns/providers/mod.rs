//! HTTPDNS provider answer parsers.
//!
//! Each parser takes the host names that were asked for and the raw response body and
//! returns one [`HostAnswer`] per host, or a typed [`ProviderError`]. Parsers are pure:
//! no I/O, no clock, no policy (the [`crate::dns::policy`] filter runs afterwards) and no
//! panics on any input. Bodies over [`MAX_BODY_BYTES`] are refused before being looked at.
//!
//! Host binding: an answer must name the host that was asked for (case-insensitive,
//! trailing dot ignored); a name outside `hosts` is [`ProviderError::WrongHost`]. When
//! `hosts` is empty the parser trusts the names in the body (the CLI uses this to inspect
//! a captured payload); the engine always passes the hosts it queried.
//!
//! A TTL of 0 means "the provider stated none"; the cache clamps it to `min_ttl_s`. A TTL
//! of 2^31 seconds or more is read as 0, as RFC 2181 §8 says ([`stated_ttl`]): such a value
//! is an error or a sign bit, never a promise that the answer holds for 68 years.
//!
//! At most [`MAX_ADDRS_PER_HOST`] addresses are kept for one host, the first ones in
//! provider order; the rest of an answer is dropped ([`HostAnswer::push`]).
//!
//! The RFC 8484 wire parser (`doh_wire`, on NLnet Labs' `domain`) is behind the `doh-wire` cargo
//! feature, which is on by default (a size lever: without it `doh-wire` answers are
//! [`ProviderError::Unsupported`] and such providers are dropped from the config).
//!
//! Authenticated providers ([`auth`]) decrypt their answer before the format parser sees it.
//!
//! Errors never carry the payload: [`ProviderError`]'s `Display` names the problem only,
//! so it is safe to log.

internal_mod!(aliyun);
pub mod auth;
mod chain;
internal_mod!(dnspod);
internal_mod!(doh_json);
internal_mod!(
    #[cfg(feature = "doh-wire")]
    doh_wire
);

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Largest accepted response body (64 KiB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Longest CNAME chain followed by the DoH parsers.
pub const MAX_CNAME_CHAIN: usize = 16;

/// Most addresses kept for one host from one answer (both families together).
pub const MAX_ADDRS_PER_HOST: usize = 64;

/// A provider's TTL as the cache reads it: values of 2^31 seconds and more are 0 ("not
/// stated"), per RFC 2181 §8.
pub fn stated_ttl(ttl: u64) -> u32 {
    u32::try_from(ttl)
        .ok()
        .filter(|t| *t <= i32::MAX as u32)
        .unwrap_or(0)
}

/// The addresses one provider returned for one host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAnswer {
    /// The host asked for (lowercased, without trailing dot).
    pub host: String,
    /// IPv4 addresses in provider order, de-duplicated.
    pub ipv4: Vec<Ipv4Addr>,
    /// IPv6 addresses in provider order, de-duplicated.
    pub ipv6: Vec<Ipv6Addr>,
    /// TTL in seconds (0 = not stated).
    pub ttl_s: u32,
}

impl HostAnswer {
    /// An answer for `host` (normalized) with no addresses yet.
    pub fn new(host: &str, ttl_s: u32) -> Self {
        HostAnswer {
            host: crate::dns::policy::normalize_host(host),
            ipv4: Vec::new(),
            ipv6: Vec::new(),
            ttl_s,
        }
    }

    /// Adds an address unless already present, or the answer already holds
    /// [`MAX_ADDRS_PER_HOST`] addresses (the rest of a longer answer is dropped).
    pub fn push(&mut self, ip: IpAddr) {
        if self.ipv4.len() + self.ipv6.len() >= MAX_ADDRS_PER_HOST {
            return;
        }
        match ip {
            IpAddr::V4(v4) => {
                if !self.ipv4.contains(&v4) {
                    self.ipv4.push(v4);
                }
            }
            IpAddr::V6(v6) => {
                if !self.ipv6.contains(&v6) {
                    self.ipv6.push(v6);
                }
            }
        }
    }

    /// Whether the answer holds no address at all.
    pub fn is_empty(&self) -> bool {
        self.ipv4.is_empty() && self.ipv6.is_empty()
    }

    /// All addresses, IPv4 first then IPv6 (provider order inside each family).
    pub fn addrs(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.ipv4
            .iter()
            .map(|a| IpAddr::V4(*a))
            .chain(self.ipv6.iter().map(|a| IpAddr::V6(*a)))
    }
}

/// Why a provider answer was refused. `Display` never includes the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// The body is larger than [`MAX_BODY_BYTES`] (its length).
    TooLarge(usize),
    /// The body is empty or blank.
    Empty,
    /// The body does not follow the format; the context names the part that failed.
    Malformed(&'static str),
    /// The answer is for a host that was not asked for.
    WrongHost,
    /// The provider reported an error code (sanitized: at most 32 `[A-Za-z0-9_.-]` chars).
    ErrorCode(String),
    /// The provider said the name does not exist (DNS NXDOMAIN).
    NxDomain,
    /// The answer is well-formed but holds no address.
    NoAddresses,
    /// The format is not compiled in (`doh-wire` without the `doh-wire` cargo feature).
    Unsupported,
    /// An encrypted answer is not valid hex (odd length or a non-hex character).
    BadHex(&'static str),
    /// An encrypted answer is shorter than its IV or not a whole number of blocks.
    Truncated,
    /// An encrypted answer does not decrypt to valid padding (most often a wrong key).
    BadPadding,
    /// The configured key cannot be used (too short or too long).
    BadKey(&'static str),
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::TooLarge(n) => {
                write!(f, "body too large ({n} bytes, limit {MAX_BODY_BYTES})")
            }
            ProviderError::Empty => f.write_str("empty body"),
            ProviderError::Malformed(ctx) => write!(f, "malformed answer: {ctx}"),
            ProviderError::WrongHost => f.write_str("answer is for another host"),
            ProviderError::ErrorCode(code) => write!(f, "provider error code {code}"),
            ProviderError::NxDomain => f.write_str("name does not exist (NXDOMAIN)"),
            ProviderError::NoAddresses => f.write_str("answer holds no address"),
            ProviderError::Unsupported => f.write_str("format not compiled in"),
            ProviderError::BadHex(ctx) => write!(f, "encrypted answer is not hex: {ctx}"),
            ProviderError::Truncated => f.write_str("encrypted answer is truncated"),
            ProviderError::BadPadding => {
                f.write_str("encrypted answer has bad padding (wrong key?)")
            }
            ProviderError::BadKey(ctx) => write!(f, "unusable key: {ctx}"),
        }
    }
}

impl std::error::Error for ProviderError {}

impl ProviderError {
    /// A short stable name for traces and the CLI (`too_large`, `malformed`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            ProviderError::TooLarge(_) => "too_large",
            ProviderError::Empty => "empty",
            ProviderError::Malformed(_) => "malformed",
            ProviderError::WrongHost => "wrong_host",
            ProviderError::ErrorCode(_) => "error_code",
            ProviderError::NxDomain => "nxdomain",
            ProviderError::NoAddresses => "no_addresses",
            ProviderError::Unsupported => "unsupported",
            ProviderError::BadHex(_) => "bad_hex",
            ProviderError::Truncated => "truncated",
            ProviderError::BadPadding => "bad_padding",
            ProviderError::BadKey(_) => "bad_key",
        }
    }

    /// An [`ProviderError::ErrorCode`] with `code` sanitized (never echoes arbitrary text).
    pub fn code(code: &str) -> Self {
        let clean: String = code
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
            .take(32)
            .collect();
        ProviderError::ErrorCode(if clean.is_empty() {
            "unknown".to_string()
        } else {
            clean
        })
    }
}

pub use crate::wire::vocabulary::ProviderFormat;

impl ProviderFormat {
    /// Parses `body` as an answer of this format for `hosts` (see the module docs).
    pub fn parse(self, hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
        match self {
            ProviderFormat::Aliyun => aliyun::parse_single(hosts, body),
            ProviderFormat::AliyunBatch => aliyun::parse_batch(hosts, body),
            ProviderFormat::Dnspod => dnspod::parse(hosts, body),
            ProviderFormat::DohJson => doh_json::parse(hosts, body),
            #[cfg(feature = "doh-wire")]
            ProviderFormat::DohWire => doh_wire::parse(hosts, body),
            #[cfg(not(feature = "doh-wire"))]
            ProviderFormat::DohWire => {
                check_size(body)?;
                Err(ProviderError::Unsupported)
            }
        }
    }
}

/// Refuses oversize bodies.
pub(crate) fn check_size(body: &[u8]) -> Result<(), ProviderError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ProviderError::TooLarge(body.len()));
    }
    Ok(())
}

/// Size check, UTF-8 decode and trim for the text formats; blank → [`ProviderError::Empty`].
pub(crate) fn text_body(body: &[u8]) -> Result<&str, ProviderError> {
    check_size(body)?;
    let text = std::str::from_utf8(body).map_err(|_| ProviderError::Malformed("not UTF-8"))?;
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if text.is_empty() {
        return Err(ProviderError::Empty);
    }
    Ok(text)
}

/// Whether two host names are the same (case-insensitive, one trailing dot ignored).
pub(crate) fn same_host(a: &str, b: &str) -> bool {
    let a = a.strip_suffix('.').unwrap_or(a);
    let b = b.strip_suffix('.').unwrap_or(b);
    !a.is_empty() && a.eq_ignore_ascii_case(b)
}

/// Checks `name` against the queried `hosts` (empty = trust the body).
pub(crate) fn check_host(hosts: &[&str], name: &str) -> Result<(), ProviderError> {
    if name.trim().is_empty() {
        return Err(ProviderError::Malformed("missing host name"));
    }
    if crate::line::endpoint::is_numeric_host(name) && !crate::line::endpoint::is_dotted_quad(name)
    {
        return Err(ProviderError::Malformed("numeric host name"));
    }
    if hosts.is_empty() || hosts.iter().any(|h| same_host(h, name)) {
        Ok(())
    } else {
        Err(ProviderError::WrongHost)
    }
}

/// Merges `answer` into `out` (same host → union of addresses, smallest TTL).
pub(crate) fn merge(out: &mut Vec<HostAnswer>, answer: HostAnswer) {
    if let Some(existing) = out.iter_mut().find(|a| a.host == answer.host) {
        for ip in answer.addrs() {
            existing.push(ip);
        }
        existing.ttl_s = min_ttl(existing.ttl_s, answer.ttl_s);
    } else {
        out.push(answer);
    }
}

/// The smaller stated TTL (0 = not stated loses to any stated value).
pub(crate) fn min_ttl(a: u32, b: u32) -> u32 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}

/// Drops address-less answers; none left → [`ProviderError::NoAddresses`].
pub(crate) fn non_empty(answers: Vec<HostAnswer>) -> Result<Vec<HostAnswer>, ProviderError> {
    let kept: Vec<HostAnswer> = answers.into_iter().filter(|a| !a.is_empty()).collect();
    if kept.is_empty() {
        Err(ProviderError::NoAddresses)
    } else {
        Ok(kept)
    }
}
