//! The `fixed_hosts` list: origins an `X-Line-Fixed-Host` header may pin a request to
//! besides the lines' own (see [`crate::line::router`]).
//!
//! An entry is `host[:port]`, an exact host name (no wildcard, no scheme, no path). An
//! entry without a port allows the fixed host's scheme's default port. IP literals are
//! refused, and so are names whose last label is numeric (`127.1`, `2130706433`,
//! `0x7f000001`), which resolvers read as IP addresses: an address may be pinned to only
//! when it is exactly a configured line's origin. The list's rules live here so the entry
//! syntax has one definition, read by both validation and the router.

use super::rules::Findings;
use crate::line::endpoint::parse_authority;

/// Most entries `fixed_hosts` may list.
pub const MAX_FIXED_HOSTS: usize = 4_096;

/// The `(host, port)` of one `fixed_hosts` entry, the host lower-case; the error says
/// what is wrong without echoing the entry.
pub fn fixed_host_entry(entry: &str) -> Result<(String, Option<u16>), String> {
    // A scheme (`https://`) holds a '/' too.
    if entry.contains(['/', '?', '#']) {
        return Err("expected host[:port]: no scheme, path, query or fragment".to_string());
    }
    let (host, port) = parse_authority(entry)?;
    if host.parse::<std::net::IpAddr>().is_ok() || host.contains(':') {
        return Err(
            "an IP literal may not be listed: only a line's own origin may be an address"
                .to_string(),
        );
    }
    let last = host.trim_end_matches('.').rsplit('.').next().unwrap_or("");
    if last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x") {
        return Err("a numeric host name is an IP address in another spelling".to_string());
    }
    Ok((host, port))
}

/// The semantic rules of `fixed_hosts` (the list's shape was checked by the decoder).
pub(crate) fn check(entries: &[String], f: &mut Findings) {
    if entries.len() > MAX_FIXED_HOSTS {
        f.rule("fixed_hosts", format!("at most {MAX_FIXED_HOSTS} entries"));
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, entry) in entries.iter().enumerate() {
        let path = format!("fixed_hosts[{i}]");
        if f.covered(&path) {
            continue;
        }
        match fixed_host_entry(entry) {
            Err(why) => f.rule(&path, why),
            Ok((host, port)) => {
                // The origin as text: "host" and "host:port" differ as the entries do.
                let mut key = host.trim_end_matches('.').to_string();
                if let Some(port) = port {
                    key = format!("{key}:{port}");
                }
                if let Some(first) = seen.insert(key, i) {
                    f.rule(&path, format!("already listed at fixed_hosts[{first}]"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_exact_host_names_with_an_optional_port() {
        // (entry, accepted as)
        for (entry, want) in [
            ("pin.example.com", Some(("pin.example.com", None))),
            (
                "PIN.example.com:8443",
                Some(("pin.example.com", Some(8443))),
            ),
            ("https://pin.example.com", None),
            ("pin.example.com/x", None),
            ("*.example.com", None),
            ("10.0.0.1", None),
            ("[::1]:22", None),
            ("127.1", None),
            ("2130706433", None),
            ("0x7f000001", None),
            ("pin.example.com:0", None),
            ("", None),
        ] {
            let got = fixed_host_entry(entry).ok();
            let want = want.map(|(h, p)| (h.to_string(), p));
            assert_eq!(got, want, "{entry:?}");
        }
    }
}
