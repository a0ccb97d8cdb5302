//! WebSocket lifecycle events over UniFFI.
//!
//! Kotlin's `LineKitWebSocket` watches each socket and reports what happened on its line
//! with [`NativeLineKit::report_ws`]; the core (`linekit_core::line::ws`) decides what each
//! event means for the `ws` pool (handshake latency as the line's latency, a refused
//! upgrade or an early abnormal close as a line fault, normal or blameless closes as
//! nothing) and answers with the outcome it recorded, so Kotlin never re-derives it.
//! These are a few calls per connection, not per request, so there is no JNI path for
//! them. The outcome and the close cause travel as their wire codes (see `records`).

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::line::{self as core_line, CloseCause, Outcome};

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
        /// Code of the transport failure's `Outcome` when no response arrived.
        error: Option<u8>,
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
        /// Code of the `CloseCause` (what the app knew about the drop).
        cause: u8,
    },
}

fn bad_code(what: &str, code: u8) -> LineKitError {
    LineKitError::InvalidArgument(format!("unknown {what} code {code}"))
}

impl TryFrom<WsEvent> for core_line::WsEvent {
    type Error = LineKitError;
    fn try_from(e: WsEvent) -> Result<Self, LineKitError> {
        Ok(match e {
            WsEvent::Open { handshake_ms } => core_line::WsEvent::Open { handshake_ms },
            WsEvent::HandshakeFailed {
                status,
                error,
                cost_ms,
            } => core_line::WsEvent::HandshakeFailed {
                status,
                error: match error {
                    None => None,
                    Some(c) => Some(
                        Outcome::from_code(i32::from(c)).ok_or_else(|| bad_code("outcome", c))?,
                    ),
                },
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
                cause: CloseCause::from_code(i32::from(cause))
                    .ok_or_else(|| bad_code("close cause", cause))?,
            },
        })
    }
}

#[uniffi::export]
impl NativeLineKit {
    /// Records a WebSocket lifecycle event on line `line` of business line `biz`'s `ws`
    /// pool and returns the code of the outcome the core attributes to it (none when the
    /// event says nothing about the line). Unknown business lines or lines are ignored.
    pub fn report_ws(
        &self,
        biz: String,
        line: String,
        event: WsEvent,
    ) -> Result<Option<u8>, LineKitError> {
        let engine = self.engine()?;
        let event: core_line::WsEvent = event.try_into()?;
        engine.report_ws(&biz, &line, event);
        Ok(outcome_of(&engine, &event))
    }

    /// The code of the outcome the core would attribute to `event`, without recording it
    /// (for observers of a handshake that another component reports).
    pub fn ws_event_outcome(&self, event: WsEvent) -> Result<Option<u8>, LineKitError> {
        let engine = self.engine()?;
        let event: core_line::WsEvent = event.try_into()?;
        Ok(outcome_of(&engine, &event))
    }

    /// `thresholds.ws_stable_ms` of the config in force: a socket open this long is
    /// stable (an abnormal close no longer counts against its line).
    pub fn ws_stable_ms(&self) -> Result<u64, LineKitError> {
        Ok(self.engine()?.config().thresholds.ws_stable_ms)
    }
}

fn outcome_of(engine: &linekit_core::LineKit, event: &core_line::WsEvent) -> Option<u8> {
    let stable_ms = engine.config().thresholds.ws_stable_ms;
    event.to_outcome(stable_ms).map(|(o, _, _)| o.code())
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
    fn events_convert_field_by_field_and_bad_codes_are_refused() {
        let e: core_line::WsEvent = WsEvent::HandshakeFailed {
            status: None,
            error: Some(Outcome::TlsFailure.code()),
            cost_ms: 7,
        }
        .try_into()
        .expect("known codes");
        assert_eq!(
            e,
            core_line::WsEvent::HandshakeFailed {
                status: None,
                error: Some(Outcome::TlsFailure),
                cost_ms: 7
            }
        );
        let e: core_line::WsEvent = WsEvent::Closed {
            code: 1006,
            duration_ms: 10,
            cause: CloseCause::Background.code(),
        }
        .try_into()
        .expect("known codes");
        assert_eq!(
            e,
            core_line::WsEvent::Closed {
                code: 1006,
                duration_ms: 10,
                cause: CloseCause::Background
            }
        );
        let bad = WsEvent::Closed {
            code: 1006,
            duration_ms: 1,
            cause: 99,
        };
        assert!(core_line::WsEvent::try_from(bad).is_err());
    }

    #[test]
    fn a_refused_upgrade_demotes_the_ws_line_and_says_how_it_counted() {
        let kit = NativeLineKit::from_json(CONFIG.into()).expect("valid config");
        let recorded = kit
            .report_ws(
                "spot".into(),
                "a".into(),
                WsEvent::HandshakeFailed {
                    status: Some(200),
                    error: None,
                    cost_ms: 5,
                },
            )
            .expect("open");
        assert_eq!(recorded, Some(Outcome::Http5xx.code()));
        let pool = ws_pool(&kit);
        assert_eq!(pool[0]["id"], "b", "{pool:?}");
        assert_eq!(kit.ws_stable_ms().expect("open"), 30_000);
        let auth = WsEvent::HandshakeFailed {
            status: Some(403),
            error: None,
            cost_ms: 5,
        };
        assert_eq!(
            kit.ws_event_outcome(auth).expect("open"),
            Some(Outcome::Http4xx.code())
        );
        kit.shutdown();
        assert!(matches!(
            kit.report_ws("spot".into(), "a".into(), WsEvent::Open { handshake_ms: 1 }),
            Err(LineKitError::Closed(_))
        ));
    }
}
