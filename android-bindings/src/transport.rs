//! The foreign transport: Kotlin implements [`HttpTransport`] (with its own `OkHttpClient`)
//! and the core reaches the network for probes and HTTPDNS queries through it.
//!
//! The contract is the core's callback one ([`linekit_core::transport::Transport`]):
//! `start` is called on the engine's runtime thread and must return at once (the Kotlin
//! side enqueues an OkHttp call); the answer comes back later, from any thread, through
//! the [`TransportCompletion`] object handed to `start`. No runtime thread ever waits for
//! the network. A completion accepts one result; later ones are ignored. A completion that
//! is dropped without a result counts as a cancellation, and the engine's own deadline
//! covers a transport that never answers.
//!
//! A panic (or an unexpected foreign exception surfacing as one) inside `start` is caught
//! here so it cannot take the runtime thread down; the request then times out.
//!
//! The request kind and the failure are the core's own [`RequestKind`] and
//! [`TransportError`] (their UniFFI form is derived where they are declared); the request
//! and the response are records of their own here because headers cross as name/value
//! records, not tuples.
//!
//! Numbers cross as signed integers (`i64` ids and timeouts, an `i32` status): an app may
//! implement [`HttpTransport`] in Java, which has no unsigned types (Kotlin's `ULong`
//! would give the method a mangled name Java cannot implement). Request ids are the
//! core's `u64` reinterpreted bit for bit ([`wire_id`]), so `start` and `cancel` name a
//! request by the same number.

use linekit_core::transport::{
    Completion, RequestKind, Transport, TransportError, TransportRequest as CoreRequest,
    TransportResult, MAX_CONFIG_BODY_BYTES, MAX_HEADERS,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// One request header.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HttpHeader {
    /// Header name.
    pub name: String,
    /// Header value.
    pub value: String,
}

/// One HTTP request the core wants performed.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TransportRequest {
    /// Engine-assigned id (for `cancel`): opaque, any `i64`.
    pub id: i64,
    /// Probe, HTTPDNS query or config fetch.
    pub kind: RequestKind,
    /// HTTP method (`HEAD`, `GET`).
    pub method: String,
    /// Absolute URL: a fixed line origin or a provider endpoint, never a routed URL.
    pub url: String,
    /// Extra request headers.
    pub headers: Vec<HttpHeader>,
    /// The whole request (connect to last body byte) must finish within this many ms.
    pub timeout_ms: i64,
}

/// The result of one request.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum TransportOutcome {
    /// An HTTP response arrived (any status).
    Response {
        /// Status code (100..=999; anything else counts as a failed request).
        status: i32,
        /// Body, at most 64 KiB — 256 KiB for [`RequestKind::Config`] (a longer one
        /// must be reported as `TooLarge`).
        body: Vec<u8>,
        /// Response headers in arrival order (the core reads at most 64; config fetches
        /// need `ETag`); may be empty.
        headers: Vec<HttpHeader>,
    },
    /// No response.
    Failed {
        /// Why.
        error: TransportError,
    },
}

/// The id a request carries across the FFI: the core's id, bit for bit.
pub(crate) fn wire_id(id: u64) -> i64 {
    i64::from_ne_bytes(id.to_ne_bytes())
}

impl From<TransportOutcome> for TransportResult {
    fn from(o: TransportOutcome) -> Self {
        match o {
            TransportOutcome::Response { body, .. } if body.len() > MAX_CONFIG_BODY_BYTES => {
                TransportResult::Failed(TransportError::TooLarge)
            }
            TransportOutcome::Response { status, .. } if !(100..=999).contains(&status) => {
                TransportResult::Failed(TransportError::Other(
                    "the transport reported an impossible HTTP status".to_string(),
                ))
            }
            TransportOutcome::Response {
                status,
                body,
                headers,
            } => TransportResult::Response {
                // In 100..=999, checked above.
                status: u16::try_from(status).unwrap_or(u16::MAX),
                body,
                headers: headers
                    .into_iter()
                    .take(MAX_HEADERS)
                    .map(|h| (h.name, h.value))
                    .collect(),
            },
            TransportOutcome::Failed { error } => TransportResult::Failed(error),
        }
    }
}

/// The longest body the core accepts from the transport for a request of `kind` (a longer
/// one must be reported as `TooLarge`): the one limit both sides read.
#[uniffi::export]
pub fn transport_max_body_bytes(kind: RequestKind) -> i64 {
    i64::try_from(kind.max_body_bytes()).unwrap_or(i64::MAX)
}

