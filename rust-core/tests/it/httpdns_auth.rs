//! Provider authentication: the vendors' published vectors, the exact request URLs, the
//! decrypting parsers on good and bad input, and DNSPod batch lines with and without the
//! trailing dot.

use linekit_core::config::provider_auth::{ProviderAuth, Secret};
use linekit_core::dns::providers::auth::{
    aes_decrypt_hex, aes_encrypt_hex, aes_key, aliyun_signature, decode_answer, des_decrypt_hex,
    des_encrypt_hex, des_key, hex,
};
use linekit_core::dns::providers::dnspod;
use linekit_core::dns::refresh::{provider_query, Stage};
use linekit_core::dns::{ProviderError, ProviderFormat};
use std::sync::Arc;

const IV: [u8; 16] = *b"0123456789abcdef";

fn hosts(list: &[&str]) -> Vec<Arc<str>> {
    list.iter().map(|h| Arc::from(*h)).collect()
}

fn des(key: &str) -> ProviderAuth {
    ProviderAuth::DnspodDes {
        id: "1234".into(),
        key: Secret::new(key),
    }
}

fn aes(key: &str) -> ProviderAuth {
    ProviderAuth::DnspodAes {
        id: "1234".into(),
        key: Secret::new(key),
    }
}

// ---------- published vectors ----------

#[test]
fn aliyun_single_signature_matches_the_published_vector() {
    assert_eq!(
        aliyun_signature("www.aliyun.com", "IAmASecret", 1_534_316_400),
        "60c71e98b6d7fcbb366243e224eab457"
    );
}

#[test]
fn aliyun_batch_signature_matches_the_published_vector() {
    assert_eq!(
        aliyun_signature("www.aliyun.com,www.taobao.com", "IAmASecret", 1_534_316_400),
        "12a3f6b1b14a46ca813ca6439beb59a4"
    );
}

#[test]
fn dnspod_des_matches_the_published_vector() {
    let key = des_key("dnspodpass").unwrap();
    assert_eq!(
        des_encrypt_hex(b"www.dnspod.cn", &key),
        "87ae992c1321f299da3c0210a9900ae7"
    );
    let back = des_decrypt_hex(b"87ae992c1321f299da3c0210a9900ae7", &key).unwrap();
    assert_eq!(back, b"www.dnspod.cn");
}

// ---------- request URLs ----------

#[test]
fn aliyun_sign_urls_single_and_batch() {
    let auth = ProviderAuth::AliyunSign {
        secret: Secret::new("IAmASecret"),
        validity_s: 600,
    };
    let wall_ms = (1_534_316_400 - 600) * 1_000;
    let url = |format, base: &str, names: &[&str]| {
        provider_query(
            format,
            base,
            Some(&auth),
            &hosts(names),
            Stage::Both,
            wall_ms,
            &IV,
        )
        .unwrap()
        .url
    };
    assert_eq!(
        url(
            ProviderFormat::Aliyun,
            "https://203.107.1.1/139450/d",
            &["www.aliyun.com"]
        ),
        "https://203.107.1.1/139450/sign_d?host=www.aliyun.com&t=1534316400&s=60c71e98b6d7fcbb366243e224eab457"
    );
    assert_eq!(
        url(
            ProviderFormat::AliyunBatch,
            "https://203.107.1.1/139450/resolve",
            &["www.aliyun.com", "www.taobao.com"]
        ),
        "https://203.107.1.1/139450/sign_resolve?host=www.aliyun.com,www.taobao.com&t=1534316400&s=12a3f6b1b14a46ca813ca6439beb59a4"
    );
}

#[test]
fn dnspod_urls_per_kind() {
    let url = |auth: &ProviderAuth, base: &str| {
        provider_query(
            ProviderFormat::Dnspod,
            base,
            Some(auth),
            &hosts(&["www.dnspod.cn"]),
            Stage::Both,
            0,
            &IV,
        )
        .unwrap()
        .url
    };
    assert_eq!(
        url(&des("dnspodpass"), "http://119.29.29.98/d?ttl=1"),
        "http://119.29.29.98/d?ttl=1&dn=87ae992c1321f299da3c0210a9900ae7&id=1234"
    );
    let aes_url = url(&aes("0123456789ABCDEF"), "http://119.29.29.98/d");
    let dn = aes_url
        .strip_prefix("http://119.29.29.98/d?dn=")
        .and_then(|r| r.strip_suffix("&id=1234&alg=aes"))
        .unwrap();
    assert!(dn.starts_with(&hex(&IV)), "the IV leads the payload");
    let key = aes_key("0123456789ABCDEF").unwrap();
    assert_eq!(
        aes_decrypt_hex(dn.as_bytes(), &key).unwrap(),
        b"www.dnspod.cn"
    );
    let https = ProviderAuth::DnspodHttps {
        token: Secret::new("tok 1"),
    };
    assert_eq!(
        url(&https, "https://119.29.29.99/d"),
        "https://119.29.29.99/d?dn=www.dnspod.cn&token=tok%201"
    );
}

// ---------- decrypting parsers ----------

