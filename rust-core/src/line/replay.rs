//! Whether a failed request may be sent again on another line.
//!
//! A request is replayable when its method is idempotent (`GET`, `HEAD`, `OPTIONS`, `PUT`,
//! `DELETE`) or it carries an idempotency key ([`IDEMPOTENCY_KEY_HEADERS`]), and its body,
//! if any, can be written twice (not one-shot). Anything else is never replayed to another
//! line, whatever failed: a second `POST` without a key may charge twice. The caller only
//! reports the facts (method, key present, one-shot body); the decision is made here.

/// Request headers whose presence marks a request as safe to send twice (compared
/// case-insensitively).
pub const IDEMPOTENCY_KEY_HEADERS: [&str; 2] = ["Idempotency-Key", "X-Transaction-Id"];

/// Methods that may be sent twice with the same effect.
const IDEMPOTENT_METHODS: [&str; 5] = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];

/// Whether `name` is one of [`IDEMPOTENCY_KEY_HEADERS`].
pub fn is_idempotency_key(name: &str) -> bool {
    IDEMPOTENCY_KEY_HEADERS
        .iter()
        .any(|k| k.eq_ignore_ascii_case(name))
}

/// Whether a request with `method` (as sent; methods are case-sensitive), an idempotency
/// key or not, and a one-shot body or not may be replayed on another line.
pub fn replayable(method: &str, keyed: bool, one_shot_body: bool) -> bool {
    !one_shot_body && (keyed || IDEMPOTENT_METHODS.contains(&method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idempotent_methods_replay_unless_the_body_is_one_shot() {
        for m in IDEMPOTENT_METHODS {
            assert!(replayable(m, false, false), "{m}");
            assert!(!replayable(m, true, true), "{m} with a one-shot body");
        }
    }

    #[test]
    fn other_methods_replay_only_with_an_idempotency_key() {
        for m in ["POST", "PATCH", "CONNECT", "get"] {
            assert!(!replayable(m, false, false), "{m}");
            assert!(replayable(m, true, false), "{m} keyed");
            assert!(!replayable(m, true, true), "{m} keyed, one-shot body");
        }
    }

    #[test]
    fn key_headers_are_matched_in_any_case() {
        for name in ["Idempotency-Key", "idempotency-key", "X-TRANSACTION-ID"] {
            assert!(is_idempotency_key(name), "{name}");
        }
        for name in ["Idempotency", "X-Line-Biz", ""] {
            assert!(!is_idempotency_key(name), "{name}");
        }
    }
}
