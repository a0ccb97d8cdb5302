//! Redaction: what may be logged about hosts and URLs.
//!
//! A host is logged as its *group*: the registrable-looking suffix (last two labels) with
//! the rest masked, so `spot-ali.example.com` becomes `*.example.com` and an IP literal
//! becomes `ip`. URLs are never logged; where a log line needs to point at one, use
//! [`url_shape`], which keeps the scheme and the host group only.
//!
//! Outputs that must name the URL a request goes to (replay `request` lines, the config
//! fetches of `state()`, `linekit httpdns request`) print [`redact_url`]: scheme, host,
//! port and path, with credentials dropped and the query (where provider tokens, DNSPod
//! ids, encrypted names and signatures travel) replaced by a short digest of it, so a
//! test can still tell which query was sent by comparing digests. The digest identifies;
//! it does not hide a low-entropy query from someone who can guess it whole.

/// The loggable group of a host name.
pub fn host_group(host: &str) -> String {
    let host = host.trim_end_matches('.');
    if host.is_empty() {
        return "-".to_string();
    }
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') {
        return "ip".to_string();
    }
    let labels: Vec<&str> = host.rsplitn(3, '.').collect();
    match labels.len() {
        0..=2 => host.to_ascii_lowercase(),
        _ => format!("*.{}.{}", labels[1], labels[0]).to_ascii_lowercase(),
    }
}

/// The digest [`redact_url`] prints in place of a query: the first 8 hex digits of its
/// SHA-512 (the hash the signature checks already link in).
pub const QUERY_DIGEST: &str = "sha512";

/// `url` as outputs may show it: `scheme://host[:port]/path`, credentials dropped, the
/// query replaced by `?<redacted:sha512-XXXXXXXX>` (see [`QUERY_DIGEST`]) and the
/// fragment by `#<redacted>`. Text that is not an absolute URL is `<not a url>`.
pub fn redact_url(url: &str) -> String {
    use sha2::{Digest, Sha512};
    let Some((scheme, rest)) = url.split_once("://") else {
        return "<not a url>".to_string();
    };
    let (rest, fragment) = match rest.split_once('#') {
        Some((r, _)) => (r, true),
        None => (rest, false),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let authority = authority.rsplit('@').next().unwrap_or("");
    let mut out = format!("{}://{authority}{path}", scheme.to_ascii_lowercase());
    if let Some(q) = query {
        let digest = Sha512::digest(q.as_bytes());
        out.push_str(&format!("?<redacted:{QUERY_DIGEST}-"));
        for b in &digest[..4] {
            out.push_str(&format!("{b:02x}"));
        }
        out.push('>');
    }
    if fragment {
        out.push_str("#<redacted>");
    }
    out
}

/// `scheme://<host group>/…` for a URL: never the path, query or credentials.
#[cfg(any(test, feature = "testing"))]
pub fn url_shape(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (s, r),
        None => return "<not a url>".to_string(),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or("");
    let host = if let Some(stripped) = authority.strip_prefix('[') {
        stripped.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    format!("{}://{}/…", scheme.to_ascii_lowercase(), host_group(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_grouped() {
        for (host, group) in [
            ("spot-ali.example.com", "*.example.com"),
            ("a.b.c.Example.COM.", "*.example.com"),
            ("example.com", "example.com"),
            ("10.0.0.1", "ip"),
            ("::1", "ip"),
            ("", "-"),
        ] {
            assert_eq!(host_group(host), group, "{host:?}");
        }
    }

    #[test]
    fn redacted_urls_keep_the_origin_and_path_and_digest_the_query() {
        let r = redact_url("HTTPS://user:pw@119.29.29.99:8443/d?dn=a.example.com&token=T0K#f");
        assert!(
            r.starts_with("https://119.29.29.99:8443/d?<redacted:sha512-"),
            "{r}"
        );
        assert!(r.ends_with(">#<redacted>"), "{r}");
        for secret in ["user", "pw", "T0K", "token", "dn=", "a.example.com"] {
            assert!(!r.contains(secret), "{secret} in {r}");
        }
        // The same query gives the same digest; another query another one.
        let a = redact_url("https://h.example.com/d?dn=a&id=1");
        assert_eq!(a, redact_url("https://other.example.com/d?dn=a&id=1").replace("other", "h"));
        assert_ne!(a, redact_url("https://h.example.com/d?dn=a&id=2"));
        assert_eq!(redact_url("https://h.example.com/p"), "https://h.example.com/p");
        assert_eq!(redact_url("https://[::1]:80"), "https://[::1]:80");
        assert_eq!(redact_url("?token=x"), "<not a url>");
    }

    #[test]
    fn url_shape_drops_path_query_and_credentials() {
        let s = url_shape("https://user:pw@api.example.com:8443/v1/secret?token=abc");
        assert_eq!(s, "https://*.example.com/…");
        assert!(!s.contains("token") && !s.contains("pw") && !s.contains("secret"));
        assert_eq!(url_shape("http://[::1]:80/x"), "http://ip/…");
        assert_eq!(url_shape("nonsense"), "<not a url>");
    }
}
