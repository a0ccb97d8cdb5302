//! `linekit httpdns request` prints the signed or encrypted URL the engine would send,
//! redacted unless `--reveal` asks for it exactly; `linekit httpdns parse --config F
//! --provider ID` decrypts before parsing.

use crate::support;

use linekit_core::dns::providers::auth::{des_encrypt_hex, des_key};
use serde_json::{json, Value};

/// The exit code, stdout as JSON (null when it is not one document) and stderr.
fn cli(args: &[&str], stdin: &[u8]) -> (i32, Value, String) {
    let o = support::cli::run(args, stdin);
    let out = serde_json::from_str(o.out.trim()).unwrap_or(Value::Null);
    (o.code, out, o.err)
}

/// `linekit httpdns CMD --config CONFIG --provider PROVIDER --host HOST EXTRA…`.
fn httpdns(
    cmd: &str,
    config: &str,
    provider: &str,
    host: &str,
    extra: &[&str],
    stdin: &[u8],
) -> (i32, Value, String) {
    let mut args = vec![
        "httpdns",
        cmd,
        "--config",
        config,
        "--provider",
        provider,
        "--host",
        host,
    ];
    args.extend_from_slice(extra);
    cli(&args, stdin)
}

fn config_file(dir: &std::path::Path) -> String {
    let c = json!({
        "version": 1,
        // The DNSPod DES provider below answers over plain HTTP.
        "allow_cleartext": true,
        "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}},
        "httpdns": {"providers": [
            {"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/139450/d",
             "auth": {"kind": "aliyun-sign", "secret": "IAmASecret", "validity_s": 600}},
            {"id": "alib", "format": "aliyun-batch", "url": "https://203.107.1.1/139450/resolve",
             "auth": {"kind": "aliyun-sign", "secret": "IAmASecret", "validity_s": 600}},
            {"id": "tx", "format": "dnspod", "url": "http://119.29.29.98/d",
             "auth": {"kind": "dnspod-des", "id": "1234", "key": "dnspodpass"}}
        ], "hosts": ["*.aliyun.com", "*.taobao.com", "*.dnspod.cn"]}
    });
    let path = dir.join("config.json");
    std::fs::write(&path, c.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("linekit-cli-auth-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn request_prints_the_signed_urls_at_the_given_time() {
    let dir = tempdir("req");
    let f = config_file(&dir);
    let now = "1534315800"; // + validity 600 = the published T
    let (code, doc, err) = httpdns(
        "request",
        &f,
        "ali",
        "www.aliyun.com",
        &["--now-s", now, "--reveal"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        doc,
        json!({"method": "GET", "url": "https://203.107.1.1/139450/sign_d?host=www.aliyun.com&t=1534316400&s=60c71e98b6d7fcbb366243e224eab457"})
    );
    let (_, doc, _) = httpdns(
        "request",
        &f,
        "alib",
        "www.aliyun.com,www.taobao.com",
        &["--reveal", "--now-s", now],
        b"",
    );
    assert_eq!(
        doc["url"],
        "https://203.107.1.1/139450/sign_resolve?host=www.aliyun.com,www.taobao.com&t=1534316400&s=12a3f6b1b14a46ca813ca6439beb59a4"
    );
    let exact = "http://119.29.29.98/d?dn=87ae992c1321f299da3c0210a9900ae7&id=1234";
    let (_, doc, _) = httpdns("request", &f, "tx", "www.dnspod.cn", &["--reveal"], b"");
    assert_eq!(doc["url"], exact);
    // Without --reveal: the origin and path, the query as its digest.
    let (code, doc, _) = httpdns("request", &f, "tx", "www.dnspod.cn", &[], b"");
    assert_eq!(code, 0);
    assert_eq!(doc["url"], linekit_core::trace::redact_url(exact));
    assert!(!doc.to_string().contains("1234"), "{doc}");
    let (code, _, err) = httpdns("request", &f, "nope", "a.example.com", &[], b"");
    assert_eq!(code, 1);
    assert!(err.contains("no httpdns provider"), "{err}");
    assert!(!err.contains("IAmASecret") && !err.contains("dnspodpass"));
}

#[test]
fn parse_with_a_provider_decrypts_first_and_reports_bad_input_by_kind() {
    let dir = tempdir("parse");
    let f = config_file(&dir);
    let key = des_key("dnspodpass").unwrap();
    let body = des_encrypt_hex(b"121.12.53.35;106.227.19.35,120", &key);
    let (code, doc, err) = httpdns("parse", &f, "tx", "www.dnspod.cn", &[], body.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        doc["hosts"]["www.dnspod.cn"]["ipv4"],
        json!(["121.12.53.35", "106.227.19.35"])
    );
    assert_eq!(doc["hosts"]["www.dnspod.cn"]["ttl"], 120);
    let (code, _, err) = httpdns(
        "parse",
        &f,
        "tx",
        "www.dnspod.cn",
        &[],
        &body.as_bytes()[..body.len() - 1],
    );
    assert_eq!(code, 1);
    let e: Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(e["kind"], "bad_hex");
}
