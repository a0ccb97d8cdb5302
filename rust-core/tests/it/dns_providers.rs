//! Provider parsers on real-shaped payloads: every format, good and bad.

use linekit_core::dns::providers::{aliyun, dnspod, doh_json, MAX_BODY_BYTES};
use linekit_core::dns::{HostAnswer, ProviderError, ProviderFormat};
use std::net::{Ipv4Addr, Ipv6Addr};

fn v4(s: &str) -> Ipv4Addr {
    s.parse().unwrap_or_else(|_| panic!("{s}"))
}
fn v6(s: &str) -> Ipv6Addr {
    s.parse().unwrap_or_else(|_| panic!("{s}"))
}
fn one(r: Result<Vec<HostAnswer>, ProviderError>) -> HostAnswer {
    match r {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        other => panic!("expected one answer, got {other:?}"),
    }
}

// ---------- Alibaba /d ----------

#[test]
fn aliyun_single_with_extra_fields_and_uncompressed_v6() {
    let body = br#"{"ipsv6":["240e:960:c00:e:3:0:0:3ef","240e:0960:0c00:000e:0003:0000:0000:03f0"],
        "host":"www.aliyun.com","client_ip":"47.96.236.37",
        "ips":["47.118.227.108","47.118.227.111"],"ttl":60,"origin_ttl":600,"extra":{"x":1}}"#;
    let a = one(aliyun::parse_single(&["www.aliyun.com"], body));
    assert_eq!(a.host, "www.aliyun.com");
    assert_eq!(a.ipv4, vec![v4("47.118.227.108"), v4("47.118.227.111")]);
    assert_eq!(
        a.ipv6,
        vec![v6("240e:960:c00:e:3::3ef"), v6("240e:960:c00:e:3::3f0")]
    );
    assert_eq!(a.ttl_s, 60);
}

#[test]
fn aliyun_single_v4_only_and_case_insensitive_host() {
    let body = br#"{"host":"WWW.Example.com","ips":["1.2.3.4"],"ttl":30}"#;
    let a = one(aliyun::parse_single(&["www.example.com."], body));
    assert_eq!((a.ipv4.len(), a.ipv6.len(), a.ttl_s), (1, 0, 30));
}

