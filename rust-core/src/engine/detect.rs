//! The prober (`docs/architecture.md#detect-scheduler`): the detect scheduler behind its
//! lock (rank [`Rank::Detect`], never held across a call out), turning triggers into
//! scheduled detects on the runtime, choosing which lines a detect probes, applying probe
//! results to the same statistics and breakers as real traffic, and the periodic revive
//! check of open lines. *Whether and when* to probe is decided by
//! [`crate::detect::DetectScheduler`]; this module only carries it out. A business line
//! whose rollout mode is `off` is never probed; `observe` and `on` are.

use super::lock_order::{Rank, Ranked};
use super::requests::Pending;
use super::routing::lock_pool;
use super::Inner;
use crate::config::{Config, Thresholds};
use crate::detect::{DetectScheduler, Plan, Trigger};
use crate::line::rollout::RolloutMode;
use crate::line::Timings;
use crate::line::{Outcome, Protocol};
use crate::trace::{AttemptTrace, TraceBody, TraceEvent, TraceLine};
use crate::transport::{RequestKind, TransportResult};
use std::sync::Arc;

/// The detect scheduler: triggers, single-flight, cooldowns and the probe budget.
pub(super) struct Prober {
    scheduler: Ranked<DetectScheduler>,
}

impl Prober {
    /// A prober whose settings all come from the first [`Self::apply`]. Its budget starts
    /// unbounded, so that the first apply, which caps the tokens at the config's size,
    /// leaves it full, as a fresh budget is.
    pub(super) fn new(seed: u64, now: u64) -> Self {
        let unbounded = Thresholds {
            probe_budget_per_min: u32::MAX,
            ..Thresholds::default()
        };
        Prober {
            scheduler: Ranked::new(Rank::Detect, DetectScheduler::new(&unbounded, seed, now)),
        }
    }

    /// Takes the config's detect thresholds and probe budget (running detects are
    /// unaffected).
    pub(super) fn apply(&self, config: &Config, now: u64) {
        self.scheduler
            .lock()
            .set_thresholds(&config.thresholds, now);
    }

    /// Takes up to `wanted` probes from the probe budget (a diagnosis); how many it got.
    pub(super) fn take_budget(&self, now: u64, wanted: u32) -> u32 {
        self.scheduler.lock().take_budget(now, wanted)
    }
}

impl Inner {
    /// Feeds `trigger` for every business line (start-up, a newly validated network).
    pub(super) fn trigger_every_biz(self: &Arc<Self>, trigger: Trigger) {
        let biz: Vec<Arc<str>> = self
            .routing
            .load()
            .topology
            .biz
            .iter()
            .map(|b| b.name.clone())
            .collect();
        for b in &biz {
            self.trigger(b, trigger);
        }
    }

    /// Feeds a trigger to the detect scheduler; schedules the detect when it says so.
    pub(super) fn trigger(self: &Arc<Self>, biz: &Arc<str>, trigger: Trigger) -> bool {
        self.trigger_as(biz, trigger, trigger.is_urgent())
    }

    /// [`Self::trigger`] with the urgency decided by the caller (see
    /// [`crate::detect::DetectScheduler::request_as`]).
    pub(super) fn trigger_as(
        self: &Arc<Self>,
        biz: &Arc<str>,
        trigger: Trigger,
        urgent: bool,
    ) -> bool {
        if !self.requests.has_transport()
            || !self.is_open()
            || !self.consented()
            || !self.may_probe(biz)
        {
            return false;
        }
        let now = self.clock.now_ms();
        let plan = self
            .prober
            .scheduler
            .lock()
            .request_as(biz, trigger, urgent, now);
        self.schedule_detect(biz, trigger, plan)
    }

    /// Whether business line `biz` may be probed: it exists and its rollout mode is not
    /// `off`.
    fn may_probe(&self, biz: &str) -> bool {
        self.routing
            .load()
            .topology
            .biz_entry(biz)
            .is_some_and(|b| b.mode != RolloutMode::Off)
    }

    /// A probe of `biz` that was not sent (consent missing): its slot in the detect is
    /// given back.
    pub(super) fn release_probe(&self, biz: &Arc<str>) {
        self.prober.scheduler.lock().probe_finished(biz);
    }

