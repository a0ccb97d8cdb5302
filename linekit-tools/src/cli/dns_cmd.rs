//! `linekit httpdns parse`, `linekit ip classify` and `linekit ip order`
//! (`docs/architecture.md#cli`).
//!
//! - `httpdns parse --format F [--host H]… [--hex] [--allow-private] [FILE|-]` parses one
//!   provider body (stdin when FILE is `-` or absent) and prints
//!   `{"hosts":{"HOST":{"ipv4":[..],"ipv6":[..],"ttl":S}},"rejected":[{"addr":..,"why":..}]}`.
//!   Addresses failing the address policy (public-only, or private-use allowed for every
//!   host with `--allow-private`) are listed under `rejected` with their class. `--host`
//!   may repeat or hold a comma list; without it the names in the body are trusted.
//!   `doh-wire` reads raw bytes, or hex text with `--hex`. Errors: stderr
//!   `{"error":..,"kind":..}` and exit 1 (the payload is never echoed).
//!   With `--config F --provider ID` the provider's format applies and its answer is
//!   decrypted first (`dnspod-des`, `dnspod-aes`).
//! - `ip classify ADDR…` prints JSON Lines `{"addr":..,"class":..,"public":bool}`;
//!   IPv4-mapped addresses also carry `"mapped":CLASS` (the embedded IPv4's class, which
//!   decides `public`). Invalid addresses are reported on stderr and make the exit code 1
//!   after every valid one has been printed.
//! - `ip order ADDR…` prints the OkHttp order as one JSON array.

use super::{fail, Streams};
use linekit_core::dns::policy::{classify, effective_class, is_public, AddrClass, AddressPolicy};
use linekit_core::dns::providers::{ProviderFormat, MAX_BODY_BYTES};
use linekit_core::dns::{order_addresses, HostMatcher};
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::net::IpAddr;

/// `httpdns parse …`.
pub fn httpdns_parse(args: &[&str], io: &mut Streams<'_>) -> i32 {
    let mut format = None;
    let mut hosts: Vec<String> = Vec::new();
    let mut hex = false;
    let mut allow_private = false;
    let mut file: Option<&str> = None;
    let (mut config, mut provider_id) = (None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--format" => match it.next().map(|f| f.parse::<ProviderFormat>()) {
                Some(Ok(f)) => format = Some(f),
                Some(Err(e)) => return fail(io.err, &e),
                None => return fail(io.err, "--format needs a value"),
            },
            "--host" => match it.next() {
                Some(h) => hosts.extend(
                    h.split(',')
                        .map(str::trim)
                        .filter(|h| !h.is_empty())
                        .map(String::from),
                ),
                None => return fail(io.err, "--host needs a value"),
            },
            "--config" => match it.next() {
                Some(f) => config = Some(*f),
                None => return fail(io.err, "--config needs a file"),
            },
            "--provider" => match it.next() {
                Some(id) => provider_id = Some(*id),
                None => return fail(io.err, "--provider needs an id"),
            },
            "--hex" => hex = true,
            "--allow-private" => allow_private = true,
            other if other.starts_with("--") => {
                return fail(io.err, &format!("unknown option {other}"))
            }
            path => {
                if file.replace(path).is_some() {
                    return fail(io.err, "only one input file may be given");
                }
            }
        }
    }
    // With `--config F --provider ID` the provider decides the format and decryption.
    let mut auth = None;
    match (config, provider_id) {
        (Some(path), Some(id)) => match super::provider_cmd::load_provider(path, id, io.input) {
            Ok((p, f)) => {
                format = Some(f);
                auth = p.auth;
            }
            Err(e) => return fail(io.err, &e),
        },
        (None, None) => {}
        _ => return fail(io.err, "--config and --provider go together"),
    }
    let Some(format) = format else {
        return fail(
            io.err,
            "usage: linekit httpdns parse --format aliyun|aliyun-batch|dnspod|doh-json|doh-wire [--host H] [--hex] [--allow-private] [FILE|-]",
        );
    };
    if hex && format != ProviderFormat::DohWire {
        return fail(io.err, "--hex applies to --format doh-wire only");
    }
    // Read a little more than any acceptable body so oversize input is reported as such
    // without reading an unbounded file.
    let limit = (MAX_BODY_BYTES as u64) * if hex { 3 } else { 1 } + 64;
    let mut raw = Vec::new();
    let read = match file {
        None | Some("-") => io.input.take(limit).read_to_end(&mut raw),
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => f.take(limit).read_to_end(&mut raw),
            Err(e) => return fail(io.err, &format!("cannot read {path}: {e}")),
        },
    };
    if let Err(e) = read {
        return fail(io.err, &format!("cannot read input: {e}"));
    }
    let body = if hex {
        match decode_hex(&raw) {
            Some(b) => b,
            None => return fail(io.err, "input is not hex"),
        }
    } else {
        raw
    };
    let host_refs: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let decoded = linekit_core::dns::providers::auth::decode_answer(auth.as_ref(), &body);
    let answers = match decoded.and_then(|plain| format.parse(&host_refs, &plain)) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(
                io.err,
                "{}",
                json!({"error": e.to_string(), "kind": e.kind()})
            );
            return 1;
        }
    };
    let policy = if allow_private {
        AddressPolicy::new(HostMatcher::any())
    } else {
        AddressPolicy::default()
    };
    let mut out_hosts = Map::new();
    let mut rejected = Vec::new();
    for answer in &answers {
        let filtered = policy.filter(&answer.host, answer.addrs());
        let (v4, v6): (Vec<IpAddr>, Vec<IpAddr>) =
            filtered.accepted.iter().partition(|a| a.is_ipv4());
        out_hosts.insert(
            answer.host.clone(),
            json!({
                "ipv4": v4.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "ipv6": v6.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "ttl": answer.ttl_s,
            }),
        );
        rejected.extend(
            filtered
                .rejected
                .iter()
                .map(|(ip, why)| json!({"addr": ip.to_string(), "why": why})),
        );
    }
    let _ = writeln!(
        io.out,
        "{}",
        json!({"hosts": Value::Object(out_hosts), "rejected": rejected})
    );
    0
}

fn decode_hex(text: &[u8]) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

/// `ip classify ADDR…`.
pub fn ip_classify(args: &[&str], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if args.is_empty() {
        return fail(err, "usage: linekit ip classify ADDR...");
    }
    let mut code = 0;
    for arg in args {
        match arg.trim().parse::<IpAddr>() {
            Ok(ip) => {
                let class = classify(ip);
                let mut line = json!({
                    "addr": ip.to_string(),
                    "class": class.as_str(),
                    "public": is_public(ip),
                });
                if class == AddrClass::Ipv4Mapped {
                    line["mapped"] = json!(effective_class(ip).as_str());
                }
                let _ = writeln!(out, "{line}");
            }
            Err(_) => {
                let _ = writeln!(err, "{}", json!({"error": "invalid address", "addr": arg}));
                code = 1;
            }
        }
    }
    code
}

/// `ip order ADDR…`.
pub fn ip_order(args: &[&str], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut addrs = Vec::with_capacity(args.len());
    for arg in args {
        match arg.trim().parse::<IpAddr>() {
            Ok(ip) => addrs.push(ip),
            Err(_) => {
                let _ = writeln!(err, "{}", json!({"error": "invalid address", "addr": arg}));
                return 1;
            }
        }
    }
    let ordered: Vec<String> = order_addresses(&addrs)
        .iter()
        .map(ToString::to_string)
        .collect();
    let _ = writeln!(out, "{}", json!(ordered));
    0
}
