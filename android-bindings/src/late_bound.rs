//! Callbacks attached after the engine started: the trace sink and the transport of an
//! engine started over JNI.
//!
//! Kotlin starts the engine over the JNI path alone (`NativeStart.start`), so that
//! `build()` and the first route never wait for JNA and the UniFFI bindings. The app's
//! trace sink and the probe transport are UniFFI callback interfaces, so they can only
//! be handed over once the bindings are loaded, which Kotlin does right after, off the
//! caller's thread (`bind_engine`). Until then the engine holds a [`LateSink`] and a
//! [`LateTransport`]:
//!
//! - the sink keeps the events emitted meanwhile (at most [`MAX_EARLY_EVENTS`], the
//!   oldest first; later ones are counted and dropped) and hands them over in order when
//!   the foreign sink arrives;
//! - the transport keeps the requests started meanwhile (at most
//!   [`MAX_EARLY_REQUESTS`]; beyond that a request's completion is dropped, which the
//!   engine counts as a cancellation) and starts them, in order, on the foreign
//!   transport when it arrives. A cancelled early request leaves the queue. The engine's
//!   own deadlines cover a transport that never arrives.
//!
//! The transport also carries whether Kotlin has seen the business client yet
//! ([`LateTransport::business_pool_ready`]): warms go through that client's connection
//! pool, so the engine warms lines only once the interceptor has seen one (see
//! [`Transport::warms_business_pool`]).
//!
//! Both are one [`Handover`]: a queue until the callback arrives, then the callback
//! itself, published for lock-free use. The hand-over drains the queue into the callback
//! in rounds, never calling the callback under the queue's lock (a request that fails at
//! once completes on the spot, and the engine may start the next one, say the next
//! HTTPDNS provider, from inside that call): what arrives during a round waits for the
//! next one, and the callback is published once a round finds the queue empty. Until then
//! every caller queues, so nothing is delivered out of order, nothing twice. Attaching
//! twice keeps the first callback.

use crate::sink::TraceSink;
use crate::transport::{ForeignTransport, HttpTransport};
use linekit_core::trace::{TraceEvent, TraceSink as CoreSink};
use linekit_core::transport::{Completion, Transport, TransportRequest};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// How many trace events an engine keeps before its sink is attached.
pub const MAX_EARLY_EVENTS: usize = 1024;

/// How many requests an engine keeps before its transport is attached.
pub const MAX_EARLY_REQUESTS: usize = 256;

/// Items for a callback `T` that arrives later: queued (at most `limit`) until
/// [`Handover::attach`], then delivered to it directly.
struct Handover<T, I> {
    attached: OnceLock<T>,
    early: Mutex<Early<I>>,
    limit: usize,
}

struct Early<I> {
    items: Vec<I>,
    /// Items refused because the queue was full.
    dropped: u64,
    /// A hand-over is draining the queue.
    attaching: bool,
}

impl<T, I> Handover<T, I> {
    fn new(limit: usize) -> Self {
        Handover {
            attached: OnceLock::new(),
            early: Mutex::new(Early {
                items: Vec::new(),
                dropped: 0,
                attaching: false,
            }),
            limit,
        }
    }

