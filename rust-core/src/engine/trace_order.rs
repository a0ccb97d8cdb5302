//! The tracing service: stamping each event with the install and its position (`seq`),
//! keeping `at_ms` non-decreasing in delivery order, delivering it to the sink, and the
//! events that are not routing decisions (start, breaker transitions, network changes, the
//! kill switch).
//!
//! Events are stamped and handed to the sink under one short lock (rank [`Rank::Trace`],
//! the last of the lock order: the sink must not call back into the engine), so the sink
//! receives them in `seq` order and a file written in that order is a valid trace (see
//! `docs/trace-format.md`). Two threads may read the clock in one order and emit in the
//! other; the later-delivered event then carries the earlier event's time (a difference
//! of at most the time between reading the clock and emitting). Emission happens inside
//! the engine's callback gate, so none follows [`super::LineKit::close`].

use super::lock_order::{Rank, Ranked};
use super::routing::State;
use super::Inner;
use crate::line::{Breaker, BreakerState, Protocol};
use crate::trace::{
    BreakerTrace, ConfigTrace, TraceBody, TraceEvent, TraceLine, TraceNetwork, TraceSink,
};
use std::sync::Arc;

/// The sink and the order of the events it receives.
pub(super) struct Tracer {
    sink: Arc<dyn TraceSink>,
    order: Ranked<TraceOrder>,
    /// Record every window (ignore `trace.sample_rate`).
    trace_all: bool,
}

impl Tracer {
    pub(super) fn new(sink: Arc<dyn TraceSink>, seed: u64, trace_all: bool) -> Self {
        Tracer {
            sink,
            order: Ranked::new(Rank::Trace, TraceOrder::new(seed)),
            trace_all,
        }
    }

    /// Whether events at `now` are recorded (this install's window is sampled).
    #[inline]
    pub(super) fn sampled(&self, state: &State, now: u64) -> bool {
        self.trace_all || state.sampler.sample(now)
    }

    /// Stamps and delivers an event (the caller is inside the gate).
    fn deliver(&self, mut event: TraceEvent) {
        let mut order = self.order.lock();
        order.stamp(&mut event);
        self.sink.emit(&event);
    }
}

/// Sequence and time stamping of one engine's events.
#[derive(Debug)]
struct TraceOrder {
    install: String,
    next_seq: u64,
    last_at: u64,
}

impl TraceOrder {
    fn new(seed: u64) -> Self {
        TraceOrder {
            install: format!("{seed:016x}"),
            next_seq: 0,
            last_at: 0,
        }
    }

    /// Sets `install`, `seq` and a non-decreasing `at_ms` on `e`.
    fn stamp(&mut self, e: &mut TraceEvent) {
        e.install.clone_from(&self.install);
        e.seq = self.next_seq;
        self.next_seq += 1;
        e.at_ms = e.at_ms.max(self.last_at);
        self.last_at = e.at_ms;
    }
}

/// A breaker state change caused by one recorded result.
#[derive(Debug, Clone, Copy)]
pub(super) struct BreakerChange {
    from: BreakerState,
    to: BreakerState,
    cooldown_ms: Option<u64>,
}

/// The change from `before` to the breaker's state now, if any.
pub(super) fn breaker_change(
    before: BreakerState,
    breaker: &Breaker,
    now: u64,
) -> Option<BreakerChange> {
    let to = breaker.state(now);
    (to != before).then(|| BreakerChange {
        from: before,
        to,
        cooldown_ms: (to == BreakerState::Open).then(|| breaker.cooldown_ms()),
    })
}

impl BreakerChange {
    /// The trace event of this change on `line` of `biz`/`protocol`.
    pub(super) fn event(&self, biz: &str, protocol: Protocol, line: &str, now: u64) -> TraceEvent {
        TraceEvent::new(
            now,
            TraceBody::Breaker(BreakerTrace {
                on: TraceLine::new(biz, protocol, line),
                state: self.to,
                cooldown_ms: self.cooldown_ms,
                detail: Some(format!("{} -> {}", self.from.as_str(), self.to.as_str())),
            }),
        )
    }
}

impl Inner {
    /// Emits a trace event unless the engine is closed; the sink runs inside the gate, so
    /// `close` waits for it.
    pub(super) fn emit(&self, event: TraceEvent) {
        if let Some(_inside) = self.gate.enter() {
            self.tracer.deliver(event);
        }
    }

    /// Whether events at `now` are recorded under `state`.
    #[inline]
    pub(super) fn sampled(&self, state: &State, now: u64) -> bool {
        self.tracer.sampled(state, now)
    }

    /// The first event of a recording: the engine started with this config version.
    pub(super) fn emit_start(&self, now: u64) {
        let state = self.routing.load();
        if self.sampled(&state, now) {
            self.emit(TraceEvent::new(
                now,
                TraceBody::Start {
                    config_version: Some(state.topology.config.version),
                },
            ));
        }
    }

    /// The platform reported `network`.
    pub(super) fn emit_network(&self, network: &crate::net::NetworkState) {
        let now = self.clock.now_ms();
        if self.sampled(&self.routing.load(), now) {
            self.emit(TraceEvent::new(
                now,
                TraceBody::Network(TraceNetwork::from(network)),
            ));
        }
    }

    /// A config event now: `reason` code (none when a config applied) and what happened.
    pub(super) fn emit_config(&self, reason: Option<&str>, detail: String) {
        self.emit(TraceEvent::new(
            self.clock.now_ms(),
            TraceBody::Config(ConfigTrace {
                reason: reason.map(str::to_string),
                detail: Some(detail),
                config_version: None,
            }),
        ));
    }

    /// The runtime kill switch was set to `on`.
    pub(super) fn emit_downgrade(&self, on: bool) {
        let now = self.clock.now_ms();
        if self.sampled(&self.routing.load(), now) {
            self.emit(TraceEvent::new(now, TraceBody::Downgrade(on)));
        }
    }
}
