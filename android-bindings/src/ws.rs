//! WebSocket lifecycle events over UniFFI (issue 7).
//!
//! Kotlin's `LineKitWebSocket` watches each socket and reports what happened on its line
//! with [`NativeLineKit::report_ws`]; the core (`linekit_core::line::ws`) decides what each
//! event means for the `ws` pool (handshake latency as the line's latency, a refused
//! upgrade or an early abnormal close as a line fault, normal or blameless closes as
//! nothing). These are a few calls per connection, not per request, so there is no JNI
//! fast path for them.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use crate::records::Outcome;
use linekit_core::line as core_line;

/// Why a WebSocket closed, as far as the app knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum WsCloseCause {
    /// The server or the path closed it.
    Remote,
    /// The device's default network changed around the drop.
    NetworkChanged,
    /// The app was in the background when it dropped.
    Background,
    /// The app closed it itself.
    Local,
}

impl From<WsCloseCause> for core_line::CloseCause {
    fn from(c: WsCloseCause) -> Self {
        match c {
            WsCloseCause::Remote => core_line::CloseCause::Remote,
            WsCloseCause::NetworkChanged => core_line::CloseCause::NetworkChanged,
            WsCloseCause::Background => core_line::CloseCause::Background,
            WsCloseCause::Local => core_line::CloseCause::Local,
        }
    }
}

/// One WebSocket lifecycle event on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum WsEvent {
    /// The handshake completed (`onOpen`).
    Open {
        /// Call start → open, in milliseconds.
        handshake_ms: u64,
    },
    /// The handshake failed: a status other than 101, or a transport error.
    HandshakeFailed {
        /// Status of the non-101 response, if one arrived.
        status: Option<u16>,
        /// Transport failure kind when no response arrived.
        error: Option<Outcome>,
        /// Time spent before failing, in milliseconds.
        cost_ms: u64,
    },
    /// The first message arrived.
    FirstMessage {
        /// Open → first message, in milliseconds.
        after_open_ms: u64,
    },
    /// The socket closed or failed after opening.
    Closed {
        /// Close code (1006 for a drop without a close frame).
        code: u16,
        /// Open → close, in milliseconds.
        duration_ms: u64,
        /// What caused it.
        cause: WsCloseCause,
    },
}

impl From<WsEvent> for core_line::WsEvent {
    fn from(e: WsEvent) -> Self {
        match e {
            WsEvent::Open { handshake_ms } => core_line::WsEvent::Open { handshake_ms },
            WsEvent::HandshakeFailed {
                status,
                error,
                cost_ms,
            } => core_line::WsEvent::HandshakeFailed {
                status,
                error: error.map(Into::into),
                cost_ms,
            },
            WsEvent::FirstMessage { after_open_ms } => {
                core_line::WsEvent::FirstMessage { after_open_ms }
            }
            WsEvent::Closed {
                code,
                duration_ms,
                cause,
            } => core_line::WsEvent::Closed {
                code,
                duration_ms,
                cause: cause.into(),
            },
        }
    }
}

#[uniffi::export]
impl NativeLineKit {
    /// Records a WebSocket lifecycle event on line `line` of business line `biz`'s `ws`
    /// pool. Unknown business lines or lines are ignored.
    pub fn report_ws(&self, biz: String, line: String, event: WsEvent) -> Result<(), LineKitError> {
        self.engine()?.report_ws(&biz, &line, event.into());
        Ok(())
    }

    /// `thresholds.ws_stable_ms` of the config in force: a socket open this long is
    /// stable (an abnormal close no longer counts against its line).
    pub fn ws_stable_ms(&self) -> Result<u64, LineKitError> {
        Ok(self.engine()?.config().thresholds.ws_stable_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{"version":1,"allow_cleartext":true,"biz_lines":{"spot":{"match":["api.linekit.test"],
        "http":[{"id":"h","url":"http://127.0.0.1:1"}],
        "ws":[{"id":"a","url":"ws://127.0.0.1:2"},{"id":"b","url":"ws://127.0.0.1:3"}]}}}"#;

    fn ws_pool(kit: &NativeLineKit) -> Vec<serde_json::Value> {
        let state: serde_json::Value =
            serde_json::from_str(&kit.state().expect("open")).expect("json");
        state["pools"]["spot/ws"]
            .as_array()
            .expect("ws pool")
            .clone()
    }

    #[test]
    fn events_convert_field_by_field() {
        let e: core_line::WsEvent = WsEvent::HandshakeFailed {
            status: None,
            error: Some(Outcome::TlsFailure),
            cost_ms: 7,
        }
        .into();
        assert_eq!(
            e,
            core_line::WsEvent::HandshakeFailed {
                status: None,
                error: Some(core_line::Outcome::TlsFailure),
                cost_ms: 7
            }
        );
        let e: core_line::WsEvent = WsEvent::Closed {
            code: 1006,
            duration_ms: 10,
            cause: WsCloseCause::Background,
        }
        .into();
        assert_eq!(
            e,
            core_line::WsEvent::Closed {
                code: 1006,
                duration_ms: 10,
                cause: core_line::CloseCause::Background
            }
        );
        for c in [
            WsCloseCause::Remote,
            WsCloseCause::NetworkChanged,
            WsCloseCause::Background,
            WsCloseCause::Local,
        ] {
            let core: core_line::CloseCause = c.into();
            assert_eq!(format!("{c:?}"), format!("{core:?}"));
        }
    }

    #[test]
    fn a_refused_upgrade_demotes_the_ws_line() {
        let kit = NativeLineKit::from_json(CONFIG.into()).expect("valid config");
        kit.report_ws(
            "spot".into(),
            "a".into(),
            WsEvent::HandshakeFailed {
                status: Some(200),
                error: None,
                cost_ms: 5,
            },
        )
        .expect("open");
        let pool = ws_pool(&kit);
        assert_eq!(pool[0]["id"], "b", "{pool:?}");
        assert_eq!(kit.ws_stable_ms().expect("open"), 30_000);
        kit.shutdown();
        assert!(matches!(
            kit.report_ws("spot".into(), "a".into(), WsEvent::Open { handshake_ms: 1 }),
            Err(LineKitError::Closed(_))
        ));
    }
}
