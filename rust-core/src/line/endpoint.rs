//! URLs as the router sees them: a line's origin (`scheme://host[:port]`) and a request URL
//! split into origin and the untouched rest (path, query, fragment).
//!
//! Parsing is deliberately minimal and byte-exact: the router replaces only the scheme and
//! authority and copies everything after it verbatim, so `%2F`, `+`, raw UTF-8 and an empty
//! `?` survive exactly as the app wrote them. (A general URL library would normalise them.)

use std::sync::Arc;

/// URL schemes a line or fixed host may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `http`
    Http,
    /// `https`
    Https,
    /// `ws`
    Ws,
    /// `wss`
    Wss,
}

impl Scheme {
    /// Parses a scheme name (ASCII case-insensitive).
    pub fn parse(s: &str) -> Option<Scheme> {
        if s.eq_ignore_ascii_case("http") {
            Some(Scheme::Http)
        } else if s.eq_ignore_ascii_case("https") {
            Some(Scheme::Https)
        } else if s.eq_ignore_ascii_case("ws") {
            Some(Scheme::Ws)
        } else if s.eq_ignore_ascii_case("wss") {
            Some(Scheme::Wss)
        } else {
            None
        }
    }

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
            Scheme::Ws => "ws",
            Scheme::Wss => "wss",
        }
    }

    /// Whether traffic is unencrypted.
    pub fn is_cleartext(self) -> bool {
        matches!(self, Scheme::Http | Scheme::Ws)
    }

    /// Whether this is a WebSocket scheme.
    pub fn is_ws(self) -> bool {
        matches!(self, Scheme::Ws | Scheme::Wss)
    }

    /// Default port of the scheme.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http | Scheme::Ws => 80,
            Scheme::Https | Scheme::Wss => 443,
        }
    }
}

/// A line's (or fixed host's) origin: scheme, host and optional explicit port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Scheme.
    pub scheme: Scheme,
    /// Host name (lower-case) or IP literal (IPv6 without brackets).
    pub host: Arc<str>,
    /// Explicit port, if the URL named one.
    pub port: Option<u16>,
    /// Canonical `scheme://host[:port]` used to build final URLs.
    pub origin: Arc<str>,
}

impl Endpoint {
    /// Parses `scheme://host[:port]` with an optional trailing `/`. Paths, queries,
    /// fragments and credentials are rejected. `http`/`ws` are rejected unless
    /// `allow_cleartext`. The error text says what is wrong (no URL echoed back).
    pub fn parse(url: &str, allow_cleartext: bool) -> Result<Endpoint, String> {
        let (scheme_str, rest) = url
            .split_once("://")
            .ok_or_else(|| "not a URL: expected scheme://host[:port]".to_string())?;
        let scheme = Scheme::parse(scheme_str)
            .ok_or_else(|| "unsupported scheme: expected http, https, ws or wss".to_string())?;
        if scheme.is_cleartext() && !allow_cleartext {
            return Err(format!(
                "cleartext {} is not allowed (set allow_cleartext)",
                scheme.as_str()
            ));
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains(['/', '?', '#']) {
            return Err("a line URL may not have a path, query or fragment".to_string());
        }
        let (host, port) = parse_authority(authority)?;
        let origin = match port {
            Some(p) => format!("{}://{}:{}", scheme.as_str(), bracket(&host), p),
            None => format!("{}://{}", scheme.as_str(), bracket(&host)),
        };
        Ok(Endpoint {
            scheme,
            host: host.into(),
            port,
            origin: origin.into(),
        })
    }

    /// The port connections go to.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or_else(|| self.scheme.default_port())
    }
}

fn bracket(host: &str) -> std::borrow::Cow<'_, str> {
    if host.contains(':') {
        format!("[{host}]").into()
    } else {
        host.into()
    }
}