#[test]
fn aliyun_single_errors() {
    let h = &["www.example.com"][..];
    let cases: Vec<(&[u8], ProviderError)> = vec![
        (b"", ProviderError::Empty),
        (b"   \n", ProviderError::Empty),
        (
            br#"{"host":"www.example.com","ips":["1.2.3.4"],"ttl":"#,
            ProviderError::Malformed("invalid JSON"),
        ),
        (br#"[1,2]"#, ProviderError::Malformed("not a JSON object")),
        (
            br#"{"host":"evil.example.net","ips":["1.2.3.4"],"ttl":60}"#,
            ProviderError::WrongHost,
        ),
        (
            br#"{"code":"InvalidAccount"}"#,
            ProviderError::ErrorCode("InvalidAccount".into()),
        ),
        (
            br#"{"host":"www.example.com","ips":[],"ipsv6":[],"ttl":60}"#,
            ProviderError::NoAddresses,
        ),
        (
            br#"{"host":"www.example.com","ips":["1.2.3"],"ttl":60}"#,
            ProviderError::Malformed("ips"),
        ),
        (
            br#"{"host":"www.example.com","ips":["2400::1"],"ttl":60}"#,
            ProviderError::Malformed("ips"),
        ),
        (
            br#"{"host":"www.example.com","ips":["1.2.3.4"],"ttl":-5}"#,
            ProviderError::Malformed("ttl is not a non-negative integer"),
        ),
        (
            b"\xff\xfe\x00garbage\x01",
            ProviderError::Malformed("not UTF-8"),
        ),
    ];
    for (body, want) in cases {
        assert_eq!(
            aliyun::parse_single(h, body),
            Err(want),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn error_code_is_sanitized_and_display_never_echoes_payload() {
    let body = br#"{"code":"Bad <script>secret-token-123456789012345678901234567890"}"#;
    let e = aliyun::parse_single(&["h"], body)
        .err()
        .unwrap_or(ProviderError::Empty);
    match &e {
        ProviderError::ErrorCode(c) => assert!(c.len() <= 32 && !c.contains('<')),
        other => panic!("{other:?}"),
    }
    let body = br#"{"host":"www.example.com","ips":["1.2.3.4"],"ttl":"#;
    let e = aliyun::parse_single(&["www.example.com"], body)
        .err()
        .unwrap_or(ProviderError::Empty);
    assert!(!e.to_string().contains("1.2.3.4") && !e.to_string().contains("example"));
}

#[test]
fn oversize_bodies_are_refused_for_every_format() {
    let big = vec![b' '; MAX_BODY_BYTES + 1];
    for f in ProviderFormat::ALL {
        assert_eq!(
            f.parse(&["h"], &big),
            Err(ProviderError::TooLarge(MAX_BODY_BYTES + 1)),
            "{f}"
        );
    }
    // Exactly the limit is still looked at (and found blank).
    let max = vec![b' '; MAX_BODY_BYTES];
    assert_eq!(
        ProviderFormat::Aliyun.parse(&["h"], &max),
        Err(ProviderError::Empty)
    );
}

#[test]
fn binary_garbage_is_an_error_for_every_format() {
    let garbage: Vec<u8> = (0..512u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    for f in ProviderFormat::ALL {
        assert!(f.parse(&["h"], &garbage).is_err(), "{f}");
    }
}

// ---------- Alibaba /resolve batch ----------

#[test]
fn aliyun_batch_dns_wrapper_untyped_items() {
    let body = br#"{"dns":[
        {"host":"a.example.com","client_ip":"1.1.1.1","ips":["1.2.3.4"],"ipsv6":["2400::1"],"ttl":60,"origin_ttl":60},
        {"host":"b.example.com","ips":["5.6.7.8"],"ttl":120}]}"#;
    let v = aliyun::parse_batch(&["a.example.com", "b.example.com"], body).unwrap_or_default();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].host, "a.example.com");
    assert_eq!((v[0].ipv4.len(), v[0].ipv6.len()), (1, 1));
    assert_eq!((v[1].host.as_str(), v[1].ttl_s), ("b.example.com", 120));
}

#[test]
fn aliyun_batch_results_wrapper_typed_items_merge_per_host() {
    let body = br#"{"results":[
        {"host":"a.example.com","type":1,"ips":["1.2.3.4","1.2.3.5"],"ttl":300},
        {"host":"a.example.com","type":28,"ips":["2400:3200::1"],"ttl":60},
        {"host":"a.example.com","type":5,"ips":["alias.example.net"],"ttl":60},
        {"host":"b.example.com","type":28,"ips":[],"ttl":60}]}"#;
    let v = aliyun::parse_batch(&["a.example.com", "b.example.com"], body).unwrap_or_default();
    assert_eq!(v.len(), 1, "host with no address dropped");
    assert_eq!(v[0].ipv4, vec![v4("1.2.3.4"), v4("1.2.3.5")]);
    assert_eq!(v[0].ipv6, vec![v6("2400:3200::1")]);
    assert_eq!(v[0].ttl_s, 60, "smallest TTL of merged items");
}

