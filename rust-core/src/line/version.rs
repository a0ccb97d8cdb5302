//! The deployment-version guard: keeps a business line from mixing backends that run
//! different deployments without saying so.
//!
//! A business line may name a response header (`version_header`, e.g.
//! `X-Deployment-Version`) whose value fingerprints the deployment behind a line. Probe
//! responses and reported attempts carry that value; each line remembers the last value
//! seen ([`sanitize_value`] bounds what is accepted). A pool's [`VersionGuard`] keeps the
//! **reference** fingerprint: the one of the line it last served from *by choice*:
//!
//! - the first fingerprint seen on the current line becomes the reference;
//! - when the current line serves the reference and then reports another value (the
//!   deployment rolled forward), the reference follows it;
//! - a line chosen only because nothing compatible was usable does not move the reference,
//!   so the pool returns to the reference deployment as soon as one of its lines is usable
//!   again (otherwise one fallback to an old backup would pin the pool to the old version);
//! - when no line of the pool still carries the reference, it is dropped to the current
//!   line's fingerprint (the whole fleet moved on).
//!
//! Lines with no known fingerprint count as compatible until one is seen. A decision that
//! lands on a line whose known fingerprint differs from the reference is a **mismatch**,
//! flagged under both policies. Under `strict` a re-rank (and an in-call retry) puts the
//! usable compatible lines first, so incompatible lines are skipped unless none with the
//! same fingerprint is usable; `report` changes no choice.

use super::pool::LineState;
use super::rank::is_usable;
use crate::config::VersionPolicy;
use std::sync::Arc;

/// Longest fingerprint kept, in bytes; longer values are cut (at a character boundary).
pub const MAX_VERSION_BYTES: usize = 64;

/// Longest accepted `version_header` name.
pub const MAX_HEADER_NAME_BYTES: usize = 64;

/// Checks a `version_header` name: an HTTP token (RFC 9110 `tchar`s), not a private
/// `X-Line-*` header, at most [`MAX_HEADER_NAME_BYTES`].
pub fn check_header_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > MAX_HEADER_NAME_BYTES {
        return Err("must be a header name of 1 to 64 characters");
    }
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if !name.bytes().all(tchar) {
        return Err("not a valid HTTP header name");
    }
    if super::headers::is_private(name) {
        return Err("X-Line-* headers are removed before sending and cannot carry a version");
    }
    Ok(())
}

/// The fingerprint kept for a header value, or `None` when the value is unusable.
///
/// Surrounding whitespace is trimmed; an empty value, or one holding anything but
/// printable ASCII and spaces (control characters, the replacement character a client
/// puts in place of bytes that were not UTF-8, other non-ASCII text), is rejected; a value
/// longer than [`MAX_VERSION_BYTES`] is cut to that length.
pub fn sanitize_value(value: &str) -> Option<Arc<str>> {
    let value = value.trim_matches(|c: char| c == ' ' || c == '\t');
    if value.is_empty() || !value.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return None;
    }
    // ASCII only from here: every index is a character boundary.
    Some(Arc::from(&value[..value.len().min(MAX_VERSION_BYTES)]))
}

/// [`sanitize_value`] for raw header bytes: bytes that are not UTF-8 are rejected.
#[cfg(any(test, feature = "testing"))]
pub fn sanitize_bytes(value: &[u8]) -> Option<Arc<str>> {
    std::str::from_utf8(value).ok().and_then(sanitize_value)
}

/// The value of header `name` (ASCII case-insensitive, first occurrence) in `headers`.
pub fn header_value<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The version guard of one pool: its policy and reference fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionGuard {
    policy: VersionPolicy,
    reference: Option<Arc<str>>,
}

impl VersionGuard {
    /// A guard with no reference yet.
    pub fn new(policy: VersionPolicy) -> Self {
        VersionGuard {
            policy,
            reference: None,
        }
    }

    /// The policy.
    pub fn policy(&self) -> VersionPolicy {
        self.policy
    }

