//! JSON DNS-over-HTTPS answers (`application/dns-json`, Google and Cloudflare schema).
//!
//! ```json
//! {"Status":0,"TC":false,"Question":[{"name":"www.example.com.","type":1}],
//!  "Answer":[{"name":"www.example.com.","type":5,"TTL":300,"data":"cdn.example.net."},
//!            {"name":"cdn.example.net.","type":1,"TTL":60,"data":"93.184.216.34"}]}
//! ```
//!
//! `Status` is the DNS RCODE: 3 is [`ProviderError::NxDomain`], any other non-zero value is
//! [`ProviderError::ErrorCode`]. The question must name the queried host. From that name
//! the CNAME (type 5) chain is followed (at most [`super::MAX_CNAME_CHAIN`] links) and the
//! A (1) / AAAA (28) records of the final name are the addresses; records for names off the
//! chain are ignored. The TTL is the smallest TTL among the CNAMEs used and the address
//! records kept. A truncated (`TC`) answer is malformed.

use super::chain::{follow, Rr, RrData};
use super::{check_host, check_size, stated_ttl, text_body, HostAnswer, ProviderError};
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Parses a JSON DoH answer for one queried host.
pub fn parse(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    check_size(body)?;
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text_body(body)?) else {
        return Err(ProviderError::Malformed("invalid JSON object"));
    };
    let status = obj
        .get("Status")
        .and_then(Value::as_u64)
        .ok_or(ProviderError::Malformed("missing Status"))?;
    match status {
        0 => {}
        3 => return Err(ProviderError::NxDomain),
        other => return Err(ProviderError::code(rcode_name(other))),
    }
    if obj.get("TC").and_then(Value::as_bool) == Some(true) {
        return Err(ProviderError::Malformed("truncated"));
    }
    let question = match obj.get("Question") {
        Some(Value::Array(q)) => q
            .first()
            .and_then(|q| q.get("name"))
            .and_then(Value::as_str),
        _ => None,
    };
    let qname = match (question, hosts) {
        (Some(name), _) => {
            check_host(hosts, name)?;
            name
        }
        (None, [only]) => *only,
        (None, _) => return Err(ProviderError::Malformed("missing Question")),
    };
    let records = match obj.get("Answer") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list.iter().map(record).collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(ProviderError::Malformed("Answer is not an array")),
    };
    let answer = follow(qname, records.iter().flatten())?;
    if answer.is_empty() {
        return Err(ProviderError::NoAddresses);
    }
    Ok(vec![answer])
}

/// One `Answer` entry; `None` for record types that play no part (RRSIG, …).
fn record(v: &Value) -> Result<Option<Rr<'_>>, ProviderError> {
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .ok_or(ProviderError::Malformed("answer name"))?;
    let rtype = v
        .get("type")
        .and_then(Value::as_u64)
        .ok_or(ProviderError::Malformed("answer type"))?;
    let ttl = v
        .get("TTL")
        .and_then(Value::as_u64)
        .map(stated_ttl)
        .ok_or(ProviderError::Malformed("answer TTL"))?;
    let data = || {
        v.get("data")
            .and_then(Value::as_str)
            .map(str::trim)
            .ok_or(ProviderError::Malformed("answer data"))
    };
    let data = match rtype {
        1 => RrData::Addr(IpAddr::V4(
            data()?
                .parse::<Ipv4Addr>()
                .map_err(|_| ProviderError::Malformed("A data"))?,
        )),
        28 => RrData::Addr(IpAddr::V6(
            data()?
                .parse::<Ipv6Addr>()
                .map_err(|_| ProviderError::Malformed("AAAA data"))?,
        )),
        5 => RrData::Cname(data()?.to_string()),
        _ => return Ok(None),
    };
    Ok(Some(Rr {
        name: std::borrow::Cow::Borrowed(name),
        ttl,
        data,
    }))
}

/// The mnemonic of a DNS RCODE (RFC 1035, 6895), or its number.
pub(crate) fn rcode_name(code: u64) -> &'static str {
    match code {
        1 => "FORMERR",
        2 => "SERVFAIL",
        3 => "NXDOMAIN",
        4 => "NOTIMP",
        5 => "REFUSED",
        6 => "YXDOMAIN",
        7 => "YXRRSET",
        8 => "NXRRSET",
        9 => "NOTAUTH",
        10 => "NOTZONE",
        _ => "RCODE_OTHER",
    }
}
