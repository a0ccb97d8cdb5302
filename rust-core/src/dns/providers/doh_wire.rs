//! RFC 8484 DNS-over-HTTPS wire format (`application/dns-message`).
//!
//! [`build_query`] encodes a recursive query with ID 0 (RFC 8484 §4.1 recommends 0 so
//! HTTP caches can share answers). [`parse`] decodes the answer with NLnet Labs' `domain`
//! crate and checks that it is a response (QR bit) to a standard query with ID 0, not
//! truncated, whose single question names the queried host, that every record of every
//! section is well framed and that nothing follows the message; RCODE NXDOMAIN is [`ProviderError::NxDomain`], other non-zero
//! RCODEs are [`ProviderError::ErrorCode`]. Addresses come from following the CNAME chain
//! from the question name, and the TTL is the smallest TTL among the records used (see
//! `chain`).
//!
//! `domain` parses lazily: a message is read in place, and only the record types asked for
//! (A, AAAA, CNAME) have their data decoded, so the library carries the code of those three
//! types and not of every record type DNS defines. That makes it the smallest of the DNS
//! message crates measured for the shipped `.so` (hickory-proto, simple-dns and `domain`;
//! see BENCHMARKS.md), which lets the wire format ship in the default build. The tests
//! encode their answers with hickory-proto, so two independent implementations agree on
//! every message they check.

use super::chain::{follow, Rr, RrData};
use super::doh_json::rcode_name;
use super::{check_host, check_size, stated_ttl, HostAnswer, ProviderError};
use domain::base::iana::{Class, Opcode, Rcode, Rtype};
use domain::base::{Message, MessageBuilder, Name, ParsedName, ParsedRecord, RecordSection};
use domain::rdata::{Aaaa, Cname, A};
use std::borrow::Cow;
use std::net::IpAddr;
use std::str::FromStr;

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
    let name =
        Name::<Vec<u8>>::from_str(host).map_err(|_| ProviderError::Malformed("host name"))?;
    let qtype = match rtype {
        RecordType::A => Rtype::A,
        RecordType::Aaaa => Rtype::AAAA,
    };
    let mut msg = MessageBuilder::new_vec();
    msg.header_mut().set_id(QUERY_ID);
    msg.header_mut().set_rd(true);
    let mut question = msg.question();
    question
        .push((&name, qtype))
        .map_err(|_| ProviderError::Malformed("query encoding"))?;
    Ok(question.finish())
}

/// Parses a wire-format answer for one queried host.
pub fn parse(hosts: &[&str], body: &[u8]) -> Result<Vec<HostAnswer>, ProviderError> {
    check_size(body)?;
    if body.is_empty() {
        return Err(ProviderError::Empty);
    }
    let msg = Message::from_octets(body).map_err(|_| ProviderError::Malformed("DNS message"))?;
    let header = msg.header();
    if !header.qr() {
        return Err(ProviderError::Malformed("not a response"));
    }
    if header.id() != QUERY_ID {
        return Err(ProviderError::Malformed("unexpected message ID"));
    }
    if header.opcode() != Opcode::QUERY {
        return Err(ProviderError::Malformed("not a standard query"));
    }
    if header.tc() {
        return Err(ProviderError::Malformed("truncated"));
    }
    match header.rcode() {
        Rcode::NOERROR => {}
        Rcode::NXDOMAIN => return Err(ProviderError::NxDomain),
        other => return Err(ProviderError::code(rcode_name(u64::from(other.to_int())))),
    }
    let question = msg
        .sole_question()
        .map_err(|_| ProviderError::Malformed("expected exactly one question"))?;
    let qname = question.qname().to_string();
    check_host(hosts, &qname)?;
    let malformed = |_| ProviderError::Malformed("DNS message");
    let answers = msg.answer().map_err(malformed)?;
    let records = answer_records(answers).ok_or(ProviderError::Malformed("DNS message"))?;
    // The other sections are not used, but a message whose records do not frame is refused
    // whole, as a truncated or corrupt one should be, and so is one followed by more bytes:
    // the body must be exactly one message.
    let mut section = answers;
    loop {
        let mut records = section;
        if records.by_ref().any(|r| r.is_err()) {
            return Err(ProviderError::Malformed("DNS message"));
        }
        match section.next_section().map_err(malformed)? {
            Some(next) => section = next,
            None if records.pos() == body.len() => break,
            None => return Err(ProviderError::Malformed("trailing bytes after the DNS message")),
        }
    }
    let answer = follow(&qname, records.iter())?;
    if answer.is_empty() {
        return Err(ProviderError::NoAddresses);
    }
    Ok(vec![answer])
}

/// The IN-class A, AAAA and CNAME records of the answer section, or `None` if a record of
/// the section does not parse.
fn answer_records(section: RecordSection<'_, &[u8]>) -> Option<Vec<Rr<'static>>> {
    let mut records = Vec::new();
    for record in section {
        let record = record.ok()?;
        if record.class() != Class::IN {
            continue;
        }
        let data = match record.rtype() {
            Rtype::A => RrData::Addr(IpAddr::V4(data::<A>(&record)?.addr())),
            Rtype::AAAA => RrData::Addr(IpAddr::V6(data::<Aaaa>(&record)?.addr())),
            Rtype::CNAME => RrData::Cname(
                data::<Cname<ParsedName<&[u8]>>>(&record)?
                    .cname()
                    .to_string(),
            ),
            _ => continue,
        };
        records.push(Rr {
            name: Cow::Owned(record.owner().to_string()),
            ttl: stated_ttl(u64::from(record.ttl().as_secs())),
            data,
        });
    }
    Some(records)
}

/// The data of `record` decoded as `D`, or `None` if it does not parse.
fn data<'a, D>(record: &ParsedRecord<'a, &'a [u8]>) -> Option<D>
where
    D: domain::base::rdata::ParseRecordData<'a, &'a [u8]>,
{
    Some(record.to_record::<D>().ok()??.into_data())
}
