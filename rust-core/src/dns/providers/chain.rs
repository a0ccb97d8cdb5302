//! CNAME chain following shared by the DoH parsers.

use super::{same_host, HostAnswer, ProviderError, MAX_CNAME_CHAIN};
use std::borrow::Cow;
use std::net::IpAddr;

/// What one answer record carries.
pub(crate) enum RrData {
    /// An A or AAAA address.
    Addr(IpAddr),
    /// A CNAME target.
    Cname(String),
}

/// One answer record, reduced to what the chain needs.
pub(crate) struct Rr<'a> {
    /// Owner name.
    pub name: Cow<'a, str>,
    /// TTL in seconds.
    pub ttl: u32,
    /// Address or alias target.
    pub data: RrData,
}

/// Follows CNAMEs from `qname` and collects the final name's addresses; the TTL is the
/// smallest among the CNAMEs followed and the address records kept. An answer without
/// addresses is returned empty (the caller maps it to [`ProviderError::NoAddresses`]).
pub(crate) fn follow<'r, 'a: 'r, I>(qname: &str, records: I) -> Result<HostAnswer, ProviderError>
where
    I: IntoIterator<Item = &'r Rr<'a>>,
{
    let records: Vec<&Rr<'a>> = records.into_iter().collect();
    let mut answer = HostAnswer::new(qname, 0);
    let mut current: &str = qname;
    let mut ttl = u32::MAX;
    for _ in 0..=MAX_CNAME_CHAIN {
        let mut found = false;
        for rr in records.iter().filter(|rr| same_host(&rr.name, current)) {
            if let RrData::Addr(ip) = rr.data {
                answer.push(ip);
                ttl = ttl.min(rr.ttl);
                found = true;
            }
        }
        if found {
            answer.ttl_s = ttl;
            return Ok(answer);
        }
        let next = records.iter().find_map(|rr| match &rr.data {
            RrData::Cname(target) if same_host(&rr.name, current) => Some((target, rr.ttl)),
            _ => None,
        });
        match next {
            Some((target, cname_ttl)) => {
                ttl = ttl.min(cname_ttl);
                current = target;
            }
            None => return Ok(answer),
        }
    }
    Err(ProviderError::Malformed("CNAME chain too long or looping"))
}
