//! Shared driver for the provider-parser fuzz targets.
//!
//! The first input byte picks the host binding (none = trust the body, as the CLI does;
//! one host; or two hosts, as a batch query does); the rest is the response body. Every
//! answer that parses is then inserted into a `DnsCache` and looked up, so the address
//! policy, TTL clamping and address ordering run on fuzzed data too. Nothing may panic.

use linekit_core::dns::{DnsCache, DnsSettings, ProviderFormat};
use linekit_core::net::NetworkKey;

/// Parses `data` as a `format` answer and feeds what parses through the cache.
pub fn provider(format: ProviderFormat, data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let hosts: &[&str] = match selector % 3 {
        0 => &[],
        1 => &["a.example.com"],
        _ => &["a.example.com", "b.example.com"],
    };
    let Ok(answers) = format.parse(hosts, body) else {
        return;
    };
    let mut config = linekit_core::config::model::HttpDnsConfig::default();
    config.hosts = vec!["*".into(), "*.example.com".into()];
    config.allow_private = vec!["b.example.com".into()];
    let (settings, _) = DnsSettings::from_config(&config);
    let cache = DnsCache::new(settings, u64::from(selector));
    for answer in &answers {
        let _ = cache.insert(NetworkKey::default(), "fuzz", answer, 1_000, 1_000);
        let _ = cache.lookup(&answer.host, 1_001);
    }
}

/// The encrypted DNSPod answers (`dnspod-des`, `dnspod-aes`) through the decrypting path.
///
/// The first byte picks the mode: the rest is either the response body as received (hex
/// text, usually refused: odd length, non-hex, truncated, bad padding), raw ciphertext
/// bytes (hex-encoded first, so the decryption and padding checks run), or a plaintext
/// answer that is encrypted with the provider's key first — then it must decrypt back
/// exactly, and the DNSPod parser and the cache run on it. Nothing may panic.
pub fn encrypted(aes: bool, data: &[u8]) {
    use linekit_core::config::provider_auth::{ProviderAuth, Secret};
    use linekit_core::dns::providers::auth;
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let key = "fuzzkey!0123";
    let auth_config = if aes {
        ProviderAuth::DnspodAes {
            id: "1".into(),
            key: Secret::new(key),
        }
    } else {
        ProviderAuth::DnspodDes {
            id: "1".into(),
            key: Secret::new(key),
        }
    };
    let body: Vec<u8> = match selector % 3 {
        0 => rest.to_vec(),
        1 => auth::hex(rest).into_bytes(),
        _ => {
            let text = if aes {
                let iv = [selector; auth::AES_IV_LEN];
                auth::aes_encrypt_hex(rest, &auth::aes_key(key).unwrap(), &iv)
            } else {
                auth::des_encrypt_hex(rest, &auth::des_key(key).unwrap())
            };
            text.into_bytes()
        }
    };
    let Ok(plain) = auth::decode_answer(Some(&auth_config), &body) else {
        assert!(
            selector % 3 != 2 || body.len() > linekit_core::dns::providers::MAX_BODY_BYTES,
            "an answer encrypted with the right key must decrypt"
        );
        return;
    };
    if selector % 3 == 2 {
        assert_eq!(&*plain, rest, "decrypt(encrypt(x)) == x");
    }
    let mut framed = Vec::with_capacity(plain.len() + 1);
    framed.push(selector / 3);
    framed.extend_from_slice(&plain);
    provider(ProviderFormat::Dnspod, &framed);
}
