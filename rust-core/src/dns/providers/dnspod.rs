//! DNSPod / Tencent Cloud D+ text answers (`/d?dn=H&ttl=1`).
//!
//! Grammar, one line per host (lines separated by `\n`, blank lines ignored):
//!
//! ```text
//! line     = [ name ".:" ] payload [ "|" client-ip ]
//! payload  = part [ "-" part ]          ; dual form (type=addrs): IPv4 part "-" IPv6 part
//! part     = list [ "," ttl ]
//! list     = addr *( ";" addr )         ; "0" stands for "no record"
//! ```
//!
//! Examples: `1.2.3.4;5.6.7.8,120`, `1.2.3.4,120|203.0.113.9`, `1.2.3.4-240e::1,120`,
//! `0-240e::1,120`, and batch lines `a.example.com.:1.2.3.4,120` or
//! `a.example.com:1.2.3.4,120` (one per queried name;
//! the single-host `query=1` option uses the same prefix). The dual form is also accepted
//! with a TTL on each side (`1.2.3.4,120-240e::1,60`); the smallest stated TTL wins. `0`
//! alone, or `0-0`, means the name has no address ([`ProviderError::NoAddresses`]).
//! A line without a name prefix belongs to the single queried host; without exactly one
//! queried host it cannot be attributed and is malformed.

use super::{
    check_host, merge, min_ttl, non_empty, stated_ttl, text_body, HostAnswer, ProviderError,
};
use std::net::IpAddr;

/// Parses a DNSPod text answer for `hosts`.
pub fn parse(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    let text = text_body(body)?;
    let mut out: Vec<HostAnswer> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let answer = parse_line(hosts, line)?;
        merge(&mut out, answer);
    }
    non_empty(out)
}

/// Splits `name:payload` / `name.:payload` (batch lines come with or without the trailing
/// dot). The part before the first `:` is a name only if its last label starts with a
/// letter: addresses never do (an IPv6 payload's first group is hex digits, and the dual
/// form's IPv4 part ends in a digit), while every top-level domain does.
fn name_prefix(line: &str) -> Option<(&str, &str)> {
    let (name, payload) = line.split_once(':')?;
    let bare = name.strip_suffix('.').unwrap_or(name);
    let last = bare.rsplit('.').next()?;
    let starts_with_letter = last.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let name_chars = bare
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    let hex_group =
        !bare.contains('.') && bare.len() <= 4 && bare.chars().all(|c| c.is_ascii_hexdigit());
    (starts_with_letter && name_chars && !hex_group).then_some((name, payload))
}

fn parse_line(hosts: &[&str], line: &str) -> Result<HostAnswer, ProviderError> {
    // `|client-ip` is informational only.
    let line = line.split_once('|').map_or(line, |(payload, _)| payload);
    let (host, payload) = match name_prefix(line) {
        Some((name, payload)) => {
            check_host(hosts, name)?;
            (name, payload)
        }
        None => match hosts {
            [only] => (*only, line),
            [] => return Err(ProviderError::Malformed("line names no host")),
            _ => return Err(ProviderError::Malformed("batch line without host")),
        },
    };
    let mut answer = HostAnswer::new(host, 0);
    let mut parts = payload.split('-');
    let mut count = 0;
    for part in parts.by_ref() {
        count += 1;
        if count > 2 {
            return Err(ProviderError::Malformed("more than two '-' parts"));
        }
        let (list, ttl) = match part.rsplit_once(',') {
            Some((list, ttl)) => {
                let ttl = ttl
                    .trim()
                    .parse::<u64>()
                    .map(stated_ttl)
                    .map_err(|_| ProviderError::Malformed("ttl"))?;
                (list, ttl)
            }
            None => (part, 0),
        };
        answer.ttl_s = min_ttl(answer.ttl_s, ttl);
        for addr in list.split(';').map(str::trim) {
            if addr == "0" {
                continue;
            }
            let ip = addr
                .parse::<IpAddr>()
                .map_err(|_| ProviderError::Malformed("address"))?;
            answer.push(ip);
        }
    }
    Ok(answer)
}
