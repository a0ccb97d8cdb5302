//! What every provider decoder bounds, whatever the answer says: TTLs of 2^31 seconds or
//! more read as 0 (RFC 2181 §8), at most `MAX_ADDRS_PER_HOST` addresses per host, numeric
//! host names that are not dotted quads refused, and an RFC 8484 body that is exactly one
//! message.

use linekit_core::dns::providers::{aliyun, dnspod, doh_json, stated_ttl, MAX_ADDRS_PER_HOST};
use linekit_core::dns::{HostAnswer, ProviderError, ProviderFormat};

const H: &[&str] = &["www.example.com"];

fn one(r: Result<Vec<HostAnswer>, ProviderError>) -> HostAnswer {
    match r {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        other => panic!("expected one answer, got {other:?}"),
    }
}

/// `n` distinct IPv4 addresses `10.x.y.z` as strings.
fn addrs(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("10.{}.{}.{}", i / 65_536, (i / 256) % 256, i % 256))
        .collect()
}

#[test]
fn stated_ttl_reads_the_top_bit_as_zero() {
    assert_eq!(stated_ttl(0), 0);
    assert_eq!(stated_ttl(60), 60);
    assert_eq!(stated_ttl((1 << 31) - 1), (1 << 31) - 1);
    assert_eq!(stated_ttl(1 << 31), 0);
    assert_eq!(stated_ttl(u64::from(u32::MAX)), 0);
    assert_eq!(stated_ttl(u64::MAX), 0);
}

