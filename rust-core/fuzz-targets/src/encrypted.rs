//! The decrypting DNSPod answer paths (`dnspod-des`, `dnspod-aes`).

use linekit_core::dns::ProviderFormat;

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
    crate::provider(ProviderFormat::Dnspod, &framed);
}
