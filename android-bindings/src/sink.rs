//! The foreign trace sink: Kotlin implements [`TraceSink`] and receives each (sampled)
//! event as one JSON object; [`ForeignSink`] adapts it to the core's sink trait.

use linekit_core::trace::{TraceEvent, TraceSink as CoreSink};

/// Receives trace events as JSON text. Implementations must be cheap and must not block:
/// they run on the request path (only for sampled events).
#[uniffi::export(callback_interface)]
pub trait TraceSink: Send + Sync {
    /// One event, a JSON object (redacted: no URLs, tokens or host lists).
    fn emit(&self, event_json: String);
}

/// Adapts a foreign [`TraceSink`] to the core's sink.
pub(crate) struct ForeignSink(pub(crate) Box<dyn TraceSink>);

impl CoreSink for ForeignSink {
    fn emit(&self, event: &TraceEvent) {
        self.0.emit(event.to_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::line::{Outcome, Protocol, Timings};
    use linekit_core::trace::{AttemptTrace, TraceBody, TraceLine};
    use std::sync::{Arc, Mutex};

    struct Collect(Arc<Mutex<Vec<String>>>);
    impl TraceSink for Collect {
        fn emit(&self, event_json: String) {
            if let Ok(mut v) = self.0.lock() {
                v.push(event_json);
            }
        }
    }

    #[test]
    fn events_arrive_as_json() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = ForeignSink(Box::new(Collect(seen.clone())));
        let ev = TraceEvent::new(
            0,
            TraceBody::Report(AttemptTrace {
                on: TraceLine::new("spot", Protocol::Http, "ali"),
                outcome: Outcome::Ok,
                status: None,
                timings: Timings::default(),
                total_ms: None,
            }),
        );
        CoreSink::emit(&sink, &ev);
        let got = seen.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(got.len(), 1);
        assert!(got[0].contains("\"line\":\"ali\""), "{}", got[0]);
    }
}