/// Splits `host[:port]` (with `[v6]` literals) and validates both parts.
pub fn parse_authority(authority: &str) -> Result<(String, Option<u16>), String> {
    if authority.is_empty() {
        return Err("missing host".to_string());
    }
    if authority.contains('@') {
        return Err("credentials are not allowed in a line URL".to_string());
    }
    let (host, port_str) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6
            .split_once(']')
            .ok_or_else(|| "unterminated IPv6 literal".to_string())?;
        if h.parse::<std::net::Ipv6Addr>().is_err() {
            return Err("invalid IPv6 literal".to_string());
        }
        match after {
            "" => (h, None),
            p if p.starts_with(':') => (h, Some(&p[1..])),
            _ => return Err("unexpected text after IPv6 literal".to_string()),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("missing host".to_string());
    }
    if !host.contains(':') && !is_valid_hostname(host) {
        return Err("invalid host name".to_string());
    }
    let port = match port_str {
        None => None,
        Some(p) => Some(
            parse_port(p)
                .ok_or_else(|| "port must be a number in 1..=65535 (digits only)".to_string())?,
        ),
    };
    Ok((host.to_ascii_lowercase(), port))
}

/// A port as canonical decimal digits in 1..=65535: no sign, no leading zero, no space
/// (`+443` and `0443` are refused; parsers disagree on what they mean).
pub fn parse_port(p: &str) -> Option<u16> {
    if p.is_empty() || p.len() > 5 || p.starts_with('0') || !p.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    p.parse::<u16>().ok()
}

/// Host names: LDH labels (underscore tolerated), 1..=63 bytes each, 253 in all, and not a
/// numeric form that only looks like a name ([`is_numeric_host`]) unless it is a canonical
/// dotted-quad IPv4 address.
pub fn is_valid_hostname(host: &str) -> bool {
    let bare = host.strip_suffix('.').unwrap_or(host);
    !bare.is_empty()
        && bare.len() <= 253
        && bare.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        && (!is_numeric_host(host) || is_dotted_quad(host))
}

/// Whether `host` is one that URL parsers read as an IPv4 address rather than a name:
/// its last label is all decimal digits or `0x`-prefixed hex (WHATWG URL), as in `127.1`,
/// `2130706433`, `0x7f000001` or `0177.0.0.1`. Resolvers and HTTP stacks turn such forms
/// into addresses (often loopback), so where Linekit takes a host name only a canonical
/// dotted quad ([`is_dotted_quad`]) may be numeric.
pub fn is_numeric_host(host: &str) -> bool {
    let bare = host.strip_suffix('.').unwrap_or(host);
    let last = bare.rsplit('.').next().unwrap_or("");
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `host` is an IPv4 address in canonical dotted-quad form: four decimal octets,
/// no leading zeros, no trailing dot.
pub fn is_dotted_quad(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|ip| ip.to_string() == host)
}

/// A request URL split without normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitUrl<'a> {
    /// Scheme as written.
    pub scheme: Scheme,
    /// Host, as written (without brackets for IPv6), not lower-cased.
    pub host: &'a str,
    /// Explicit port.
    pub port: Option<u16>,
    /// Everything from the first `/`, `?` or `#` after the authority (may be empty).
    pub rest: &'a str,
}