    fn early(&self) -> MutexGuard<'_, Early<I>> {
        self.early.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Delivers `item` to the callback, or queues it; a full queue refuses it (dropped
    /// here, counted).
    fn offer(&self, item: I, deliver: impl FnOnce(&T, I)) {
        if let Some(t) = self.attached.get() {
            return deliver(t, item);
        }
        let mut early = self.early();
        if let Some(t) = self.attached.get() {
            drop(early);
            return deliver(t, item);
        }
        if early.items.len() < self.limit {
            early.items.push(item);
        } else {
            early.dropped += 1;
        }
    }

    /// Hands `target` over: every queued item first, in order, then every later one.
    /// Returns how many items were delivered from the queue and how many the full queue
    /// had refused; (0, 0) when a callback is already attached or being attached.
    fn attach(&self, target: T, deliver: impl Fn(&T, I)) -> (usize, u64) {
        let mut delivered = 0;
        let dropped = {
            let mut early = self.early();
            if early.attaching || self.attached.get().is_some() {
                return (0, 0);
            }
            early.attaching = true;
            std::mem::take(&mut early.dropped)
        };
        loop {
            let round = {
                let mut early = self.early();
                if early.items.is_empty() {
                    let _ = self.attached.set(target);
                    early.attaching = false;
                    return (delivered, dropped);
                }
                std::mem::take(&mut early.items)
            };
            delivered += round.len();
            for item in round {
                deliver(&target, item);
            }
        }
    }

    /// Removes the queued items `gone` selects.
    fn withdraw(&self, gone: impl Fn(&I) -> bool) {
        self.early().items.retain(|i| !gone(i));
    }

    fn queued(&self) -> usize {
        self.early().items.len()
    }
}

/// A trace sink whose foreign side arrives after the engine started.
pub struct LateSink(Handover<Box<dyn TraceSink>, String>);

impl Default for LateSink {
    fn default() -> Self {
        LateSink(Handover::new(MAX_EARLY_EVENTS))
    }
}

impl LateSink {
    /// Hands the foreign sink over: the events kept so far first, then every later one.
    /// Returns how many early events were dropped because the queue was full.
    pub fn attach(&self, sink: Box<dyn TraceSink>) -> u64 {
        self.0.attach(sink, |s, json| s.emit(json)).1
    }
}

impl CoreSink for LateSink {
    fn emit(&self, event: &TraceEvent) {
        self.0.offer(event.to_json(), |s, json| s.emit(json));
    }
}

/// A transport whose foreign side arrives after the engine started.
pub struct LateTransport {
    handover: Handover<ForeignTransport, (TransportRequest, Completion)>,
    /// Kotlin has a business client to send warms through.
    business_pool: AtomicBool,
}

impl Default for LateTransport {
    fn default() -> Self {
        LateTransport {
            handover: Handover::new(MAX_EARLY_REQUESTS),
            business_pool: AtomicBool::new(false),
        }
    }
}

impl LateTransport {
    /// Hands the foreign transport over: starts the requests kept so far, in order, then
    /// forwards every later call. Returns how many early requests it started.
    pub fn attach(&self, transport: Box<dyn HttpTransport>) -> usize {
        self.handover
            .attach(ForeignTransport(transport), |t, (request, done)| {
                t.start(request, done)
            })
            .0
    }

    /// How many requests wait for the transport.
    pub fn waiting(&self) -> usize {
        self.handover.queued()
    }

    /// Records that Kotlin has seen the business client: from now on a request of kind
    /// `Warm` goes through that client's connection pool. Kotlin says it once, when its
    /// interceptor first sees a call.
    pub fn business_pool_ready(&self) {
        self.business_pool.store(true, Ordering::Release);
    }
}

impl Transport for LateTransport {
    /// Starts `request` on the foreign transport, or keeps it for the hand-over; beyond
    /// the limit `done` is dropped, a cancellation the engine accounts for.
    fn start(&self, request: TransportRequest, done: Completion) {
        self.handover
            .offer((request, done), |t, (request, done)| t.start(request, done));
    }

    /// Cancels on the foreign transport, or takes the request out of the queue (a request
    /// taken by a hand-over round in progress still starts; its late answer is ignored).
    fn cancel(&self, id: u64) {
        if let Some(t) = self.handover.attached.get() {
            return t.cancel(id);
        }
        self.handover.withdraw(|(r, _)| r.id == id);
    }

    /// Whether Kotlin has seen the business client ([`LateTransport::business_pool_ready`]).
    fn warms_business_pool(&self) -> bool {
        self.business_pool.load(Ordering::Acquire)
    }
}

/// The callbacks an engine started over JNI waits for: the sink and the transport its
/// start said would come (`StartFlags`), held by its JNI handle.
#[derive(Default)]
pub struct LateCallbacks {
    /// The engine's trace sink, when the start said one comes.
    pub sink: Option<Arc<LateSink>>,
    /// The engine's transport, when the start said one comes.
    pub transport: Option<Arc<LateTransport>>,
}

impl LateCallbacks {
    /// Callbacks for an engine that waits for a sink and/or a transport.
    pub fn new(sink: bool, transport: bool) -> LateCallbacks {
        LateCallbacks {
            sink: sink.then(Arc::default),
            transport: transport.then(Arc::default),
        }
    }

