//! Alibaba Cloud HTTPDNS JSON answers.
//!
//! Single host (`/d?host=H`):
//! `{"host":"H","ips":["1.2.3.4"],"ipsv6":["2400::1"],"ttl":60,"origin_ttl":600,"client_ip":"…"}`
//! — `ipsv6` and `ips` may be missing or empty; `origin_ttl`, `client_ip` and any other
//! field are ignored; an error body is `{"code":"InvalidAccount"}`.
//!
//! Batch (`/resolve?host=A,B&query=4,6`): `{"dns":[item…]}` (newer gateways use
//! `{"results":[item…]}`), where an item is either the single-host shape, or a typed item
//! `{"host":"A","type":1,"ips":[…],"ttl":60}` / `{"host":"A","type":28,"ips":[…v6],"ttl":60}`.
//! Items for one host are merged (union of addresses, smallest TTL); items of another
//! record type are skipped.

use super::{check_host, merge, non_empty, stated_ttl, text_body, HostAnswer, ProviderError};
use serde_json::{Map, Value};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Parses a `/d` single-host answer.
pub fn parse_single(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    let obj = json_object(body)?;
    if !obj.contains_key("host") {
        return Err(error_code(&obj).unwrap_or(ProviderError::Malformed("missing host")));
    }
    let answer = parse_item(hosts, &obj)?;
    if let Some(a) = answer.filter(|a| !a.is_empty()) {
        Ok(vec![a])
    } else {
        Err(ProviderError::NoAddresses)
    }
}

/// Parses a `/resolve` batch answer.
pub fn parse_batch(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    let obj = json_object(body)?;
    let items = match obj.get("dns").or_else(|| obj.get("results")) {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ProviderError::Malformed("dns/results is not an array")),
        None => {
            return Err(error_code(&obj).unwrap_or(ProviderError::Malformed("missing dns/results")))
        }
    };
    let mut out: Vec<HostAnswer> = Vec::new();
    for item in items {
        let Value::Object(item) = item else {
            return Err(ProviderError::Malformed("batch item is not an object"));
        };
        if let Some(answer) = parse_item(hosts, item)? {
            merge(&mut out, answer);
        }
    }
    non_empty(out)
}

fn json_object(body: &[u8]) -> Result<Map<String, Value>, ProviderError> {
    match serde_json::from_str::<Value>(text_body(body)?) {
        Ok(Value::Object(obj)) => Ok(obj),
        Ok(_) => Err(ProviderError::Malformed("not a JSON object")),
        Err(_) => Err(ProviderError::Malformed("invalid JSON")),
    }
}

/// The sanitized `code` of an error body (`{"code":"SignatureExpired"}`), if it is one;
/// used to name a refused request (HTTP 403) in logs.
pub fn error_code_of(body: &[u8]) -> Option<String> {
    if body.len() > super::MAX_BODY_BYTES {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(obj)) => match error_code(&obj)? {
            ProviderError::ErrorCode(code) => Some(code),
            _ => None,
        },
        _ => None,
    }
}

fn error_code(obj: &Map<String, Value>) -> Option<ProviderError> {
    match obj.get("code") {
        Some(Value::String(code)) => Some(ProviderError::code(code)),
        Some(Value::Number(n)) => Some(ProviderError::code(&n.to_string())),
        _ => None,
    }
}

/// One host item; `None` for an item of a record type other than A/AAAA.
fn parse_item(
    hosts: &[&str],
    item: &Map<String, Value>,
) -> Result<Option<HostAnswer>, ProviderError> {
    let host = match item.get("host") {
        Some(Value::String(h)) => h.as_str(),
        _ => return Err(ProviderError::Malformed("host is not a string")),
    };
    check_host(hosts, host)?;
    let ttl = match item.get("ttl") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().map(stated_ttl).ok_or(ProviderError::Malformed(
                "ttl is not a non-negative integer",
            ))?,
    };
    let mut answer = HostAnswer::new(host, ttl);
    let (ips_family, skip) = match item.get("type") {
        None | Some(Value::Null) => (Family::V4, false),
        Some(t) => match t.as_u64() {
            Some(1) => (Family::V4, false),
            Some(28) => (Family::V6, false),
            Some(_) => (Family::V4, true),
            None => return Err(ProviderError::Malformed("type is not a number")),
        },
    };
    if skip {
        return Ok(None);
    }
    push_list(&mut answer, item.get("ips"), ips_family, "ips")?;
    push_list(&mut answer, item.get("ipsv6"), Family::V6, "ipsv6")?;
    Ok(Some(answer))
}

#[derive(Clone, Copy)]
enum Family {
    V4,
    V6,
}

fn push_list(
    answer: &mut HostAnswer,
    list: Option<&Value>,
    family: Family,
    ctx: &'static str,
) -> Result<(), ProviderError> {
    let items = match list {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ProviderError::Malformed(ctx)),
    };
    for v in items {
        let Value::String(s) = v else {
            return Err(ProviderError::Malformed(ctx));
        };
        let s = s.trim();
        let ip = match family {
            Family::V4 => s.parse::<Ipv4Addr>().map(IpAddr::V4),
            Family::V6 => s.parse::<Ipv6Addr>().map(IpAddr::V6),
        }
        .map_err(|_| ProviderError::Malformed(ctx))?;
        answer.push(ip);
    }
    Ok(())
}