    /// Puts a `StartAt` plan on the runtime; whether a detect is now scheduled.
    fn schedule_detect(self: &Arc<Self>, biz: &Arc<str>, trigger: Trigger, plan: Plan) -> bool {
        let Plan::StartAt { at, token } = plan else {
            return false;
        };
        let weak = Arc::downgrade(self);
        let name = biz.clone();
        let scheduled = self.runtime.schedule_at(
            at,
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    inner.run_detect(&name, token, trigger);
                }
            }),
        );
        if scheduled.is_none() {
            self.prober.scheduler.lock().abandon(biz);
        }
        scheduled.is_some()
    }

    /// Probes the lines of `biz` that admit a probe (closed, or half-open as their single
    /// trial), as many as the budget grants, the sticky line first.
    fn run_detect(self: &Arc<Self>, biz: &Arc<str>, token: u64, trigger: Trigger) {
        let now = self.clock.now_ms();
        let state = self.routing.load();
        let Some(entry) = state
            .topology
            .biz_entry(biz)
            .filter(|b| b.mode != RolloutMode::Off && self.consented())
        else {
            self.prober.scheduler.lock().abandon(biz);
            return;
        };
        let mut candidates: Vec<(Protocol, usize)> = Vec::new();
        for protocol in [Protocol::Http, Protocol::Ws] {
            if let Some(pool) = entry.pool(protocol) {
                let pool = lock_pool(pool);
                let current = pool.current();
                let mut order: Vec<usize> = (0..pool.lines().len())
                    .filter(|&i| !pool.lines()[i].breaker.is_open(now))
                    .collect();
                order.sort_by_key(|&i| (i != current, i));
                candidates.extend(order.into_iter().map(|i| (protocol, i)));
            }
        }
        let Some(granted) =
            self.prober
                .scheduler
                .lock()
                .begin(biz, token, candidates.len() as u32, now)
        else {
            return; // rescheduled earlier, or abandoned
        };
        let granted = granted as usize;
        if granted < candidates.len() {
            log::info!(
                "linekit: detect of {biz} ({trigger}) limited by the probe budget: {granted} of {}",
                candidates.len()
            );
        }
        let config = &state.topology.config;
        let biz_config = config.biz_lines.get(&**biz);
        let (path, method) = biz_config
            .map(|b| (b.detect_path.as_str(), b.detect_method.as_str()))
            .unwrap_or(("/line/ping", "HEAD"));
        let mut unused = 0;
        for &(protocol, index) in candidates.iter().take(granted) {
            let Some(pool) = entry.pool(protocol) else {
                continue;
            };
            let (line, url) = {
                let mut pool = lock_pool(pool);
                if pool.try_admit(now, index) == crate::line::Admission::Rejected {
                    unused += 1;
                    continue;
                }
                let line = &pool.lines()[index];
                (line.id.clone(), probe_url(&line.endpoint, path))
            };
            self.start_request(
                RequestKind::Probe,
                method,
                url,
                Vec::new(),
                config.thresholds.timeout_ms,
                Pending::Probe {
                    biz: biz.clone(),
                    protocol,
                    line,
                    started_at: now,
                },
            );
        }
        if unused > 0 {
            self.prober.scheduler.lock().unused(biz, unused);
        }
    }

    /// Applies one probe's result to its line, like a real request's report.
    pub(super) fn finish_probe(
        self: &Arc<Self>,
        biz: &Arc<str>,
        protocol: Protocol,
        line: &str,
        started_at: u64,
        result: &TransportResult,
        now: u64,
    ) {
        let state = self.routing.load();
        let expect = state
            .topology
            .config
            .biz_lines
            .get(&**biz)
            .map(ProbeExpectation::of)
            .unwrap_or_default();
        let mut unexpected = false;
        let (outcome, status) = match result {
            TransportResult::Response { status, body, .. } => {
                unexpected = !expect.is_met(*status, body.len());
                if unexpected {
                    (Outcome::Http5xx, Some(*status))
                } else {
                    (Outcome::from_status(*status), Some(*status))
                }
            }
            // A probe that gets no answer in time says the line is unreachable,
            // not merely slow to stream a body: count it as a connect timeout.
            TransportResult::Failed(crate::transport::TransportError::Timeout) => {
                (Outcome::ConnectTimeout, None)
            }
            TransportResult::Failed(e) => (e.outcome(), None),
        };
        let cost = now.saturating_sub(started_at);
        let state = self.routing.load();
        let hold_ms = state.topology.config.thresholds.read_fault_hold_ms;
        let mut breaker_change = None;
        let mut warm = None;
        let entry = state.topology.biz_entry(biz);
        if let Some((entry, pool)) = entry.and_then(|b| Some((b, b.pool(protocol)?))) {
            let mut pool = lock_pool(pool);
            if let Some(index) = pool.index_of(line) {
                let before = pool.lines()[index].breaker.state(now);
                // A failed expectation is a line fault whatever the status said.
                let counted = if unexpected { None } else { status };
                // A success that saw no body cannot vouch for a line that recently cut,
                // reset or stalled a response: it leaves the line's fault and rank alone.
                let held = !outcome.is_line_fault(counted)
                    && !expect.verifies_body()
                    && pool.read_fault_within(index, now, hold_ms);
                if held {
                    log::debug!(
                        "linekit: probe of {biz}/{line} answered, but a recent read-side fault stands"
                    );
                } else {
                    pool.record(now, index, outcome, counted, cost);
                }
                if let Some(v) = probe_version(&state.topology, biz, result) {
                    pool.observe_version(index, v);
                }
                breaker_change =
                    super::trace_order::breaker_change(before, &pool.lines()[index].breaker, now);
                warm = self.want_warm(&mut pool, entry, &state.topology.config, now);
            }
            drop(pool);
            self.mark_dirty();
        }
        if let Some(wanted) = warm {
            self.send_warm(biz, wanted, now);
        }
        self.prober.scheduler.lock().probe_finished(biz);
        if self.sampled(&state, now) {
            self.emit(TraceEvent::new(
                now,
                TraceBody::Probe(AttemptTrace {
                    on: TraceLine::new(biz, protocol, line),
                    outcome,
                    status,
                    timings: Timings::default(),
                    total_ms: Some(cost),
                }),
            ));
            if let Some(change) = breaker_change {
                self.emit(change.event(biz, protocol, line, now));
            }
        }
    }

    /// Every `revive_interval_ms`, business lines with an open, half-open or faulted line
    /// (its last outcome was a line fault) get a detect (subject to the usual rules), so a
    /// recovered line can come back.
    pub(super) fn schedule_revive(self: &Arc<Self>) {
        let interval = self
            .routing
            .load()
            .topology
            .config
            .thresholds
            .revive_interval_ms;
        let weak = Arc::downgrade(self);
        self.runtime.schedule_in(
            interval,
            Box::new(move || {
                let Some(inner) = weak.upgrade() else { return };
                let now = inner.clock.now_ms();
                let state = inner.routing.load();
                let needing: Vec<Arc<str>> = state
                    .topology
                    .biz
                    .iter()
                    .filter(|b| {
                        [Protocol::Http, Protocol::Ws].iter().any(|p| {
                            b.pool(*p).is_some_and(|pool| {
                                lock_pool(pool).lines().iter().any(|l| {
                                    l.breaker.state(now) != crate::line::BreakerState::Closed
                                        || l.consecutive_faults > 0
                                })
                            })
                        })
                    })
                    .map(|b| b.name.clone())
                    .collect();
                for b in &needing {
                    inner.trigger(b, Trigger::Revive);
                }
                Inner::schedule_revive(&inner);
            }),
        );
    }
}

