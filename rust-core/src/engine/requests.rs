//! The requests service: what the engine starts through the
//! [`crate::transport::Transport`] (probes, HTTPDNS queries, config fetches, warms). Each gets an
//! id, an entry in the in-flight table (rank [`Rank::InFlight`], never held across a call
//! out) and its own deadline timer; whichever comes first — the transport's completion or
//! the deadline — finishes it exactly once, inside the engine's callback gate, and nothing
//! is applied after `close`. The service also owns the consent flag (an atomic, no lock):
//! without consent nothing is sent (module `consent`).

use super::lock_order::{Rank, Ranked};
use super::{httpdns, Inner};
use crate::line::Protocol;
use crate::runtime::TimerId;
use crate::transport::{Completion, RequestKind, Transport, TransportRequest, TransportResult};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// A warm of one line of a business line's HTTP pool.
    Warm {
        biz: Arc<str>,
        line: Arc<str>,
        started_at: u64,
    },
}

#[derive(Debug)]
struct InFlight {
    pending: Pending,
    deadline: Option<TimerId>,
}

/// The transport, the requests started through it and whether any may be sent.
pub(super) struct Requests {
    /// None: the engine never reaches the network (no probes, HTTPDNS or fetches).
    transport: Option<Arc<dyn Transport>>,
    inflight: Ranked<HashMap<u64, InFlight>>,
    next_id: AtomicU64,
    /// Whether the engine may send its own requests (module `consent`).
    consent: AtomicBool,
}

impl Requests {
    /// Requests through `transport`, consented from the start or not.
    pub(super) fn new(transport: Option<Arc<dyn Transport>>, consented: bool) -> Self {
        Requests {
            transport,
            inflight: Ranked::new(Rank::InFlight, HashMap::new()),
            next_id: AtomicU64::new(1),
            consent: AtomicBool::new(consented),
        }
    }

    /// Whether own requests may be sent now.
    #[inline]
    pub(super) fn consented(&self) -> bool {
        self.consent.load(Ordering::Acquire)
    }

    /// Grants (`true`) or withdraws consent; returns whether it was granted before.
    pub(super) fn set_consent(&self, granted: bool) -> bool {
        self.consent.swap(granted, Ordering::AcqRel)
    }

    /// Whether the engine has a transport (without one it never starts a request).
    #[inline]
    pub(super) fn has_transport(&self) -> bool {
        self.transport.is_some()
    }

    /// Whether the transport warms the business client's pool
    /// ([`Transport::warms_business_pool`]).
    pub(super) fn warms_business_pool(&self) -> bool {
        self.transport
            .as_ref()
            .is_some_and(|t| t.warms_business_pool())
    }

    /// Requests started and not finished yet.
    pub(super) fn in_flight(&self) -> usize {
        self.inflight.lock().len()
    }

    /// Forgets every request in flight and asks the transport to cancel them (`close`).
    pub(super) fn cancel_all(&self) {
        let cancelled: Vec<u64> = self.inflight.lock().drain().map(|(id, _)| id).collect();
        if let Some(transport) = &self.transport {
            for id in cancelled {
                transport.cancel(id);
            }
        }
    }
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
        let Some(transport) = self.requests.transport.clone() else {
            return;
        };
        if !self.consented() {
            self.release_unsent(pending);
            return;
        }
        let id = self.requests.next_id.fetch_add(1, Ordering::Relaxed);
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
                    if let Some(t) = &inner.requests.transport {
                        t.cancel(id);
                    }
                }
            }),
        );
        self.requests
            .inflight
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

    /// A request finished (answer, error or deadline): applies its result once, inside
    /// the gate.
    pub(super) fn finish(self: &Arc<Self>, id: u64, result: TransportResult) {
        let Some(_inside) = self.gate.enter() else {
            return;
        };
        let flight = self.requests.inflight.lock().remove(&id);
        let Some(flight) = flight else {
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
            Pending::Warm {
                biz,
                line,
                started_at,
            } => self.finish_warm(&biz, &line, started_at, &result, now),
        }
    }
}