    /// The reference fingerprint, once one is known.
    pub fn reference(&self) -> Option<&Arc<str>> {
        self.reference.as_ref()
    }

    /// Whether a line with fingerprint `version` differs from the reference (unknown on
    /// either side is compatible).
    pub fn mismatch(&self, version: Option<&Arc<str>>) -> bool {
        match (&self.reference, version) {
            (Some(r), Some(v)) => r != v,
            _ => false,
        }
    }

    /// Line `index` of `lines` (whose current line is `current`) reported `value`: stores
    /// it on the line and moves the reference by the rules in the module docs. Returns
    /// whether the line's fingerprint changed.
    pub fn observe(
        &mut self,
        lines: &mut [LineState],
        current: usize,
        index: usize,
        value: Arc<str>,
    ) -> bool {
        let Some(line) = lines.get_mut(index) else {
            return false;
        };
        let before = line.version.replace(value.clone());
        let changed = before.as_deref() != Some(&*value);
        if index == current {
            let served_reference = match (&self.reference, &before) {
                (None, _) => true,
                (Some(r), Some(b)) => r == b,
                (Some(_), None) => false,
            };
            if served_reference {
                self.reference = Some(value);
            }
        }
        if let Some(r) = &self.reference {
            if !lines.iter().any(|l| l.version.as_ref() == Some(r)) {
                self.reference = lines.get(current).and_then(|l| l.version.clone());
            }
        }
        changed
    }

    /// Under `strict` with a known reference, reorders a ranked `order` so that usable
    /// compatible lines come first (keeping their rank among themselves); otherwise leaves
    /// it as it is.
    pub fn prefer_compatible(&self, lines: &[LineState], now_ms: u64, order: &mut [usize]) {
        if self.policy != VersionPolicy::Strict || self.reference.is_none() {
            return;
        }
        // `false` sorts first: usable compatible lines, in rank order.
        order.sort_by_key(|&i| {
            let l = &lines[i];
            !is_usable(l, now_ms) || self.mismatch(l.version.as_ref())
        });
    }

    /// Takes over the reference of the guard this one replaces (a config update).
    pub fn carry_over(&mut self, old: &VersionGuard) {
        self.reference = old.reference.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_trimmed_bounded_and_checked() {
        assert_eq!(sanitize_value(" v2.1 ").as_deref(), Some("v2.1"));
        assert_eq!(
            sanitize_value("build 7 (abc)").as_deref(),
            Some("build 7 (abc)")
        );
        let long = "a".repeat(10_000);
        assert_eq!(
            sanitize_value(&long).map(|v| v.len()),
            Some(MAX_VERSION_BYTES)
        );
        assert_eq!(sanitize_value(""), None);
        assert_eq!(sanitize_value("   "), None);
        assert_eq!(sanitize_value("v2\r\nSet-Cookie: x"), None);
        assert_eq!(sanitize_value("v\u{0}2"), None);
        assert_eq!(sanitize_value("v2\u{7f}"), None);
        assert_eq!(sanitize_value("v\u{fffd}2"), None);
        assert_eq!(sanitize_value("版本2"), None);
        assert_eq!(sanitize_bytes(b"v3").as_deref(), Some("v3"));
        assert_eq!(sanitize_bytes(b"v\xff3"), None);
    }

    #[test]
    fn header_names_must_be_tokens() {
        assert!(check_header_name("X-Deployment-Version").is_ok());
        assert!(check_header_name("").is_err());
        assert!(check_header_name("X Deployment").is_err());
        assert!(check_header_name("X-Version:").is_err());
        assert!(check_header_name("X-Line-Version").is_err());
        assert!(check_header_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn header_lookup_is_case_insensitive_first_wins() {
        let h = vec![
            ("x-deployment-version".to_string(), "v1".to_string()),
            ("X-Deployment-Version".to_string(), "v2".to_string()),
        ];
        assert_eq!(header_value(&h, "X-DEPLOYMENT-VERSION"), Some("v1"));
        assert_eq!(header_value(&h, "ETag"), None);
    }
}
