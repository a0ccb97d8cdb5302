//! Authenticated HTTPDNS requests: Alibaba Cloud signatures and Tencent DNSPod encryption.
//!
//! - `aliyun-sign`: the endpoint's last path segment `d` / `resolve` becomes `sign_d` /
//!   `sign_resolve`, and the query is `host=H&t=T&s=S` with `T` = now + `validity_s`
//!   (Unix seconds) and `S = hex(md5(H + "-" + secret + "-" + T))`; for a batch `H` is the
//!   comma-joined host list exactly as sent.
//! - `dnspod-des`: `dn=hex(DES-ECB-PKCS#7(H, key[0..8]))&id=ID`; the answer is hex text
//!   that decrypts the same way into a plain DNSPod answer.
//! - `dnspod-aes`: `dn=hex(IV ‖ AES-128-CBC-PKCS#7(H, key, IV))&id=ID&alg=aes` with a fresh
//!   16-byte IV per request; the answer is `hex(IV ‖ ciphertext)` of the plain answer. A key
//!   shorter than 16 characters is padded with `'0'`, like the vendor's SDK does.
//! - `dnspod-https`: `dn=H&token=TOKEN` (the endpoint must be `https://`).
//!
//! Everything here but [`fresh_iv`] is pure (the caller passes the wall-clock time and the
//! IV) and never panics on any input. Errors are [`ProviderError`]s that name the problem only: no key,
//! token, ciphertext or plaintext ever appears in one.

use super::ProviderError;
use crate::config::provider_auth::ProviderAuth;
use aes::Aes128;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit};
use des::Des;
use md5::{Digest, Md5};
use std::borrow::Cow;

/// Length of the AES IV that prefixes DNSPod AES payloads.
pub const AES_IV_LEN: usize = 16;

/// Length of a DES key.
pub const DES_KEY_LEN: usize = 8;

/// Length of a DNSPod AES key (after padding).
pub const AES_KEY_LEN: usize = 16;

/// The signature of an Alibaba Cloud signed request: `hex(md5(hosts-secret-t))`.
pub fn aliyun_signature(hosts: &str, secret: &str, t: u64) -> String {
    let mut md5 = Md5::new();
    md5.update(hosts.as_bytes());
    md5.update(b"-");
    md5.update(secret.as_bytes());
    md5.update(b"-");
    md5.update(t.to_string().as_bytes());
    hex(&md5.finalize())
}

/// The signed endpoint for `base`: a last path segment `d` becomes `sign_d` and `resolve`
/// becomes `sign_resolve`; anything else (already signed, or a custom path) is kept.
pub fn aliyun_signed_base(base: &str) -> Cow<'_, str> {
    let (path, query) = match base.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (base, None),
    };
    let Some((dir, last)) = path.rsplit_once('/') else {
        return Cow::Borrowed(base);
    };
    let signed = match last {
        "d" => "sign_d",
        "resolve" => "sign_resolve",
        _ => return Cow::Borrowed(base),
    };
    let mut out = format!("{dir}/{signed}");
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    Cow::Owned(out)
}

/// DES key bytes from a configured key: its first 8 bytes.
pub fn des_key(key: &str) -> Result<[u8; DES_KEY_LEN], ProviderError> {
    key.as_bytes()
        .get(..DES_KEY_LEN)
        .and_then(|k| <[u8; DES_KEY_LEN]>::try_from(k).ok())
        .ok_or(ProviderError::BadKey("DES key is shorter than 8 bytes"))
}

/// AES key bytes from a configured key: padded with `'0'` to 16 bytes.
pub fn aes_key(key: &str) -> Result<[u8; AES_KEY_LEN], ProviderError> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > AES_KEY_LEN {
        return Err(ProviderError::BadKey("AES key must be 1 to 16 bytes"));
    }
    let mut out = [b'0'; AES_KEY_LEN];
    out[..bytes.len()].copy_from_slice(bytes);
    Ok(out)
}

/// `hex(DES-ECB-PKCS#7(plain))`, lowercase.
pub fn des_encrypt_hex(plain: &[u8], key: &[u8; DES_KEY_LEN]) -> String {
    let ct = ecb::Encryptor::<Des>::new(key.into()).encrypt_padded_vec_mut::<Pkcs7>(plain);
    hex(&ct)
}

/// Decrypts a hex DES-ECB-PKCS#7 payload.
pub fn des_decrypt_hex(text: &[u8], key: &[u8; DES_KEY_LEN]) -> Result<Vec<u8>, ProviderError> {
    let ct = unhex(text)?;
    if ct.is_empty() || ct.len() % 8 != 0 {
        return Err(ProviderError::Truncated);
    }
    ecb::Decryptor::<Des>::new(key.into())
        .decrypt_padded_vec_mut::<Pkcs7>(&ct)
        .map_err(|_| ProviderError::BadPadding)
}

/// A DNSPod AES IV from the operating system's cryptographic random number generator (the
/// only source of those IVs in the engine); `None` if the generator fails.
pub fn fresh_iv() -> Option<[u8; AES_IV_LEN]> {
    use aes_gcm::aead::rand_core::RngCore as _;
    let mut iv = [0u8; AES_IV_LEN];
    aes_gcm::aead::OsRng.try_fill_bytes(&mut iv).ok()?;
    Some(iv)
}

