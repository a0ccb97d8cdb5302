//! WebSocket lifecycle events over UniFFI.
//!
//! Kotlin's `LineKitWebSocket` watches each socket and reports what happened on its line
//! with [`NativeLineKit::report_ws`]; the core (`linekit_core::line::ws`) decides what each
//! event means for the `ws` pool (handshake latency as the line's latency, a refused
//! upgrade or an early abnormal close as a line fault, normal or blameless closes as
//! nothing) and answers with the outcome it recorded, so Kotlin never re-derives it.
//! These are a few calls per connection, not per request, so there is no JNI path for
//! them. The event is the core's own [`WsEvent`] (its UniFFI form is derived where it is
//! declared); the outcome and the close cause in it travel as their wire codes.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::line::{Outcome, WsEvent};

#[uniffi::export]
impl NativeLineKit {
    /// Records a WebSocket lifecycle event on line `line` of business line `biz`'s `ws`
    /// pool and returns the outcome the core attributes to it (none when the event says
    /// nothing about the line). Unknown business lines or lines are ignored.
    pub fn report_ws(
        &self,
        biz: String,
        line: String,
        event: WsEvent,
    ) -> Result<Option<Outcome>, LineKitError> {
        let engine = self.engine()?;
        engine.report_ws(&biz, &line, event);
        Ok(outcome_of(&engine, &event))
    }

    /// The outcome the core would attribute to `event`, without recording it (for
    /// observers of a handshake that another component reports).
    pub fn ws_event_outcome(&self, event: WsEvent) -> Result<Option<Outcome>, LineKitError> {
        let engine = self.engine()?;
        Ok(outcome_of(&engine, &event))
    }

    /// `thresholds.ws_stable_ms` of the config in force: a socket open this long is
    /// stable (an abnormal close no longer counts against its line).
    pub fn ws_stable_ms(&self) -> Result<u64, LineKitError> {
        Ok(self.engine()?.config().thresholds.ws_stable_ms)
    }
}

fn outcome_of(engine: &linekit_core::LineKit, event: &WsEvent) -> Option<Outcome> {
    let stable_ms = engine.config().thresholds.ws_stable_ms;
    event.to_outcome(stable_ms).map(|(o, _, _)| o)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{"version":1,"allow_cleartext":true,"biz_lines":{"spot":{"match":["api.linekit.test"],
        "http":[{"id":"h","url":"http://127.0.0.1:1"}],
        "ws":[{"id":"a","url":"ws://127.0.0.1:2"},{"id":"b","url":"ws://127.0.0.1:3"}]}}}"#;

    fn ws_pool(kit: &NativeLineKit) -> Vec<serde_json::Value> {
        let state: serde_json::Value =
            serde_json::from_str(&kit.state_json().expect("open")).expect("json");
        state["pools"]["spot/ws"]
            .as_array()
            .expect("ws pool")
            .clone()
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
        assert_eq!(recorded, Some(Outcome::Http5xx));
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
            Some(Outcome::Http4xx)
        );
        kit.shutdown();
        assert!(matches!(
            kit.report_ws("spot".into(), "a".into(), WsEvent::Open { handshake_ms: 1 }),
            Err(LineKitError::Closed(_))
        ));
    }
}