    /// Hands the foreign callbacks over. A callback the start did not announce is
    /// dropped, and so is a missing one's queue: its early items wait until the engine's
    /// deadlines drop them.
    pub fn attach(
        &self,
        sink: Option<Box<dyn TraceSink>>,
        transport: Option<Box<dyn HttpTransport>>,
    ) {
        if let (Some(late), Some(sink)) = (&self.sink, sink) {
            let dropped = late.attach(sink);
            if dropped > 0 {
                log::warn!(
                    "linekit: {dropped} trace events before the sink was attached were dropped"
                );
            }
        }
        if let (Some(late), Some(transport)) = (&self.transport, transport) {
            late.attach(transport);
        }
    }
}

impl fmt::Debug for LateCallbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LateCallbacks")
            .field("sink", &self.sink.is_some())
            .field("transport", &self.transport.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{TransportCompletion, TransportRequest as ForeignRequest};
    use linekit_core::line::{Outcome, Protocol, Timings};
    use linekit_core::trace::{AttemptTrace, TraceBody, TraceLine};
    use linekit_core::transport::{RequestKind, TransportResult};

    struct Collect(Arc<Mutex<Vec<String>>>);
    impl TraceSink for Collect {
        fn emit(&self, event_json: String) {
            self.0.lock().unwrap().push(event_json);
        }
    }

    fn event(line: &str) -> TraceEvent {
        TraceEvent::new(
            0,
            TraceBody::Report(AttemptTrace {
                on: TraceLine::new("spot", Protocol::Http, line),
                outcome: Outcome::Ok,
                status: None,
                timings: Timings::default(),
                total_ms: None,
            }),
        )
    }

    #[test]
    fn early_events_arrive_first_and_in_order_then_later_ones_directly() {
        let sink = LateSink::default();
        sink.emit(&event("a"));
        sink.emit(&event("b"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        assert_eq!(sink.attach(Box::new(Collect(seen.clone()))), 0);
        sink.emit(&event("c"));
        let lines: Vec<bool> = ["\"a\"", "\"b\"", "\"c\""]
            .iter()
            .zip(seen.lock().unwrap().iter())
            .map(|(l, json)| json.contains(&format!("\"line\":{l}")))
            .collect();
        assert_eq!(lines, [true, true, true]);
        // A second sink is ignored: the first keeps every event.
        let other = Arc::new(Mutex::new(Vec::new()));
        sink.attach(Box::new(Collect(other.clone())));
        sink.emit(&event("d"));
        assert_eq!(seen.lock().unwrap().len(), 4);
        assert!(other.lock().unwrap().is_empty());
    }

    #[test]
    fn a_full_early_queue_counts_what_it_dropped() {
        let sink = LateSink::default();
        for _ in 0..MAX_EARLY_EVENTS + 3 {
            sink.emit(&event("a"));
        }
        let seen = Arc::new(Mutex::new(Vec::new()));
        assert_eq!(sink.attach(Box::new(Collect(seen.clone()))), 3);
        assert_eq!(seen.lock().unwrap().len(), MAX_EARLY_EVENTS);
    }

    /// A foreign transport that records the ids it was asked to start and cancel.
    #[derive(Default)]
    struct Recording {
        started: Mutex<Vec<i64>>,
        cancelled: Mutex<Vec<i64>>,
    }
    struct Shared(Arc<Recording>);
    impl HttpTransport for Shared {
        fn start(&self, request: ForeignRequest, _completion: Arc<TransportCompletion>) {
            self.0.started.lock().unwrap().push(request.id);
        }
        fn cancel(&self, id: i64) {
            self.0.cancelled.lock().unwrap().push(id);
        }
    }

    fn request(id: u64) -> TransportRequest {
        TransportRequest {
            id,
            kind: RequestKind::Probe,
            method: "HEAD".into(),
            url: "https://a.example/ping".into(),
            headers: Vec::new(),
            timeout_ms: 1_000,
        }
    }

    /// A completion that records whether it was called or dropped.
    fn completion(log: &Arc<Mutex<Vec<String>>>, id: u64) -> Completion {
        struct OnDrop(Arc<Mutex<Vec<String>>>, u64, bool);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                if !self.2 {
                    self.0.lock().unwrap().push(format!("dropped {}", self.1));
                }
            }
        }
        let guard = OnDrop(log.clone(), id, false);
        Completion::new(move |_r: TransportResult| {
            let mut guard = guard;
            guard.2 = true;
        })
    }

    #[test]
    fn early_requests_start_in_order_on_hand_over_and_cancelled_ones_leave_the_queue() {
        let transport = LateTransport::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        for id in 1..=3 {
            transport.start(request(id), completion(&log, id));
        }
        transport.cancel(2);
        assert_eq!(*log.lock().unwrap(), ["dropped 2"]);
        assert_eq!(transport.waiting(), 2);
        let foreign = Arc::new(Recording::default());
        assert_eq!(transport.attach(Box::new(Shared(foreign.clone()))), 2);
        transport.start(request(4), completion(&log, 4));
        transport.cancel(4);
        assert_eq!(*foreign.started.lock().unwrap(), [1, 3, 4]);
        assert_eq!(*foreign.cancelled.lock().unwrap(), [4]);
        assert_eq!(transport.waiting(), 0);
    }

    #[test]
    fn warms_wait_until_kotlin_has_seen_the_business_client() {
        let transport = LateTransport::default();
        assert!(!transport.warms_business_pool());
        transport.attach(Box::new(Shared(Arc::new(Recording::default()))));
        assert!(
            !transport.warms_business_pool(),
            "a transport alone is not the business pool"
        );
        transport.business_pool_ready();
        assert!(transport.warms_business_pool());
    }

    /// A foreign transport that, like a request failing at once whose completion makes the
    /// engine start the next one, starts another request from inside `start`.
    struct Reentrant {
        late: Mutex<Option<Arc<LateTransport>>>,
        log: Arc<Mutex<Vec<String>>>,
        started: Arc<Recording>,
    }
    impl HttpTransport for Reentrant {
        fn start(&self, asked: ForeignRequest, _completion: Arc<TransportCompletion>) {
            self.started.started.lock().unwrap().push(asked.id);
            if asked.id == 1 {
                let late = self.late.lock().unwrap().clone();
                if let Some(late) = late {
                    late.start(request(10), completion(&self.log, 10));
                }
            }
        }
        fn cancel(&self, _id: i64) {}
    }

    #[test]
    fn a_request_started_from_inside_the_hand_over_waits_for_the_next_round() {
        let late = Arc::new(LateTransport::default());
        let log = Arc::new(Mutex::new(Vec::new()));
        late.start(request(1), completion(&log, 1));
        late.start(request(2), completion(&log, 2));
        let started = Arc::new(Recording::default());
        let foreign = Reentrant {
            late: Mutex::new(Some(late.clone())),
            log: log.clone(),
            started: started.clone(),
        };
        assert_eq!(late.attach(Box::new(foreign)), 3);
        late.start(request(3), completion(&log, 3));
        assert_eq!(*started.started.lock().unwrap(), [1, 2, 10, 3]);
        assert_eq!(late.waiting(), 0);
    }

    #[test]
    fn beyond_the_early_limit_a_request_is_cancelled_at_once() {
        let transport = LateTransport::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        for id in 0..MAX_EARLY_REQUESTS as u64 + 1 {
            transport.start(request(id), completion(&log, id));
        }
        assert_eq!(transport.waiting(), MAX_EARLY_REQUESTS);
        assert_eq!(
            *log.lock().unwrap(),
            [format!("dropped {MAX_EARLY_REQUESTS}")]
        );
    }
}
