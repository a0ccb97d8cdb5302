//! The engine's lock order (the `linekit_core::engine` module docs) as seen from outside:
//! a callback that takes an engine lock out of order fails at once in a debug build,
//! naming both locks, and a transport that answers inside `start` (as the Kotlin transport
//! does for a malformed URL or once it is closed) is handled on the same stack without
//! breaking the order.

// The check runs in debug builds only (release builds carry no rank at all).
#![cfg(debug_assertions)]

use linekit_core::clock::ManualClock;
use linekit_core::engine::{LineKit, RuntimeMode};
use linekit_core::trace::{MemorySink, TraceBody, TraceEvent, TraceSink};
use linekit_core::transport::{
    Completion, RequestKind, Transport, TransportError, TransportRequest, TransportResult,
};
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock, Weak};

/// A config of `version` with one business line, plus the `extra` top-level fields.
fn config(version: u64, extra: &str) -> String {
    format!(
        r#"{{"version":{version},"biz_lines":{{"api":{{"match":["api.example.com"],"http":[{{"id":"a","url":"https://a.example.com"}}]}}}}{extra}}}"#
    )
}

/// A sink that, once it knows its engine, asks it for the network on every event: a call
/// back into the engine from under the trace lock, the last in the order.
#[derive(Default)]
struct CallingBackSink {
    kit: OnceLock<Weak<LineKit>>,
}

impl TraceSink for CallingBackSink {
    fn emit(&self, _event: &TraceEvent) {
        if let Some(kit) = self.kit.get().and_then(Weak::upgrade) {
            let _ = kit.network();
        }
    }
}

#[test]
fn a_trace_sink_calling_back_into_the_engine_is_caught_as_an_inversion() {
    let sink = Arc::new(CallingBackSink::default());
    let kit = Arc::new(
        LineKit::builder()
            .config_json(config(1, ""))
            .clock(Arc::new(ManualClock::new(1_000, 1_700_000_000_000)))
            .trace_sink(sink.clone())
            .trace_all(true)
            .runtime_mode(RuntimeMode::Manual)
            .seed(3)
            .build()
            .unwrap(),
    );
    assert!(sink.kit.set(Arc::downgrade(&kit)).is_ok());

    let emitted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        kit.set_downgrade(true);
    }));
    let message = emitted.expect_err("the inversion panics");
    let message = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.contains("lock order: taking Network while holding Trace"),
        "{message}"
    );

    // Nothing stays held after the panic: the network lock is fine to take again (the
    // same check would fire if the trace lock still counted as held), and close returns.
    assert_eq!(kit.network().handle, 0);
    kit.close();
    assert!(kit.is_closed());
}

/// Answers every request inside `start`: requests to `bad` are refused, the others get
/// `body`.
struct AnsweringTransport {
    bad: &'static str,
    body: String,
    seen: Mutex<Vec<TransportRequest>>,
}

impl Transport for AnsweringTransport {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.seen.lock().push(request.clone());
        if request.url.contains(self.bad) {
            done.complete(TransportResult::Failed(TransportError::ConnectRefused));
        } else {
            done.complete(TransportResult::Response {
                status: 200,
                body: self.body.as_bytes().to_vec(),
                headers: Vec::new(),
            });
        }
    }
}

#[test]
fn a_transport_answering_inside_start_is_handled_on_the_same_stack() {
    let remote = r#","remote":{"urls":["https://cfg-a.example.com/lk.json","https://cfg-b.example.net/lk.json"],"interval_s":600,"jitter_s":0,"timeout_ms":2000}"#;
    let transport = Arc::new(AnsweringTransport {
        bad: "cfg-a",
        body: config(2, ""),
        seen: Mutex::new(Vec::new()),
    });
    let events = Arc::new(MemorySink::default());
    let kit = LineKit::builder()
        .config_json(config(1, remote))
        .clock(Arc::new(ManualClock::new(1_000, 1_700_000_000_000)))
        .transport(transport.clone())
        .trace_sink(events.clone())
        .trace_all(true)
        .runtime_mode(RuntimeMode::Manual)
        .seed(5)
        .build()
        .unwrap();

    // The round fails over from the first URL to the second and applies its answer, all
    // inside `refresh_config`: completion, next fetch, offer and trace events nest.
    assert_eq!(kit.config().version, 1);
    assert!(kit.refresh_config());
    let fetched: Vec<String> = transport
        .seen
        .lock()
        .iter()
        .filter(|r| r.kind == RequestKind::Config)
        .map(|r| r.url.clone())
        .collect();
    assert_eq!(
        fetched,
        [
            "https://cfg-a.example.com/lk.json",
            "https://cfg-b.example.net/lk.json"
        ]
    );
    assert_eq!(kit.config().version, 2);
    assert_eq!(kit.in_flight(), 0);
    let outcomes: Vec<String> = kit
        .config_status()
        .fetch
        .into_iter()
        .map(|f| f.last_outcome)
        .collect();
    assert_eq!(outcomes, ["connect_refused", "applied"]);
    let details: Vec<String> = events
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            TraceBody::Config(c) => c.detail,
            _ => None,
        })
        .collect();
    assert!(
        details
            .iter()
            .any(|d| d == "applied version 2 (remote.urls[1])"),
        "{details:?}"
    );
    kit.close();
}
