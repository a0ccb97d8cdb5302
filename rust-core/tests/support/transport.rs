//! A transport that records every request and leaves it waiting until the test answers it,
//! so a test decides when and how each probe, HTTPDNS query or config fetch completes.

#![allow(dead_code)]

use linekit_core::transport::{
    Completion, RequestKind, Transport, TransportRequest, TransportResult,
};
use parking_lot::Mutex;

/// Records requests; the test answers them.
#[derive(Default)]
pub struct RecordingTransport {
    started: Mutex<Vec<(TransportRequest, Option<Completion>)>>,
}

impl RecordingTransport {
    /// Every request started so far, oldest first.
    pub fn requests(&self) -> Vec<TransportRequest> {
        self.started.lock().iter().map(|(r, _)| r.clone()).collect()
    }

    /// The requests of one kind, oldest first.
    pub fn requests_of(&self, kind: RequestKind) -> Vec<TransportRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.kind == kind)
            .collect()
    }

    /// How many requests still wait for an answer.
    pub fn waiting(&self) -> usize {
        self.started
            .lock()
            .iter()
            .filter(|(_, d)| d.is_some())
            .count()
    }

    /// Takes every request still waiting, oldest first, with the completion that answers
    /// it.
    pub fn take_waiting(&self) -> Vec<(TransportRequest, Completion)> {
        self.started
            .lock()
            .iter_mut()
            .filter_map(|(r, d)| d.take().map(|d| (r.clone(), d)))
            .collect()
    }

    /// Completes request `id`, which must still be waiting.
    pub fn answer(&self, id: u64, result: TransportResult) {
        let done = self
            .started
            .lock()
            .iter_mut()
            .find(|(r, _)| r.id == id)
            .and_then(|(_, d)| d.take());
        done.expect("request waiting").complete(result);
    }

    /// Answers request `id` with a 200 carrying `body`.
    pub fn ok(&self, id: u64, body: &[u8]) {
        self.answer(
            id,
            TransportResult::Response {
                status: 200,
                body: body.to_vec(),
                headers: Vec::new(),
            },
        );
    }
}

impl Transport for RecordingTransport {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.started.lock().push((request, Some(done)));
    }
}