/// Delivers the result of one request to the core. Thread-safe; the first `complete`
/// wins, later calls are ignored.
#[derive(uniffi::Object)]
pub struct TransportCompletion {
    done: Mutex<Option<Completion>>,
}

impl TransportCompletion {
    /// Wraps the core's completion.
    pub fn new(done: Completion) -> Self {
        TransportCompletion {
            done: Mutex::new(Some(done)),
        }
    }
}

#[uniffi::export]
impl TransportCompletion {
    /// Delivers the result. Returns whether it was the first (and therefore used).
    pub fn complete(&self, outcome: TransportOutcome) -> bool {
        let done = match self.done.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        match done {
            Some(done) => {
                done.complete(outcome.into());
                true
            }
            None => false,
        }
    }
}

/// Performs HTTP requests for the core (implemented in Kotlin by `OkHttpTransport`).
#[uniffi::export(callback_interface)]
pub trait HttpTransport: Send + Sync {
    /// Starts `request` and returns at once; calls `completion.complete` once, later.
    fn start(&self, request: TransportRequest, completion: Arc<TransportCompletion>);

    /// Best-effort cancellation of a started request (its [`TransportRequest::id`]).
    fn cancel(&self, id: i64);
}

/// Adapts a foreign [`HttpTransport`] to the core's [`Transport`].
pub(crate) struct ForeignTransport(pub(crate) Box<dyn HttpTransport>);

impl Transport for ForeignTransport {
    fn start(&self, request: CoreRequest, done: Completion) {
        let request = TransportRequest {
            id: wire_id(request.id),
            kind: request.kind,
            method: request.method,
            url: request.url,
            headers: request
                .headers
                .into_iter()
                .map(|(name, value)| HttpHeader { name, value })
                .collect(),
            timeout_ms: i64::try_from(request.timeout_ms).unwrap_or(i64::MAX),
        };
        // The per-kind body limit (64 KiB, 256 KiB for config fetches), whatever the
        // foreign side read.
        let limit = request.kind.max_body_bytes();
        let done = Completion::new(move |result| {
            done.complete(match result {
                TransportResult::Response { body, .. } if body.len() > limit => {
                    TransportResult::Failed(TransportError::TooLarge)
                }
                other => other,
            })
        });
        let completion = Arc::new(TransportCompletion::new(done));
        if catch_unwind(AssertUnwindSafe(|| self.0.start(request, completion))).is_err() {
            log::warn!("linekit: the transport failed to start a request");
        }
    }

