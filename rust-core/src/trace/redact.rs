//! Redaction: what may be logged about hosts and URLs.
//!
//! A host is logged as its *group*: the registrable-looking suffix (last two labels) with
//! the rest masked, so `spot-ali.example.com` becomes `*.example.com` and an IP literal
//! becomes `ip`. URLs are never logged; where a log line needs to point at one, use
//! [`url_shape`], which keeps the scheme and the host group only.

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
    fn url_shape_drops_path_query_and_credentials() {
        let s = url_shape("https://user:pw@api.example.com:8443/v1/secret?token=abc");
        assert_eq!(s, "https://*.example.com/…");
        assert!(!s.contains("token") && !s.contains("pw") && !s.contains("secret"));
        assert_eq!(url_shape("http://[::1]:80/x"), "http://ip/…");
        assert_eq!(url_shape("nonsense"), "<not a url>");
    }
}
