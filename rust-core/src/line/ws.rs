//! WebSocket line quality: `ws` pools are separate from `http`
//! (`docs/architecture.md#websocket-quality`).
//!
//! A fast REST answer says little about a push channel: a CDN may refuse upgrades, and a
//! socket can open and then die within seconds. The app reports WebSocket lifecycle events
//! ([`WsEvent`]); this module turns each into what the `ws` pool records:
//! - `ws_open`: a success whose latency is the *handshake* time (call start → open);
//! - `ws_handshake_failed`: a line fault (and a detect trigger), unless the server answered
//!   401/403 (the app's credentials, not the line) or the failure was local;
//! - `ws_closed`: an abnormal close (not 1000/1001) within `ws_stable_ms` of opening is a
//!   line fault; normal closes, closes after a stable period, and closes caused by a
//!   network change or by the app going to the background say nothing about the line;
//! - `ws_first_message`: informational only (trace).

use super::outcome::Outcome;

pub use crate::wire::vocabulary::CloseCause;

/// One WebSocket lifecycle event on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum WsEvent {
    /// The handshake completed (`onOpen`).
    Open {
        /// Call start → open.
        handshake_ms: u64,
    },
    /// The handshake failed: an HTTP status other than 101, or a transport error.
    HandshakeFailed {
        /// Status of the non-101 response, if one arrived.
        status: Option<u16>,
        /// Transport failure kind (dns/tls/connect/…) when no response arrived.
        error: Option<Outcome>,
        /// Time spent before failing.
        cost_ms: u64,
    },
    /// The first message arrived.
    FirstMessage {
        /// Open → first message.
        after_open_ms: u64,
    },
    /// The socket closed or failed after opening.
    Closed {
        /// Close code (1006 for an abnormal drop without a close frame).
        code: u16,
        /// Open → close.
        duration_ms: u64,
        /// What caused it.
        cause: CloseCause,
    },
}

impl WsEvent {
    /// The replay name of the event.
    pub fn name(&self) -> &'static str {
        match self {
            WsEvent::Open { .. } => "ws_open",
            WsEvent::HandshakeFailed { .. } => "ws_handshake_failed",
            WsEvent::FirstMessage { .. } => "ws_first_message",
            WsEvent::Closed { .. } => "ws_closed",
        }
    }

    /// What the `ws` pool records for this event: `(outcome, status, cost_ms)`, or
    /// `None` when the event says nothing about the line. `stable_ms` is the age after
    /// which an abnormal close no longer counts against the line.
    pub fn to_outcome(&self, stable_ms: u64) -> Option<(Outcome, Option<u16>, u64)> {
        match *self {
            WsEvent::Open { handshake_ms } => Some((Outcome::Ok, Some(101), handshake_ms)),
            WsEvent::HandshakeFailed {
                error: Some(e),
                cost_ms,
                ..
            } => Some((e, None, cost_ms)),
            WsEvent::HandshakeFailed {
                status: Some(401 | 403),
                cost_ms,
                ..
            } => Some((Outcome::Http4xx, None, cost_ms)),
            // Any other answer (200 from a CDN that does not upgrade, 5xx, 404 on a
            // missing route) means this line cannot carry the socket.
            WsEvent::HandshakeFailed { cost_ms, .. } => Some((Outcome::Http5xx, None, cost_ms)),
            WsEvent::FirstMessage { .. } => None,
            WsEvent::Closed {
                code,
                duration_ms,
                cause,
            } => {
                let normal = matches!(code, 1000 | 1001);
                let blameless = cause != CloseCause::Remote;
                if normal || blameless || duration_ms >= stable_ms {
                    None
                } else {
                    Some((Outcome::Http5xx, None, duration_ms))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STABLE: u64 = 30_000;

    #[test]
    fn open_is_a_success_costing_the_handshake() {
        let o = WsEvent::Open { handshake_ms: 120 }.to_outcome(STABLE);
        assert_eq!(o, Some((Outcome::Ok, Some(101), 120)));
    }

    #[test]
    fn handshake_failures_are_line_faults_except_auth() {
        let f = |status, error| {
            WsEvent::HandshakeFailed {
                status,
                error,
                cost_ms: 30,
            }
            .to_outcome(STABLE)
            .map(|(o, s, _)| o.is_line_fault(s))
        };
        assert_eq!(
            f(Some(200), None),
            Some(true),
            "a CDN that does not upgrade"
        );
        assert_eq!(f(Some(502), None), Some(true));
        assert_eq!(f(Some(403), None), Some(false));
        assert_eq!(f(None, Some(Outcome::TlsFailure)), Some(true));
        assert_eq!(f(None, Some(Outcome::LocalNetwork)), Some(false));
    }

    #[test]
    fn only_early_abnormal_remote_closes_count() {
        let close = |code, duration_ms, cause| {
            WsEvent::Closed {
                code,
                duration_ms,
                cause,
            }
            .to_outcome(STABLE)
        };
        assert!(close(1006, 2_000, CloseCause::Remote).is_some());
        assert!(close(1011, 29_999, CloseCause::Remote).is_some());
        assert_eq!(close(1000, 2_000, CloseCause::Remote), None);
        assert_eq!(close(1001, 2_000, CloseCause::Remote), None);
        assert_eq!(
            close(1006, 30_000, CloseCause::Remote),
            None,
            "after a stable period"
        );
        assert_eq!(close(1006, 2_000, CloseCause::NetworkChanged), None);
        assert_eq!(close(1006, 2_000, CloseCause::Background), None);
        assert_eq!(
            WsEvent::FirstMessage { after_open_ms: 5 }.to_outcome(STABLE),
            None
        );
    }

    #[test]
    fn causes_parse() {
        for c in [
            CloseCause::Remote,
            CloseCause::NetworkChanged,
            CloseCause::Background,
            CloseCause::Local,
        ] {
            assert_eq!(c.as_str().parse::<CloseCause>(), Ok(c));
        }
        assert!("x".parse::<CloseCause>().is_err());
    }
}