    fn cancel(&self, id: u64) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.0.cancel(wire_id(id))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn completion_delivers_the_first_result_only() {
        let (tx, rx) = mpsc::channel();
        let c = TransportCompletion::new(Completion::new(move |r| {
            let _ = tx.send(r);
        }));
        assert!(c.complete(TransportOutcome::Response {
            status: 204,
            body: vec![1, 2],
            headers: vec![HttpHeader {
                name: "X-Deployment-Version".into(),
                value: "v2".into()
            }],
        }));
        assert!(!c.complete(TransportOutcome::Failed {
            error: TransportError::Timeout
        }));
        assert_eq!(
            rx.recv().ok(),
            Some(TransportResult::Response {
                status: 204,
                body: vec![1, 2],
                headers: vec![("X-Deployment-Version".into(), "v2".into())],
            })
        );
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn oversized_bodies_and_failures_map_to_core_errors() {
        let big = TransportOutcome::Response {
            status: 200,
            body: vec![0; MAX_CONFIG_BODY_BYTES + 1],
            headers: Vec::new(),
        };
        assert_eq!(
            TransportResult::from(big),
            TransportResult::Failed(TransportError::TooLarge)
        );
        assert_eq!(
            TransportResult::from(TransportOutcome::Failed {
                error: TransportError::ConnectRefused
            }),
            TransportResult::Failed(TransportError::ConnectRefused)
        );
    }

    struct Panicky;
    impl HttpTransport for Panicky {
        fn start(&self, _: TransportRequest, _: Arc<TransportCompletion>) {
            panic!("boom");
        }
        fn cancel(&self, _: i64) {
            panic!("boom");
        }
    }

    #[test]
    fn a_panicking_transport_cannot_unwind_into_the_runtime() {
        let (tx, rx) = mpsc::channel();
        let t = ForeignTransport(Box::new(Panicky));
        t.start(
            CoreRequest {
                id: 1,
                kind: RequestKind::Probe,
                method: "HEAD".into(),
                url: "http://127.0.0.1:1/line/ping".into(),
                headers: vec![("a".into(), "b".into())],
                timeout_ms: 10,
            },
            Completion::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        t.cancel(1);
        // The completion was dropped without a result.
        assert!(rx.try_recv().is_err());
    }

    /// Answers every request at once with a body of `len` bytes and an ETag.
    struct Sized(usize);
    impl HttpTransport for Sized {
        fn start(&self, _: TransportRequest, completion: Arc<TransportCompletion>) {
            completion.complete(TransportOutcome::Response {
                status: 200,
                body: vec![b'x'; self.0],
                headers: vec![HttpHeader {
                    name: "ETag".into(),
                    value: "\"e\"".into(),
                }],
            });
        }
        fn cancel(&self, _: i64) {}
    }

    /// Records the ids and timeouts it is given.
    struct Recording(Arc<Mutex<Vec<(String, i64)>>>);
    impl HttpTransport for Recording {
        fn start(&self, request: TransportRequest, _: Arc<TransportCompletion>) {
            if let Ok(mut seen) = self.0.lock() {
                seen.push(("start".into(), request.id));
                seen.push(("timeout".into(), request.timeout_ms));
            }
        }
        fn cancel(&self, id: i64) {
            if let Ok(mut seen) = self.0.lock() {
                seen.push(("cancel".into(), id));
            }
        }
    }

    #[test]
    fn ids_cross_as_signed_numbers_and_cancel_names_the_started_request() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let t = ForeignTransport(Box::new(Recording(seen.clone())));
        for id in [1, u64::MAX, 1 << 63] {
            t.start(
                CoreRequest {
                    id,
                    kind: RequestKind::Probe,
                    method: "HEAD".into(),
                    url: "http://127.0.0.1:1/line/ping".into(),
                    headers: vec![],
                    timeout_ms: u64::MAX,
                },
                Completion::new(|_| {}),
            );
            t.cancel(id);
        }
        let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
        let ids = |what: &str| -> Vec<i64> {
            seen.iter()
                .filter(|(w, _)| w == what)
                .map(|(_, v)| *v)
                .collect()
        };
        assert_eq!(ids("start"), vec![1, -1, i64::MIN]);
        assert_eq!(ids("cancel"), ids("start"));
        assert_eq!(ids("timeout"), vec![i64::MAX; 3]);
    }

    #[test]
    fn a_status_outside_http_is_a_failure() {
        for status in [-1, 0, 99, 1000, i32::MAX] {
            let r = TransportResult::from(TransportOutcome::Response {
                status,
                body: vec![],
                headers: vec![],
            });
            assert!(
                matches!(r, TransportResult::Failed(TransportError::Other(_))),
                "{status}: {r:?}"
            );
        }
        let ok = TransportResult::from(TransportOutcome::Response {
            status: 204,
            body: vec![],
            headers: vec![],
        });
        assert!(matches!(ok, TransportResult::Response { status: 204, .. }));
    }

    fn fetch(kind: RequestKind, len: usize) -> TransportResult {
        let (tx, rx) = mpsc::channel();
        ForeignTransport(Box::new(Sized(len))).start(
            CoreRequest {
                id: 1,
                kind,
                method: "GET".into(),
                url: "https://cfg.example.com/lk.json".into(),
                headers: vec![],
                timeout_ms: 10,
            },
            Completion::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        rx.recv().unwrap()
    }

    #[test]
    fn body_limits_are_per_kind_and_headers_cross() {
        let over_64k = 64 * 1024 + 1;
        assert_eq!(
            fetch(RequestKind::HttpDns, over_64k),
            TransportResult::Failed(TransportError::TooLarge)
        );
        assert_eq!(
            fetch(RequestKind::Probe, over_64k),
            TransportResult::Failed(TransportError::TooLarge)
        );
        let config = fetch(RequestKind::Config, over_64k);
        assert_eq!(config.header("etag"), Some("\"e\""));
        assert_eq!(
            fetch(RequestKind::Config, MAX_CONFIG_BODY_BYTES + 1),
            TransportResult::Failed(TransportError::TooLarge)
        );
    }
}
