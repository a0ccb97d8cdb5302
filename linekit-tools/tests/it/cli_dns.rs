//! `linekit httpdns parse`, `ip classify` and `ip order`, driven in-process.

use crate::support;

use serde_json::{json, Value};

fn cli(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    support::cli::run(args, stdin).into()
}

fn parse_json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or(Value::Null)
}

/// `linekit httpdns parse --format FORMAT ARGS…` reading `stdin`.
fn httpdns_parse(format: &str, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut all = vec!["httpdns", "parse", "--format", format];
    all.extend_from_slice(args);
    cli(&all, stdin)
}

#[test]
fn httpdns_parse_aliyun_lists_rejected_addresses() {
    let body = br#"{"host":"www.example.com","ips":["47.118.227.108","10.0.0.1"],"ipsv6":["240e:960:c00:e:3:0:0:3ef","fe80::1"],"ttl":60,"origin_ttl":600}"#;
    let (code, out, err) = httpdns_parse("aliyun", &["--host", "www.example.com", "-"], body);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        parse_json(&out),
        json!({"hosts":{"www.example.com":{"ipv4":["47.118.227.108"],"ipv6":["240e:960:c00:e:3::3ef"],"ttl":60}},
               "rejected":[{"addr":"10.0.0.1","why":"private"},{"addr":"fe80::1","why":"link_local"}]})
    );
    let (code, out, _) = httpdns_parse("aliyun", &["--allow-private"], body);
    assert_eq!(code, 0);
    assert_eq!(
        parse_json(&out)["hosts"]["www.example.com"]["ipv4"],
        json!(["47.118.227.108", "10.0.0.1"])
    );
}

#[test]
fn httpdns_parse_dnspod_batch_and_doh_json() {
    let (code, out, _) = httpdns_parse(
        "dnspod",
        &["--host", "a.example.com,b.example.com"],
        b"a.example.com.:1.2.3.4,60\nb.example.com.:0-2400::1,30\n",
    );
    assert_eq!(code, 0);
    let v = parse_json(&out);
    assert_eq!(v["hosts"]["a.example.com"]["ttl"], json!(60));
    assert_eq!(v["hosts"]["b.example.com"]["ipv6"], json!(["2400::1"]));
    let body = br#"{"Status":0,"Question":[{"name":"x.example.com.","type":1}],"Answer":[{"name":"x.example.com.","type":1,"TTL":9,"data":"8.8.8.8"}]}"#;
    let (code, out, _) = httpdns_parse("doh-json", &[], body);
    assert_eq!(code, 0);
    assert_eq!(parse_json(&out)["hosts"]["x.example.com"]["ttl"], json!(9));
}

#[test]
fn httpdns_parse_doh_wire_hex_and_raw() {
    // A real-shaped response: id 0, QR|RD|RA, 1 question, 1 answer (example.com A 93.184.216.34, TTL 300).
    let hex = "0000 8180 0001 0001 0000 0000 07 6578616d706c65 03 636f6d 00 0001 0001 c00c 0001 0001 0000012c 0004 5db8d822";
    let (code, out, err) = httpdns_parse(
        "doh-wire",
        &["--hex", "--host", "example.com"],
        hex.as_bytes(),
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        parse_json(&out)["hosts"]["example.com"],
        json!({"ipv4":["93.184.216.34"],"ipv6":[],"ttl":300})
    );
    let raw: Vec<u8> = hex
        .split_whitespace()
        .flat_map(|chunk| {
            (0..chunk.len())
                .step_by(2)
                .map(move |i| u8::from_str_radix(&chunk[i..i + 2], 16).unwrap_or(0))
        })
        .collect();
    let (code, out, _) = httpdns_parse("doh-wire", &[], &raw);
    assert_eq!(code, 0);
    assert_eq!(parse_json(&out)["hosts"]["example.com"]["ttl"], json!(300));
    let (code, _, err) = httpdns_parse("doh-wire", &["--hex"], b"zz");
    assert_eq!(code, 1);
    assert!(err.contains("not hex"));
}

#[test]
fn httpdns_parse_errors_go_to_stderr_without_payload() {
    let (code, out, err) = httpdns_parse(
        "aliyun",
        &["--host", "www.example.com"],
        br#"{"host":"evil.example.net","ips":["6.6.6.6"],"ttl":60}"#,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(parse_json(&err)["kind"], json!("wrong_host"));
    assert!(!err.contains("6.6.6.6") && !err.contains("evil"));
    let (code, _, err) = httpdns_parse("aliyun", &[], &vec![b'{'; 70_000]);
    assert_eq!(
        (code, parse_json(&err)["kind"].clone()),
        (1, json!("too_large"))
    );
    let (code, _, _) = httpdns_parse("bind", &[], b"");
    assert_eq!(code, 1);
    let (code, _, _) = cli(&["httpdns", "parse"], b"");
    assert_eq!(code, 1);
    let (code, _, _) = httpdns_parse("aliyun", &["/nonexistent/file"], b"");
    assert_eq!(code, 1);
}

#[test]
fn ip_classify_prints_json_lines_and_fails_at_the_end_on_invalid_input() {
    let (code, out, err) = cli(
        &[
            "ip",
            "classify",
            "8.8.8.8",
            "not-an-ip",
            "::ffff:192.168.1.1",
            "100.64.0.1",
        ],
        b"",
    );
    assert_eq!(code, 1);
    let lines: Vec<Value> = out.lines().map(parse_json).collect();
    assert_eq!(
        lines,
        vec![
            json!({"addr":"8.8.8.8","class":"global","public":true}),
            json!({"addr":"::ffff:192.168.1.1","class":"ipv4_mapped","mapped":"private","public":false}),
            json!({"addr":"100.64.0.1","class":"shared","public":false}),
        ]
    );
    assert_eq!(parse_json(&err)["addr"], json!("not-an-ip"));
    let (code, _, _) = cli(&["ip", "classify", "::1"], b"");
    assert_eq!(code, 0);
}

#[test]
fn ip_order_interleaves_v6_first() {
    let (code, out, _) = cli(
        &[
            "ip", "order", "1.1.1.1", "2.2.2.2", "2400::1", "3.3.3.3", "2400::2",
        ],
        b"",
    );
    assert_eq!(code, 0);
    assert_eq!(
        parse_json(&out),
        json!(["2400::1", "1.1.1.1", "2400::2", "2.2.2.2", "3.3.3.3"])
    );
    let (code, out, _) = cli(&["ip", "order"], b"");
    assert_eq!((code, parse_json(&out)), (0, json!([])));
    let (code, _, _) = cli(&["ip", "order", "1.1.1.1", "x"], b"");
    assert_eq!(code, 1);
}