#[test]
fn a_ttl_of_2_pow_31_or_more_is_zero_in_every_text_decoder() {
    for ttl in [1u64 << 31, u64::from(u32::MAX), 1 << 40] {
        let ali = format!(r#"{{"host":"www.example.com","ips":["1.2.3.4"],"ttl":{ttl}}}"#);
        assert_eq!(
            one(aliyun::parse_single(H, ali.as_bytes())).ttl_s,
            0,
            "{ttl}"
        );
        let batch = format!(r#"{{"dns":[{ali}]}}"#);
        assert_eq!(
            one(aliyun::parse_batch(H, batch.as_bytes())).ttl_s,
            0,
            "{ttl}"
        );
        let pod = format!("1.2.3.4,{ttl}");
        assert_eq!(one(dnspod::parse(H, pod.as_bytes())).ttl_s, 0, "{ttl}");
        let doh = format!(
            r#"{{"Status":0,"Answer":[{{"name":"www.example.com","type":1,"TTL":{ttl},"data":"1.2.3.4"}}]}}"#
        );
        assert_eq!(one(doh_json::parse(H, doh.as_bytes())).ttl_s, 0, "{ttl}");
    }
    // Just below the bit, a TTL is kept as stated (the cache clamps it to max_ttl_s).
    let kept = format!("1.2.3.4,{}", (1u64 << 31) - 1);
    assert_eq!(one(dnspod::parse(H, kept.as_bytes())).ttl_s, (1 << 31) - 1);
}

#[test]
fn every_decoder_keeps_at_most_the_cap_of_addresses_per_host() {
    let many = addrs(MAX_ADDRS_PER_HOST * 3);
    let list = serde_json::to_string(&many).unwrap();
    let ali = format!(r#"{{"host":"www.example.com","ips":{list},"ttl":60}}"#);
    let pod = format!("{},60", many.join(";"));
    let records: Vec<String> = many
        .iter()
        .map(|a| format!(r#"{{"name":"www.example.com","type":1,"TTL":60,"data":"{a}"}}"#))
        .collect();
    let doh = format!(r#"{{"Status":0,"Answer":[{}]}}"#, records.join(","));
    for (format, body) in [
        (ProviderFormat::Aliyun, ali.as_bytes()),
        (ProviderFormat::Dnspod, pod.as_bytes()),
        (ProviderFormat::DohJson, doh.as_bytes()),
    ] {
        let a = one(format.parse(H, body));
        assert_eq!(a.ipv4.len(), MAX_ADDRS_PER_HOST, "{format}");
        // The first ones, in provider order.
        assert_eq!(a.ipv4[0].to_string(), many[0], "{format}");
        assert_eq!(
            a.ipv4[MAX_ADDRS_PER_HOST - 1].to_string(),
            many[MAX_ADDRS_PER_HOST - 1],
            "{format}"
        );
    }
    // Both families count toward the one cap.
    let mut a = HostAnswer::new("www.example.com", 60);
    for ip in many.iter().take(MAX_ADDRS_PER_HOST - 1) {
        a.push(ip.parse().unwrap());
    }
    a.push("2001:db8::1".parse().unwrap());
    a.push("2001:db8::2".parse().unwrap());
    assert_eq!(a.addrs().count(), MAX_ADDRS_PER_HOST);
}

#[test]
fn numeric_host_names_in_answers_are_refused() {
    // With no queried host the body names its host: a numeric form that is not a dotted
    // quad is one resolvers read as an address (2130706433 is 127.0.0.1).
    for name in ["2130706433", "127.1", "0x7f000001", "0177.0.0.1", "a.0x7f"] {
        let body = format!(r#"{{"host":"{name}","ips":["1.2.3.4"],"ttl":60}}"#);
        assert_eq!(
            aliyun::parse_single(&[], body.as_bytes()),
            Err(ProviderError::Malformed("numeric host name")),
            "{name}"
        );
    }
    let quad = r#"{"host":"192.0.2.1","ips":["1.2.3.4"],"ttl":60}"#;
    assert!(aliyun::parse_single(&[], quad.as_bytes()).is_ok());
}

#[cfg(feature = "doh-wire")]
mod wire {
    use super::*;
    use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
    use hickory_proto::rr::rdata::A;
    use hickory_proto::rr::{Name, RData, Record, RecordType};
    use linekit_core::dns::providers::doh_wire;

    fn response(records: Vec<Record>) -> Vec<u8> {
        let mut m = Message::new();
        m.set_id(0)
            .set_message_type(MessageType::Response)
            .set_op_code(OpCode::Query)
            .set_recursion_desired(true)
            .set_response_code(ResponseCode::NoError)
            .add_query(Query::query(
                Name::from_ascii("www.example.com.").unwrap(),
                RecordType::A,
            ));
        for r in records {
            m.add_answer(r);
        }
        m.to_vec().unwrap()
    }

    fn a(ttl: u32, ip: [u8; 4]) -> Record {
        Record::from_rdata(
            Name::from_ascii("www.example.com.").unwrap(),
            ttl,
            RData::A(A::new(ip[0], ip[1], ip[2], ip[3])),
        )
    }

    #[test]
    fn a_wire_ttl_of_2_pow_31_or_more_is_zero() {
        for ttl in [1u32 << 31, u32::MAX] {
            let body = response(vec![a(ttl, [1, 2, 3, 4])]);
            assert_eq!(one(doh_wire::parse(H, &body)).ttl_s, 0, "{ttl}");
        }
        let body = response(vec![a(600, [1, 2, 3, 4])]);
        assert_eq!(one(doh_wire::parse(H, &body)).ttl_s, 600);
    }

    #[test]
    fn bytes_after_the_message_refuse_it() {
        let good = response(vec![a(60, [1, 2, 3, 4])]);
        assert!(doh_wire::parse(H, &good).is_ok());
        for tail in [&[0u8][..], b"\x00\x00\x00\x00", b"<html>"] {
            let mut body = good.clone();
            body.extend_from_slice(tail);
            assert_eq!(
                doh_wire::parse(H, &body),
                Err(ProviderError::Malformed(
                    "trailing bytes after the DNS message"
                )),
                "{tail:?}"
            );
        }
    }

    #[test]
    fn a_wire_answer_keeps_at_most_the_cap_of_addresses() {
        let records = (0..MAX_ADDRS_PER_HOST * 2)
            .map(|i| a(60, [10, 0, (i / 256) as u8, (i % 256) as u8]))
            .collect();
        let answer = one(doh_wire::parse(H, &response(records)));
        assert_eq!(answer.ipv4.len(), MAX_ADDRS_PER_HOST);
    }
}
