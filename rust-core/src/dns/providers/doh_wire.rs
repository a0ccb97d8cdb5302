//! RFC 8484 DNS-over-HTTPS wire format (`application/dns-message`).
//!
//! [`build_query`] encodes a recursive query with ID 0 (RFC 8484 §4.1 recommends 0 so
//! HTTP caches can share answers). [`parse`] decodes the answer with `hickory-proto` and
//! checks that it is a response (QR bit) to a standard query with ID 0, not truncated,
//! whose single question names the queried host; RCODE NXDOMAIN is
//! [`ProviderError::NxDomain`], other non-zero RCODEs are [`ProviderError::ErrorCode`].
//! Addresses come from following the CNAME chain from the question name, and the TTL is the
//! smallest TTL among the records used (see `chain`).

use super::chain::{follow, Rr, RrData};
use super::doh_json::rcode_name;
use super::{check_host, check_size, HostAnswer, ProviderError};
use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, RecordType as HickoryType};
use std::borrow::Cow;

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
    if host.is_empty() {
        return Err(ProviderError::Malformed("empty host name"));
    }
    let mut name = Name::from_ascii(host).map_err(|_| ProviderError::Malformed("host name"))?;
    name.set_fqdn(true);
    let qtype = match rtype {
        RecordType::A => HickoryType::A,
        RecordType::Aaaa => HickoryType::AAAA,
    };
    let mut msg = Message::new();
    msg.set_id(QUERY_ID)
        .set_message_type(MessageType::Query)
        .set_op_code(OpCode::Query)
        .set_recursion_desired(true)
        .add_query(Query::query(name, qtype));
    msg.to_vec()
        .map_err(|_| ProviderError::Malformed("query encoding"))
}

/// Parses a wire-format answer for one queried host.
pub fn parse(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    check_size(body)?;
    if body.is_empty() {
        return Err(ProviderError::Empty);
    }
    let msg = Message::from_vec(body).map_err(|_| ProviderError::Malformed("DNS message"))?;
    if msg.message_type() != MessageType::Response {
        return Err(ProviderError::Malformed("not a response"));
    }
    if msg.id() != QUERY_ID {
        return Err(ProviderError::Malformed("unexpected message ID"));
    }
    if msg.op_code() != OpCode::Query {
        return Err(ProviderError::Malformed("not a standard query"));
    }
    if msg.truncated() {
        return Err(ProviderError::Malformed("truncated"));
    }
    match msg.response_code() {
        ResponseCode::NoError => {}
        ResponseCode::NXDomain => return Err(ProviderError::NxDomain),
        other => return Err(ProviderError::code(rcode_name(u64::from(u16::from(other))))),
    }
    let [question] = msg.queries() else {
        return Err(ProviderError::Malformed("expected exactly one question"));
    };
    let qname = question.name().to_ascii();
    check_host(hosts, &qname)?;
    let records: Vec<Rr<'_>> = msg
        .answers()
        .iter()
        .filter_map(|r| {
            let data = match r.data() {
                RData::CNAME(target) => RrData::Cname(target.0.to_ascii()),
                other => RrData::Addr(other.ip_addr()?),
            };
            Some(Rr {
                name: Cow::Owned(r.name().to_ascii()),
                ttl: r.ttl(),
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
