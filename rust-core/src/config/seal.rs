//! Sealing the default config shipped inside the app.
//!
//! Format (text): standard base64 of `0x01 || nonce (12 bytes) || ciphertext || tag (16)`,
//! AES-256-GCM with a random 96-bit nonce from the OS generator. The leading format byte is
//! also the AEAD's associated data, so it cannot be swapped without failing authentication,
//! and a future format can be told apart from a corrupt one.
//!
//! [`open`] ignores ASCII whitespace anywhere in the text (assets are often line-wrapped by
//! `base64`). Every failure — wrong key length, bad base64, too short, unknown format, wrong
//! key, tampered text — is an [`Error::Seal`] with a reason; nothing here panics on input and
//! no message contains the key, the sealed text or the plaintext.

use crate::error::{Error, Result};
use aes_gcm::aead::rand_core::RngCore;
use aes_gcm::aead::{Aead, KeyInit, OsRng, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;

/// The only format version this build writes and reads.
pub const FORMAT_V1: u8 = 0x01;
/// Key length in bytes (AES-256).
pub const KEY_LEN: usize = 32;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
/// Largest sealed text [`open`] accepts, in bytes (room for a config at the 1 MiB limit).
pub const MAX_SEALED_LEN: usize = 2 * 1024 * 1024;

/// Seals `plaintext` with `key`, returning base64 text. Fails only if the OS random number
/// generator is unavailable or the plaintext exceeds AES-GCM's length limit.
pub fn seal(plaintext: &[u8], key: &[u8; KEY_LEN]) -> Result<String> {
    let cipher = Aes256Gcm::new(key.into());
    let mut nonce = [0u8; NONCE_LEN];
    OsRng
        .try_fill_bytes(&mut nonce)
        .map_err(|_| Error::Seal("the system random number generator failed".to_string()))?;
    let sealed = cipher
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: plaintext,
                aad: &[FORMAT_V1],
            },
        )
        .map_err(|_| Error::Seal("plaintext is too large to seal".to_string()))?;
    let mut out = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
    out.push(FORMAT_V1);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&sealed);
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

/// Opens text produced by [`seal`] with `key` (must be 32 bytes).
pub fn open(sealed: &str, key: &[u8]) -> Result<Vec<u8>> {
    let key: &[u8; KEY_LEN] = key.try_into().map_err(|_| {
        Error::Seal(format!(
            "key must be {KEY_LEN} bytes, got {} bytes",
            key.len()
        ))
    })?;
    if sealed.len() > MAX_SEALED_LEN {
        return Err(Error::Seal(format!(
            "sealed text is {} bytes; limit is {MAX_SEALED_LEN} bytes",
            sealed.len()
        )));
    }
    let compact: Vec<u8> = sealed
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .map_err(|_| Error::Seal("sealed text is not valid base64".to_string()))?;
    if raw.len() < 1 + NONCE_LEN + TAG_LEN {
        return Err(Error::Seal(format!(
            "sealed data is too short ({} bytes; at least {} expected)",
            raw.len(),
            1 + NONCE_LEN + TAG_LEN
        )));
    }
    let (format, rest) = raw.split_at(1);
    if format[0] != FORMAT_V1 {
        return Err(Error::Seal(format!(
            "unknown format version {} (this build reads version {FORMAT_V1})",
            format[0]
        )));
    }
    let (nonce, body) = rest.split_at(NONCE_LEN);
    Aes256Gcm::new(key.into())
        .decrypt(
            Nonce::from_slice(nonce),
            Payload {
                msg: body,
                aad: format,
            },
        )
        .map_err(|_| Error::Seal("authentication failed: wrong key or tampered text".to_string()))
}

/// Parses a 32-byte key written as 64 hex digits (surrounding whitespace ignored).
pub fn parse_key_hex(hex: &str) -> Result<[u8; KEY_LEN]> {
    let hex = hex.trim().as_bytes();
    if hex.len() != 2 * KEY_LEN {
        return Err(Error::Seal(format!(
            "key must be {} hex digits ({KEY_LEN} bytes), got {} characters",
            2 * KEY_LEN,
            hex.len()
        )));
    }
    let mut key = [0u8; KEY_LEN];
    for (byte, pair) in key.iter_mut().zip(hex.chunks_exact(2)) {
        match (nibble(pair[0]), nibble(pair[1])) {
            (Some(hi), Some(lo)) => *byte = (hi << 4) | lo,
            _ => return Err(Error::Seal("key contains a non-hex character".to_string())),
        }
    }
    Ok(key)
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7u8; 32];

    #[test]
    fn round_trip_and_random_nonce() {
        let a = seal(b"{\"version\":1}", &KEY).unwrap();
        let b = seal(b"{\"version\":1}", &KEY).unwrap();
        assert_ne!(a, b, "nonces must differ");
        assert_eq!(open(&a, &KEY).unwrap(), b"{\"version\":1}");
        let wrapped = format!("  {}\n{}\n", &a[..10], &a[10..]);
        assert_eq!(open(&wrapped, &KEY).unwrap(), b"{\"version\":1}");
    }

    #[test]
    fn every_bad_input_is_a_seal_error() {
        let good = seal(b"secret-plaintext", &KEY).unwrap();
        let raw = base64::engine::general_purpose::STANDARD
            .decode(&good)
            .unwrap();
        let mut other_format = raw.clone();
        other_format[0] = 2;
        let mut flipped = raw.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let enc = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let cases: Vec<(String, &[u8], &str)> = vec![
            (good.clone(), &KEY[..31], "key must be 32 bytes"),
            ("not base64!".into(), &KEY, "base64"),
            (enc(&raw[..20]), &KEY, "too short"),
            (enc(&other_format), &KEY, "unknown format version 2"),
            (enc(&flipped), &KEY, "authentication failed"),
            (good.clone(), &[8u8; 32], "authentication failed"),
            ("A".repeat(MAX_SEALED_LEN + 1), &KEY, "limit"),
        ];
        for (text, key, want) in cases {
            match open(&text, key) {
                Err(Error::Seal(why)) => {
                    assert!(why.contains(want), "{why} should contain {want}");
                    assert!(!why.contains("secret-plaintext"));
                }
                other => panic!("expected a seal error containing {want}, got {other:?}"),
            }
        }
    }

    #[test]
    fn key_hex_parsing() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let key = parse_key_hex(&format!(" {hex}\n")).unwrap();
        assert_eq!(key[1], 0x11);
        assert_eq!(key[31], 0xff);
        assert!(parse_key_hex("abcd").is_err());
        let bad = format!("{}zz", &hex[..62]);
        let err = parse_key_hex(&bad).unwrap_err().to_string();
        assert!(err.contains("non-hex") && !err.contains("zz"), "{err}");
        // A multi-byte character must not split a pair into a panic.
        assert!(parse_key_hex(&format!("{}é", &hex[..62])).is_err());
    }
}