#[test]
fn aliyun_batch_errors() {
    let hosts = &["a.example.com"][..];
    assert_eq!(
        aliyun::parse_batch(
            hosts,
            br#"{"dns":[{"host":"x.example.org","ips":["1.2.3.4"],"ttl":1}]}"#
        ),
        Err(ProviderError::WrongHost)
    );
    assert_eq!(
        aliyun::parse_batch(hosts, br#"{"dns":[]}"#),
        Err(ProviderError::NoAddresses)
    );
    assert_eq!(
        aliyun::parse_batch(hosts, br#"{"dns":{"host":"a"}}"#),
        Err(ProviderError::Malformed("dns/results is not an array"))
    );
    assert_eq!(
        aliyun::parse_batch(hosts, br#"{"code":"TooManyHosts"}"#),
        Err(ProviderError::ErrorCode("TooManyHosts".into()))
    );
    assert_eq!(
        aliyun::parse_batch(
            hosts,
            br#"{"dns":[{"host":"a.example.com","type":28,"ips":["1.2.3.4"],"ttl":1}]}"#
        ),
        Err(ProviderError::Malformed("ips"))
    );
}

// ---------- DNSPod ----------

#[test]
fn dnspod_forms() {
    let h = &["www.qq.com"][..];
    let a = one(dnspod::parse(h, b"123.151.137.18;183.3.226.35,120\n"));
    assert_eq!((a.ipv4.len(), a.ttl_s), (2, 120));

    let a = one(dnspod::parse(h, b"123.151.137.18,60|61.135.169.121"));
    assert_eq!((a.ipv4, a.ttl_s), (vec![v4("123.151.137.18")], 60));

    let a = one(dnspod::parse(
        h,
        b"1.2.3.4;1.2.3.5-240e:e1:a800:120::36;240e:0e1:a800:0120:0:0:0:37,300",
    ));
    assert_eq!(a.ipv4.len(), 2);
    assert_eq!(
        a.ipv6,
        vec![v6("240e:e1:a800:120::36"), v6("240e:e1:a800:120::37")]
    );
    assert_eq!(a.ttl_s, 300);

    let a = one(dnspod::parse(h, b"0-240e::1,120"));
    assert_eq!((a.ipv4.len(), a.ipv6.len()), (0, 1));
    let a = one(dnspod::parse(h, b"1.2.3.4-0,120"));
    assert_eq!((a.ipv4.len(), a.ipv6.len()), (1, 0));

    let a = one(dnspod::parse(h, b"1.2.3.4,300-240e::1,60"));
    assert_eq!(a.ttl_s, 60, "smallest TTL of both sides");

    let a = one(dnspod::parse(h, b"www.qq.com.:1.2.3.4,90"));
    assert_eq!(a.ttl_s, 90);

    let a = one(dnspod::parse(h, b"1.2.3.4"));
    assert_eq!(a.ttl_s, 0, "no ttl=1: TTL not stated");
}

#[test]
fn dnspod_batch_lines() {
    let body = b"a.example.com.:1.2.3.4;1.2.3.5,120\nb.example.com.:0\r\nc.example.com.:2400::1,60|9.9.9.9\n";
    let v = dnspod::parse(&["a.example.com", "b.example.com", "c.example.com"], body)
        .unwrap_or_default();
    assert_eq!(v.len(), 2);
    assert_eq!(
        (v[0].host.as_str(), v[0].ipv4.len(), v[0].ttl_s),
        ("a.example.com", 2, 120)
    );
    assert_eq!(
        (v[1].host.as_str(), v[1].ipv6.len(), v[1].ttl_s),
        ("c.example.com", 1, 60)
    );
}

#[test]
fn dnspod_errors() {
    let h = &["www.qq.com"][..];
    assert_eq!(dnspod::parse(h, b"0"), Err(ProviderError::NoAddresses));
    assert_eq!(
        dnspod::parse(h, b"0-0,120"),
        Err(ProviderError::NoAddresses)
    );
    assert_eq!(dnspod::parse(h, b""), Err(ProviderError::Empty));
    assert_eq!(
        dnspod::parse(h, b"1.2.3.4,abc"),
        Err(ProviderError::Malformed("ttl"))
    );
    assert_eq!(
        dnspod::parse(h, b"<html>error</html>"),
        Err(ProviderError::Malformed("address"))
    );
    assert_eq!(
        dnspod::parse(h, b"1.2.3.4-5.6.7.8-9.9.9.9,1"),
        Err(ProviderError::Malformed("more than two '-' parts"))
    );
    assert_eq!(
        dnspod::parse(h, b"evil.example.net.:1.2.3.4,60"),
        Err(ProviderError::WrongHost)
    );
    assert_eq!(
        dnspod::parse(&["a.x", "b.x"], b"1.2.3.4,60"),
        Err(ProviderError::Malformed("batch line without host"))
    );
    assert_eq!(
        dnspod::parse(&[], b"1.2.3.4,60"),
        Err(ProviderError::Malformed("line names no host"))
    );
}

// ---------- JSON DoH ----------

#[test]
fn doh_json_follows_cname_chain_and_takes_smallest_ttl() {
    let body = br#"{"Status":0,"TC":false,"RD":true,"RA":true,"AD":false,"CD":false,
      "Question":[{"name":"www.example.com.","type":1}],
      "Answer":[
        {"name":"www.example.com.","type":5,"TTL":300,"data":"www.example.com.cdn.net."},
        {"name":"www.example.com.cdn.net.","type":5,"TTL":45,"data":"edge.cdn.net."},
        {"name":"edge.cdn.net.","type":1,"TTL":120,"data":"93.184.216.34"},
        {"name":"edge.cdn.net.","type":1,"TTL":90,"data":"93.184.216.35"},
        {"name":"unrelated.example.","type":1,"TTL":5,"data":"6.6.6.6"},
        {"name":"edge.cdn.net.","type":46,"TTL":1,"data":"sig"}]}"#;
    let a = one(doh_json::parse(&["www.example.com"], body));
    assert_eq!(a.host, "www.example.com");
    assert_eq!(a.ipv4, vec![v4("93.184.216.34"), v4("93.184.216.35")]);
    assert_eq!(a.ttl_s, 45);
}

#[test]
fn doh_json_aaaa_and_errors() {
    let h = &["www.example.com"][..];
    let body = br#"{"Status":0,"Question":[{"name":"www.example.com","type":28}],
        "Answer":[{"name":"www.example.com","type":28,"TTL":60,"data":"2606:2800:0220:0001:0248:1893:25c8:1946"}]}"#;
    assert_eq!(
        one(doh_json::parse(h, body)).ipv6,
        vec![v6("2606:2800:220:1:248:1893:25c8:1946")]
    );

    let nx = br#"{"Status":3,"Question":[{"name":"www.example.com.","type":1}]}"#;
    assert_eq!(doh_json::parse(h, nx), Err(ProviderError::NxDomain));
    let servfail = br#"{"Status":2,"Question":[{"name":"www.example.com.","type":1}]}"#;
    assert_eq!(
        doh_json::parse(h, servfail),
        Err(ProviderError::ErrorCode("SERVFAIL".into()))
    );
    let nodata = br#"{"Status":0,"Question":[{"name":"www.example.com.","type":1}]}"#;
    assert_eq!(doh_json::parse(h, nodata), Err(ProviderError::NoAddresses));
    let wrong = br#"{"Status":0,"Question":[{"name":"evil.example.net.","type":1}],
        "Answer":[{"name":"evil.example.net.","type":1,"TTL":60,"data":"1.2.3.4"}]}"#;
    assert_eq!(doh_json::parse(h, wrong), Err(ProviderError::WrongHost));
    let dangling = br#"{"Status":0,"Question":[{"name":"www.example.com.","type":1}],
        "Answer":[{"name":"www.example.com.","type":5,"TTL":60,"data":"x.cdn."},
                  {"name":"y.cdn.","type":1,"TTL":60,"data":"1.2.3.4"}]}"#;
    assert_eq!(
        doh_json::parse(h, dangling),
        Err(ProviderError::NoAddresses)
    );
    let looping = br#"{"Status":0,"Question":[{"name":"www.example.com.","type":1}],
        "Answer":[{"name":"www.example.com.","type":5,"TTL":60,"data":"b."},
                  {"name":"b.","type":5,"TTL":60,"data":"www.example.com."}]}"#;
    assert!(matches!(
        doh_json::parse(h, looping),
        Err(ProviderError::Malformed(_))
    ));
    let bad_a =
        br#"{"Status":0,"Answer":[{"name":"www.example.com","type":1,"TTL":60,"data":"::1"}]}"#;
    assert_eq!(
        doh_json::parse(h, bad_a),
        Err(ProviderError::Malformed("A data"))
    );
    assert_eq!(
        doh_json::parse(h, br#"{"Status":0,"TC":true}"#),
        Err(ProviderError::Malformed("truncated"))
    );
    assert_eq!(
        doh_json::parse(h, br#"{"Answer":[]}"#),
        Err(ProviderError::Malformed("missing Status"))
    );
}

// ---------- RFC 8484 wire ----------

#[cfg(feature = "doh-wire")]
mod wire {
    use super::*;
    use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
    use hickory_proto::rr::rdata::{A, AAAA, CNAME};
    use hickory_proto::rr::{Name, RData, Record, RecordType as HType};
    use linekit_core::dns::providers::doh_wire::{self, build_query, RecordType};

    fn name(s: &str) -> Name {
        Name::from_ascii(s).unwrap_or_else(|_| panic!("{s}"))
    }

    fn response(qname: &str, qtype: HType, answers: Vec<Record>, rcode: ResponseCode) -> Vec<u8> {
        let mut m = Message::new();
        m.set_id(0)
            .set_message_type(MessageType::Response)
            .set_op_code(OpCode::Query)
            .set_recursion_desired(true)
            .set_recursion_available(true)
            .set_response_code(rcode)
            .add_query(Query::query(name(qname), qtype));
        for r in answers {
            m.add_answer(r);
        }
        m.to_vec().unwrap_or_default()
    }

    #[test]
    fn wire_query_is_a_recursive_query_with_id_zero() {
        let q = build_query("www.example.com", RecordType::Aaaa).unwrap_or_default();
        let m = Message::from_vec(&q).unwrap_or_else(|_| panic!("decodes"));
        assert_eq!(m.id(), 0);
        assert_eq!(m.message_type(), MessageType::Query);
        assert!(m.recursion_desired());
        assert_eq!(m.queries().len(), 1);
        assert_eq!(m.queries()[0].query_type(), HType::AAAA);
        assert_eq!(m.queries()[0].name().to_ascii(), "www.example.com.");
        assert!(build_query("", RecordType::A).is_err());
        assert!(build_query("bad..name", RecordType::A).is_err());
    }

    #[test]
    fn wire_answer_cname_chain_smallest_ttl() {
        let body = response(
            "www.example.com.",
            HType::A,
            vec![
                Record::from_rdata(
                    name("www.example.com."),
                    300,
                    RData::CNAME(CNAME(name("edge.cdn.net."))),
                ),
                Record::from_rdata(
                    name("edge.cdn.net."),
                    60,
                    RData::A(A::new(93, 184, 216, 34)),
                ),
                Record::from_rdata(
                    name("edge.cdn.net."),
                    30,
                    RData::A(A::new(93, 184, 216, 35)),
                ),
                Record::from_rdata(
                    name("edge.cdn.net."),
                    20,
                    RData::AAAA(AAAA::from(v6("2606:2800::1"))),
                ),
            ],
            ResponseCode::NoError,
        );
        let a = one(doh_wire::parse(&["WWW.example.com"], &body));
        assert_eq!(a.host, "www.example.com");
        assert_eq!(a.ipv4.len(), 2);
        assert_eq!(a.ipv6, vec![v6("2606:2800::1")]);
        assert_eq!(a.ttl_s, 20);
        assert_eq!(
            ProviderFormat::DohWire.parse(&[], &body).map(|v| v.len()),
            Ok(1)
        );
    }

    #[test]
    fn wire_answer_errors() {
        let h = &["www.example.com"][..];
        let a_rec =
            || Record::from_rdata(name("www.example.com."), 60, RData::A(A::new(1, 2, 3, 4)));
        // A well-formed answer of one A record, for the tests that break one part of it.
        let good = || {
            response(
                "www.example.com.",
                HType::A,
                vec![a_rec()],
                ResponseCode::NoError,
            )
        };
        assert_eq!(
            doh_wire::parse(
                h,
                &response("www.example.com.", HType::A, vec![], ResponseCode::NXDomain)
            ),
            Err(ProviderError::NxDomain)
        );
        assert_eq!(
            doh_wire::parse(
                h,
                &response("www.example.com.", HType::A, vec![], ResponseCode::ServFail)
            ),
            Err(ProviderError::ErrorCode("SERVFAIL".into()))
        );
        assert_eq!(
            doh_wire::parse(
                h,
                &response("www.example.com.", HType::A, vec![], ResponseCode::NoError)
            ),
            Err(ProviderError::NoAddresses)
        );
        assert_eq!(
            doh_wire::parse(
                h,
                &response(
                    "evil.example.net.",
                    HType::A,
                    vec![a_rec()],
                    ResponseCode::NoError
                )
            ),
            Err(ProviderError::WrongHost)
        );
        // A query echoed back (QR bit clear) is not an answer.
        let q = build_query("www.example.com", RecordType::A).unwrap_or_default();
        assert_eq!(
            doh_wire::parse(h, &q),
            Err(ProviderError::Malformed("not a response"))
        );
        // Wrong ID.
        let mut body = good();
        body[1] = 7;
        assert_eq!(
            doh_wire::parse(h, &body),
            Err(ProviderError::Malformed("unexpected message ID"))
        );
        // Truncated message bytes.
        let body = good();
        assert_eq!(
            doh_wire::parse(h, &body[..body.len() - 3]),
            Err(ProviderError::Malformed("DNS message"))
        );
        // A section the answer does not use still has to frame: an additional record that
        // the header counts but the message does not hold refuses the whole message.
        let mut body = good();
        assert!(doh_wire::parse(h, &body).is_ok());
        body[11] = body[11].wrapping_add(1);
        assert_eq!(
            doh_wire::parse(h, &body),
            Err(ProviderError::Malformed("DNS message"))
        );
        assert_eq!(doh_wire::parse(h, b""), Err(ProviderError::Empty));
    }
}

#[test]
fn provider_format_names_round_trip() {
    for f in ProviderFormat::ALL {
        assert_eq!(f.as_str().parse::<ProviderFormat>(), Ok(f));
    }
    assert!("bind".parse::<ProviderFormat>().is_err());
}

#[cfg(not(feature = "doh-wire"))]
#[test]
fn doh_wire_without_the_feature_is_unsupported() {
    assert_eq!(
        ProviderFormat::DohWire.parse(&["h"], b"\x00\x00\x81\x80"),
        Err(ProviderError::Unsupported)
    );
}
