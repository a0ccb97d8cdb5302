//! The private `X-Line-*` request headers (`docs/architecture.md#special-headers`).
//!
//! They steer routing on the device and must never leave it: [`is_private`] tells the
//! caller which headers to strip, and [`LineHeaders::parse`] reads the three that matter
//! (plus whether an idempotency key is present, for [`super::replay`]).

/// Prefix shared by every private header (compared case-insensitively).
pub const PREFIX: &str = "x-line-";
/// Names the business line of a request.
pub const BIZ: &str = "X-Line-Biz";
/// `true` leaves the request on its original host.
pub const KEEP_ORIGINAL_HOST: &str = "X-Line-Keep-Original-Host";
/// `https://host[:port]` pins the request to that origin.
pub const FIXED_HOST: &str = "X-Line-Fixed-Host";

/// Whether a header name is private to Linekit (`X-Line-*`, any case).
pub fn is_private(name: &str) -> bool {
    name.len() >= PREFIX.len()
        && name.as_bytes()[..PREFIX.len()].eq_ignore_ascii_case(PREFIX.as_bytes())
}

/// The routing-relevant private headers of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineHeaders<'a> {
    /// `X-Line-Biz`.
    pub biz: Option<&'a str>,
    /// `X-Line-Keep-Original-Host: true` (case-insensitive `true`).
    pub keep_original: bool,
    /// `X-Line-Fixed-Host`.
    pub fixed_host: Option<&'a str>,
    /// One of [`super::replay::IDEMPOTENCY_KEY_HEADERS`] is present (any value).
    pub idempotency_key: bool,
}

impl<'a> LineHeaders<'a> {
    /// Reads the private headers from `(name, value)` pairs (first occurrence wins).
    pub fn parse<N: AsRef<str>, V: AsRef<str>>(headers: &'a [(N, V)]) -> LineHeaders<'a> {
        let mut out = LineHeaders::default();
        for (name, value) in headers {
            let (name, value) = (name.as_ref(), value.as_ref().trim());
            if name.eq_ignore_ascii_case(BIZ) {
                if out.biz.is_none() && !value.is_empty() {
                    out.biz = Some(value);
                }
            } else if name.eq_ignore_ascii_case(KEEP_ORIGINAL_HOST) {
                out.keep_original |= value.eq_ignore_ascii_case("true");
            } else if name.eq_ignore_ascii_case(FIXED_HOST) {
                if out.fixed_host.is_none() {
                    out.fixed_host = Some(value);
                }
            } else if super::replay::is_idempotency_key(name) {
                out.idempotency_key = true;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_headers_are_recognised_in_any_case() {
        for name in [
            "X-Line-Biz",
            "x-line-anything",
            "X-LINE-FIXED-HOST",
            "x-Line-",
        ] {
            assert!(is_private(name), "{name}");
        }
        for name in ["X-Lines", "Content-Type", "x-lin", ""] {
            assert!(!is_private(name), "{name}");
        }
    }

    #[test]
    fn parse_reads_the_three_headers() {
        let h = [
            ("x-line-biz", " spot "),
            ("X-Line-Keep-Original-Host", "TRUE"),
            ("X-LINE-FIXED-HOST", "https://a.example.com"),
            ("X-Line-Biz", "other"),
        ];
        let p = LineHeaders::parse(&h);
        assert_eq!(p.biz, Some("spot"));
        assert!(p.keep_original);
        assert_eq!(p.fixed_host, Some("https://a.example.com"));
        assert!(!p.idempotency_key);
        let none: [(&str, &str); 1] = [("X-Line-Keep-Original-Host", "yes")];
        assert!(!LineHeaders::parse(&none).keep_original);
        let keyed = [("x-transaction-id", "")];
        assert!(LineHeaders::parse(&keyed).idempotency_key);
    }
}
