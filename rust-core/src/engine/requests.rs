//! Requests the engine starts through the [`crate::transport::Transport`]: probes and
//! HTTPDNS queries. Each gets an id, an entry in the in-flight table and its own deadline
//! timer; whichever comes first — the transport's completion or the deadline — finishes
//! it exactly once, and nothing is applied after `close`. Without consent nothing is sent
//! (module `consent`).

use super::{httpdns, Inner};
use crate::line::Protocol;
use crate::runtime::TimerId;
use crate::transport::{Completion, RequestKind, TransportRequest, TransportResult};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// A request the engine started and is waiting for.
#[derive(Debug)]
pub(super) enum Pending {
    /// A detect probe of one line.
    Probe {
        biz: Arc<str>,
        protocol: Protocol,
        line: Arc<str>,
        started_at: u64,
    },
    /// An HTTPDNS query for some hosts on one network.
    HttpDns(httpdns::DnsQuery),
    /// A fetch of `remote.urls[index]` in fetch round `round`.
    Config { round: u64, index: usize },
}

#[derive(Debug)]
pub(super) struct InFlight {
    pending: Pending,
    deadline: Option<TimerId>,
}

impl Inner {
    /// Starts one request through the transport with its own deadline timer.
    pub(super) fn start_request(
        self: &Arc<Self>,
        kind: RequestKind,
        method: &str,
        url: String,
        headers: Vec<(String, String)>,
        timeout_ms: u64,
        pending: Pending,
    ) {
        let Some(transport) = self.transport.clone() else {
            return;
        };
        if !self.consented() {
            self.release_unsent(pending);
            return;
        }
        let id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let weak = Arc::downgrade(self);
        let deadline = self.runtime.schedule_in(
            timeout_ms,
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    // Record the timeout first: a transport may answer `cancel` with a
                    // quick "cancelled" completion, which must not win over the deadline.
                    inner.finish(
                        id,
                        TransportResult::Failed(crate::transport::TransportError::Timeout),
                    );
                    if let Some(t) = &inner.transport {
                        t.cancel(id);
                    }
                }
            }),
        );
        self.inflight
            .lock()
            .insert(id, InFlight { pending, deadline });
        let weak: Weak<Inner> = Arc::downgrade(self);
        transport.start(
            TransportRequest {
                id,
                kind,
                method: method.to_string(),
                url,
                headers,
                timeout_ms,
            },
            Completion::new(move |result| {
                if let Some(inner) = weak.upgrade() {
                    inner.finish(id, result);
                }
            }),
        );
    }

    /// A request finished (answer, error or deadline): applies its result once.
    pub(super) fn finish(self: &Arc<Self>, id: u64, result: TransportResult) {
        let open = self.open.read();
        if !*open {
            return;
        }
        let Some(flight) = self.inflight.lock().remove(&id) else {
            return;
        };
        if let Some(timer) = flight.deadline {
            self.runtime.cancel(timer);
        }
        let now = self.clock.now_ms();
        match flight.pending {
            Pending::Probe {
                biz,
                protocol,
                line,
                started_at,
            } => self.finish_probe(&biz, protocol, &line, started_at, &result, now),
            Pending::HttpDns(query) => self.finish_httpdns(query, result),
            Pending::Config { round, index } => self.finish_config_fetch(round, index, result),
        }
    }
}