fn parse(auth: &ProviderAuth, hosts: &[&str], body: &[u8]) -> Result<usize, ProviderError> {
    let plain = decode_answer(Some(auth), body)?;
    dnspod::parse(hosts, &plain).map(|a| a.iter().map(|a| a.addrs().count()).sum())
}

#[test]
fn des_answer_decrypts_then_parses() {
    let key = des_key("dnspodpass").unwrap();
    let body = des_encrypt_hex(b"121.12.53.35;106.227.19.35,120", &key);
    assert_eq!(
        parse(
            &des("dnspodpass"),
            &["www.dnspod.cn"],
            format!("{body}\n").as_bytes()
        ),
        Ok(2)
    );
}

#[test]
fn aes_answer_decrypts_then_parses_and_short_keys_are_padded() {
    let key = aes_key("short").unwrap();
    assert_eq!(&key, b"short00000000000");
    let body = aes_encrypt_hex(b"1.2.3.4-240e::1,60", &key, &IV);
    assert_eq!(
        parse(&aes("short"), &["www.dnspod.cn"], body.as_bytes()),
        Ok(2)
    );
}

#[test]
fn bad_encrypted_input_is_an_error_with_a_kind() {
    let key = des_key("dnspodpass").unwrap();
    let good = des_encrypt_hex(b"1.2.3.4,60", &key);
    let h = &["www.dnspod.cn"];
    let kind = |r: Result<usize, ProviderError>| r.map_err(|e| e.kind());
    // A wrong key: the padding does not check out.
    assert_eq!(
        kind(parse(&des("otherkey"), h, good.as_bytes())),
        Err("bad_padding")
    );
    // Odd length, non-hex, truncated (not a whole block), empty.
    assert_eq!(
        kind(parse(&des("dnspodpass"), h, &good.as_bytes()[..15])),
        Err("bad_hex")
    );
    assert_eq!(kind(parse(&des("dnspodpass"), h, b"zz")), Err("bad_hex"));
    assert_eq!(
        kind(parse(&des("dnspodpass"), h, &good.as_bytes()[..14])),
        Err("truncated")
    );
    assert_eq!(kind(parse(&des("dnspodpass"), h, b"  \n")), Err("empty"));
    // Bad padding on a well-formed block: encrypt a block whose last byte is no padding.
    let raw = des_encrypt_hex(b"12345678", &key);
    assert_eq!(
        kind(parse(&des("dnspodpass"), h, &raw.as_bytes()[..16])),
        Err("bad_padding")
    );
    // AES: shorter than its IV, IV only, a wrong key.
    let akey = aes_key("k").unwrap();
    let a = aes_encrypt_hex(b"1.2.3.4,60", &akey, &IV);
    assert_eq!(
        kind(parse(&aes("k"), h, &a.as_bytes()[..30])),
        Err("truncated")
    );
    assert_eq!(
        kind(parse(&aes("k"), h, &a.as_bytes()[..32])),
        Err("truncated")
    );
    assert_eq!(
        kind(parse(&aes("k"), h, &a.as_bytes()[..40])),
        Err("truncated")
    );
    assert!(matches!(
        kind(parse(&aes("x"), h, a.as_bytes())),
        Err("bad_padding" | "malformed")
    ));
    // A key the build cannot use.
    assert_eq!(
        kind(parse(&des("short"), h, good.as_bytes())),
        Err("bad_key")
    );
}

#[test]
fn decrypted_answer_for_another_host_is_wrong_host() {
    let key = des_key("dnspodpass").unwrap();
    let body = des_encrypt_hex(b"evil.example.net.:1.2.3.4,60", &key);
    assert_eq!(
        parse(&des("dnspodpass"), &["www.dnspod.cn"], body.as_bytes()),
        Err(ProviderError::WrongHost)
    );
}

// ---------- DNSPod batch lines ----------

#[test]
fn dnspod_batch_lines_with_or_without_the_trailing_dot() {
    let body = b"a.example.com:1.2.3.4,120\nb.example.com.:2400::1,60\n";
    let v = dnspod::parse(&["a.example.com", "b.example.com"], body).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].host.as_str(), v[0].ipv4.len()), ("a.example.com", 1));
    assert_eq!((v[1].host.as_str(), v[1].ipv6.len()), ("b.example.com", 1));
    // Still attributed when the body names the host without a dot and none was given.
    let v = dnspod::parse(&[], b"a.example.com:1.2.3.4,120").unwrap();
    assert_eq!(v[0].host, "a.example.com");
    // Addresses are never mistaken for names.
    for single in [
        "240e::1,60",
        "fe80::1,60",
        "0-240e::1,60",
        "1.2.3.4-240e::1,60",
    ] {
        let v = dnspod::parse(&["h.example.com"], single.as_bytes()).unwrap();
        assert_eq!(v[0].host, "h.example.com", "{single}");
    }
    assert_eq!(
        dnspod::parse(&["a.example.com"], b"evil.example.net:1.2.3.4,1"),
        Err(ProviderError::WrongHost)
    );
}