/// `hex(IV ‖ AES-128-CBC-PKCS#7(plain, IV))`, lowercase.
pub fn aes_encrypt_hex(plain: &[u8], key: &[u8; AES_KEY_LEN], iv: &[u8; AES_IV_LEN]) -> String {
    let ct =
        cbc::Encryptor::<Aes128>::new(key.into(), iv.into()).encrypt_padded_vec_mut::<Pkcs7>(plain);
    let mut all = Vec::with_capacity(AES_IV_LEN + ct.len());
    all.extend_from_slice(iv);
    all.extend_from_slice(&ct);
    hex(&all)
}

/// Decrypts a hex `IV ‖ AES-128-CBC-PKCS#7` payload.
pub fn aes_decrypt_hex(text: &[u8], key: &[u8; AES_KEY_LEN]) -> Result<Vec<u8>, ProviderError> {
    let all = unhex(text)?;
    let Some((iv, ct)) = all.split_at_checked(AES_IV_LEN) else {
        return Err(ProviderError::Truncated);
    };
    if ct.is_empty() || ct.len() % 16 != 0 {
        return Err(ProviderError::Truncated);
    }
    let iv: &[u8; AES_IV_LEN] = iv.try_into().map_err(|_| ProviderError::Truncated)?;
    cbc::Decryptor::<Aes128>::new(key.into(), iv.into())
        .decrypt_padded_vec_mut::<Pkcs7>(ct)
        .map_err(|_| ProviderError::BadPadding)
}

/// The plain answer body for a provider with `auth`: decrypted for the DNSPod encrypted
/// kinds, unchanged otherwise.
pub fn decode_answer<'b>(
    auth: Option<&ProviderAuth>,
    body: &'b [u8],
) -> Result<Cow<'b, [u8]>, ProviderError> {
    super::check_size(body)?;
    match auth {
        Some(ProviderAuth::DnspodDes { key, .. }) => {
            let key = des_key(key.expose())?;
            des_decrypt_hex(non_blank(body)?, &key).map(Cow::Owned)
        }
        Some(ProviderAuth::DnspodAes { key, .. }) => {
            let key = aes_key(key.expose())?;
            aes_decrypt_hex(non_blank(body)?, &key).map(Cow::Owned)
        }
        _ => Ok(Cow::Borrowed(body)),
    }
}

/// The request of an authenticated provider: the endpoint to use and the query string
/// (without `?`) for `hosts` (comma-joined, as sent), at wall-clock `now_s` (Unix
/// seconds), with `iv` for the AES kind.
pub fn request_parts<'a>(
    auth: &ProviderAuth,
    base: &'a str,
    hosts: &str,
    now_s: u64,
    iv: &[u8; AES_IV_LEN],
) -> Result<(Cow<'a, str>, String), ProviderError> {
    match auth {
        ProviderAuth::AliyunSign { secret, validity_s } => {
            let t = now_s.saturating_add(*validity_s);
            let s = aliyun_signature(hosts, secret.expose(), t);
            Ok((
                aliyun_signed_base(base),
                format!("host={hosts}&t={t}&s={s}"),
            ))
        }
        ProviderAuth::DnspodDes { id, key } => {
            let dn = des_encrypt_hex(hosts.as_bytes(), &des_key(key.expose())?);
            Ok((Cow::Borrowed(base), format!("dn={dn}&id={}", escape(id))))
        }
        ProviderAuth::DnspodAes { id, key } => {
            let dn = aes_encrypt_hex(hosts.as_bytes(), &aes_key(key.expose())?, iv);
            Ok((
                Cow::Borrowed(base),
                format!("dn={dn}&id={}&alg=aes", escape(id)),
            ))
        }
        ProviderAuth::DnspodHttps { token } => Ok((
            Cow::Borrowed(base),
            format!("dn={hosts}&token={}", escape(token.expose())),
        )),
    }
}

fn non_blank(body: &[u8]) -> Result<&[u8], ProviderError> {
    let body = body.trim_ascii();
    if body.is_empty() {
        Err(ProviderError::Empty)
    } else {
        Ok(body)
    }
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Decodes hex (either case); odd lengths and other characters are
/// [`ProviderError::BadHex`].
pub fn unhex(text: &[u8]) -> Result<Vec<u8>, ProviderError> {
    if text.len() % 2 != 0 {
        return Err(ProviderError::BadHex("odd number of hex digits"));
    }
    let digit = |c: u8| -> Result<u8, ProviderError> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(ProviderError::BadHex("not a hex digit")),
        }
    };
    text.chunks_exact(2)
        .map(|pair| Ok(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn escape(s: &str) -> Cow<'_, str> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if s.bytes().all(plain) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if plain(b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push_str(&hex(&[b]).to_ascii_uppercase());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_keeps_unreserved_and_encodes_the_rest() {
        assert_eq!(escape("a-b_c.d~9"), "a-b_c.d~9");
        assert_eq!(escape("a b&c=d"), "a%20b%26c%3Dd");
    }

    #[test]
    fn signed_base_rewrites_only_the_last_segment() {
        assert_eq!(aliyun_signed_base("https://h/1/d"), "https://h/1/sign_d");
        assert_eq!(
            aliyun_signed_base("https://h/1/resolve?x=1"),
            "https://h/1/sign_resolve?x=1"
        );
        assert_eq!(
            aliyun_signed_base("https://h/1/sign_d"),
            "https://h/1/sign_d"
        );
    }
}
