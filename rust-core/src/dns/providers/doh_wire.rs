//! RFC 8484 DNS-over-HTTPS wire format (`application/dns-message`).
//!
//! [`build_query`] encodes a recursive query with ID 0 (RFC 8484 §4.1 recommends 0 so
//! HTTP caches can share answers). [`parse`] decodes the answer with `simple-dns` and
//! checks that it is a response (QR bit) to a standard query with ID 0, not truncated,
//! whose single question names the queried host; RCODE NXDOMAIN is
//! [`ProviderError::NxDomain`], other non-zero RCODEs are [`ProviderError::ErrorCode`].
//! Addresses come from following the CNAME chain from the question name, and the TTL is the
//! smallest TTL among the records used (see `chain`).
//!
//! `simple-dns` was chosen over `hickory-proto` for size: both decode every record type we
//! meet, but hickory-proto costs about 430 KB of a stripped `.so` and simple-dns a fraction of
//! that (both measured; see BENCHMARKS.md), which lets the wire format ship in the default
//! build. The tests encode their answers with hickory-proto, so two independent
//! implementations agree on every message they check.

use super::chain::{follow, Rr, RrData};
use super::doh_json::rcode_name;
use super::{check_host, check_size, HostAnswer, ProviderError};
use simple_dns::rdata::RData;
use simple_dns::{Name, Packet, PacketFlag, Question, CLASS, OPCODE, QCLASS, QTYPE, RCODE, TYPE};
use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The query ID used by [`build_query`] and required by [`parse`].
pub const QUERY_ID: u16 = 0;

/// The record type a wire query asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordType {
    /// IPv4 addresses.
    A,
    /// IPv6 addresses.
    Aaaa,
}

/// Encodes a query for `host` (ASCII / punycode name) and `rtype`.
pub fn build_query(host: &str, rtype: RecordType) -> Result<Vec<u8>, ProviderError> {
    let host = host.trim();
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty()
        || !host.is_ascii()
        || host.contains('\\')
        || host.split('.').any(str::is_empty)
    {
        return Err(ProviderError::Malformed("host name"));
    }
    let name = Name::new(host).map_err(|_| ProviderError::Malformed("host name"))?;
    let qtype = match rtype {
        RecordType::A => TYPE::A,
        RecordType::Aaaa => TYPE::AAAA,
    };
    let mut msg = Packet::new_query(QUERY_ID);
    msg.set_flags(PacketFlag::RECURSION_DESIRED);
    msg.questions.push(Question::new(
        name,
        QTYPE::TYPE(qtype),
        QCLASS::CLASS(CLASS::IN),
        false,
    ));
    msg.build_bytes_vec()
        .map_err(|_| ProviderError::Malformed("query encoding"))
}

/// Parses a wire-format answer for one queried host.
pub fn parse(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    check_size(body)?;
    if body.is_empty() {
        return Err(ProviderError::Empty);
    }
    let msg = Packet::parse(body).map_err(|_| ProviderError::Malformed("DNS message"))?;
    if !msg.has_flags(PacketFlag::RESPONSE) {
        return Err(ProviderError::Malformed("not a response"));
    }
    if msg.id() != QUERY_ID {
        return Err(ProviderError::Malformed("unexpected message ID"));
    }
    if msg.opcode() != OPCODE::StandardQuery {
        return Err(ProviderError::Malformed("not a standard query"));
    }
    if msg.has_flags(PacketFlag::TRUNCATION) {
        return Err(ProviderError::Malformed("truncated"));
    }
    match msg.rcode() {
        RCODE::NoError => {}
        RCODE::NameError => return Err(ProviderError::NxDomain),
        other => return Err(ProviderError::code(rcode_name(rcode_number(other)))),
    }
    let [question] = msg.questions.as_slice() else {
        return Err(ProviderError::Malformed("expected exactly one question"));
    };
    let qname = question.qname.to_string();
    check_host(hosts, &qname)?;
    let records: Vec<Rr<'_>> = msg
        .answers
        .iter()
        .filter(|r| r.class == CLASS::IN)
        .filter_map(|r| {
            let data = match &r.rdata {
                RData::A(a) => RrData::Addr(IpAddr::V4(Ipv4Addr::from(a.address))),
                RData::AAAA(a) => RrData::Addr(IpAddr::V6(Ipv6Addr::from(a.address))),
                RData::CNAME(target) => RrData::Cname(target.0.to_string()),
                _ => return None,
            };
            Some(Rr {
                name: Cow::Owned(r.name.to_string()),
                ttl: r.ttl,
                data,
            })
        })
        .collect();
    let answer = follow(&qname, records.iter())?;
    if answer.is_empty() {
        return Err(ProviderError::NoAddresses);
    }
    Ok(vec![answer])
}

fn rcode_number(code: RCODE) -> u64 {
    match code {
        RCODE::NoError => 0,
        RCODE::FormatError => 1,
        RCODE::ServerFailure => 2,
        RCODE::NameError => 3,
        RCODE::NotImplemented => 4,
        RCODE::Refused => 5,
        RCODE::YXDOMAIN => 6,
        RCODE::YXRRSET => 7,
        RCODE::NXRRSET => 8,
        RCODE::NOTAUTH => 9,
        RCODE::NOTZONE => 10,
        _ => u64::MAX,
    }
}