impl<'a> SplitUrl<'a> {
    /// Splits an absolute http(s)/ws(s) URL; `None` if it is not one.
    ///
    /// Every separator it looks for is ASCII, so it scans bytes (a request URL is split on
    /// every route): a split at an ASCII byte is always a char boundary.
    pub fn parse(url: &'a str) -> Option<SplitUrl<'a>> {
        let bytes = url.as_bytes();
        let colon = bytes.windows(3).position(|w| w == b"://")?;
        let scheme = Scheme::parse(&url[..colon])?;
        let after = &url[colon + 3..];
        let end = after
            .bytes()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        let authority = match authority.bytes().rposition(|b| b == b'@') {
            Some(at) => &authority[at + 1..],
            None => authority,
        };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let close = v6.bytes().position(|b| b == b']')?;
            (&v6[..close], v6[close + 1..].strip_prefix(':'))
        } else {
            match authority.bytes().rposition(|b| b == b':') {
                Some(c) => (&authority[..c], Some(&authority[c + 1..])),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return None;
        }
        let port = match port {
            None | Some("") => None,
            Some(p) => Some(parse_port(p)?),
        };
        Some(SplitUrl {
            scheme,
            host,
            port,
            rest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_parses_and_canonicalises() {
        let e = Endpoint::parse("HTTPS://Spot-TX.example.com:8443/", false).unwrap();
        assert_eq!(&*e.origin, "https://spot-tx.example.com:8443");
        assert_eq!(
            (e.scheme, &*e.host, e.port),
            (Scheme::Https, "spot-tx.example.com", Some(8443))
        );
        let v6 = Endpoint::parse("wss://[2001:db8::1]", false).unwrap();
        assert_eq!(&*v6.origin, "wss://[2001:db8::1]");
        assert_eq!(v6.effective_port(), 443);
    }

    #[test]
    fn endpoint_rejects_bad_input_with_reasons() {
        for (url, why) in [
            ("http://a.example.com", "cleartext"),
            ("ftp://a.example.com", "scheme"),
            ("https://", "missing host"),
            ("https://a.example.com:0", "port"),
            ("https://a.example.com:70000", "port"),
            ("https://a.example.com/path", "path"),
            ("https://u:p@a.example.com", "credentials"),
            ("https://bad host", "invalid host"),
            ("a.example.com", "not a URL"),
        ] {
            let err = Endpoint::parse(url, false).unwrap_err();
            assert!(err.contains(why), "{url}: {err}");
        }
        assert!(Endpoint::parse("http://a.example.com", true).is_ok());
    }

    #[test]
    fn ports_are_canonical_digits() {
        assert_eq!(parse_port("443"), Some(443));
        assert_eq!(parse_port("65535"), Some(65_535));
        for bad in ["", "0", "+443", "0443", "-1", " 443", "443 ", "65536", "4_43", "١٢"] {
            assert_eq!(parse_port(bad), None, "{bad:?}");
        }
        for url in ["https://a.example.com:+443", "https://a.example.com:0443"] {
            let err = Endpoint::parse(url, false).unwrap_err();
            assert!(err.contains("port"), "{url}: {err}");
        }
        assert!(SplitUrl::parse("https://a.example.com:+443/").is_none());
        assert!(SplitUrl::parse("https://a.example.com:0443/").is_none());
    }

    #[test]
    fn numeric_hosts_must_be_dotted_quads() {
        for bad in [
            "127.1",
            "2130706433",
            "0x7f000001",
            "0X7F.1",
            "0177.0.0.1",
            "127.0.0.01",
            "127.0.0.1.",
            "1.2.3.4.5",
            "a.b.0x",
            "example.123",
        ] {
            assert!(!is_valid_hostname(bad), "{bad}");
            let err = Endpoint::parse(&format!("https://{bad}"), false).unwrap_err();
            assert!(err.contains("invalid host"), "{bad}: {err}");
        }
        for ok in ["127.0.0.1", "192.0.2.10", "123.example.com", "0x.example.com", "cafe"] {
            assert!(is_valid_hostname(ok), "{ok}");
        }
    }

    #[test]
    fn split_url_keeps_rest_verbatim() {
        let u = SplitUrl::parse("https://api.example.com:8443/a%2Fb/ü?q=a+b&x=%20#f").unwrap();
        assert_eq!(u.host, "api.example.com");
        assert_eq!(u.port, Some(8443));
        assert_eq!(u.rest, "/a%2Fb/ü?q=a+b&x=%20#f");
        let bare = SplitUrl::parse("https://api.example.com?").unwrap();
        assert_eq!(bare.rest, "?");
        assert!(SplitUrl::parse("mailto:x").is_none());
        assert!(SplitUrl::parse("https://h:99999/").is_none());
    }
}