/// The deployment fingerprint a probe response carries in its business line's
/// `version_header`, when both exist and the value is usable.
fn probe_version(
    topology: &crate::line::router::Topology,
    biz: &str,
    result: &TransportResult,
) -> Option<Arc<str>> {
    let TransportResult::Response { headers, .. } = result else {
        return None;
    };
    let name = topology.biz_entry(biz)?.version_header.as_deref()?;
    let limit = headers.len().min(crate::transport::MAX_HEADERS);
    crate::line::version::header_value(&headers[..limit], name)
        .and_then(crate::line::version::sanitize_value)
}

/// What a probe answer must look like to count as `ok` (per business line:
/// `detect_expect_status`, `detect_expect_length`). Without expectations any status below
/// 400 passes, as for real traffic. An answer that fails an expectation — another status, a
/// body of another length (a line that cuts bodies short answers a HEAD probe perfectly
/// well) — counts as `http_5xx`, a line fault.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ProbeExpectation {
    status: Option<u16>,
    length: Option<u64>,
}

impl ProbeExpectation {
    fn of(biz: &crate::config::BizLine) -> Self {
        ProbeExpectation {
            status: biz.detect_expect_status,
            length: biz.detect_expect_length,
        }
    }

    /// Whether a passing answer proves the line delivers whole bodies (an expected length).
    pub(crate) fn verifies_body(&self) -> bool {
        self.length.is_some()
    }

    /// Whether an answer with `status` and a body of `body_len` bytes meets the
    /// expectations (always, when there are none: the status decides as for traffic).
    pub(crate) fn is_met(&self, status: u16, body_len: usize) -> bool {
        self.status.is_none_or(|s| s == status) && self.length.is_none_or(|n| n == body_len as u64)
    }
}

/// The probe URL of a line: its own origin (never routed), HTTP family, plus the path.
pub(super) fn probe_url(endpoint: &crate::line::Endpoint, path: &str) -> String {
    let scheme = if endpoint.scheme.is_cleartext() {
        "http"
    } else {
        "https"
    };
    let origin: &str = &endpoint.origin;
    let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
    format!("{scheme}://{authority}{path}")
}
