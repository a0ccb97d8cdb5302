//! The eight small-order points of edwards25519 in their canonical encodings (the identity
//! is `01 00…`; the all-zero encoding is a point of order 4): as a public key, or as the
//! `R` of a signature with `s = 0`, each lets a signature be forged without a private key.
//! Shared by the trust tests and the `trust_keys` fuzz target (which includes this file
//! by path).

#![allow(dead_code)]

/// The points, as hex; the first four form the subgroup of order 4 (identity, the
/// all-zero encoding, its negation, and `y = -1`).
pub const SMALL_ORDER_HEX: [&str; 8] = [
    "0100000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
];

/// 32 bytes from 64 hex digits.
pub fn hex32(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex");
    }
    out
}

/// The eight points as bytes.
pub fn small_order_points() -> Vec<[u8; 32]> {
    SMALL_ORDER_HEX.iter().map(|h| hex32(h)).collect()
}
