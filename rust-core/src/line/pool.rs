//! The line pool of one business line × protocol: its lines with their statistics and
//! breakers, the sticky current line, and the switch guard.
//!
//! # Selection
//! Most requests take the **sticky fast path**: when nothing happened since the last ranking
//! — no report marked the pool dirty, no breaker timer elapsed, the periodic re-rank is not
//! due — and the current line's breaker admits, [`LinePool::select`] returns it with a few
//! comparisons and no allocation.
//!
//! Otherwise the pool **re-ranks** ([`rank`]) into a buffer it owns:
//! - every breaker open → first line by priority ([`Reason::AllOpenFallback`]);
//! - every line slower than `timeout_ms` → first line ([`Reason::AllSlowFallback`]);
//! - a better line than the current one → switch ([`Reason::Ranked`]) if the
//!   [`SwitchGuard`] allows it or if the current line's breaker is open (the guard never
//!   keeps traffic on an open line); otherwise stay ([`Reason::Guarded`]);
//! - the current line is in a slow streak ([`SlowRule`]) and another line is known to be
//!   fast → switch to the best such line, even inside the switch interval
//!   ([`Reason::SlowSwitch`]; a slowed line is also ranked after lines that are not). A
//!   request still waiting on the serving line past `slow_request_ms` counts toward the
//!   streak when the next request is routed, without waiting for its answer
//!   ([`super::in_flight`]);
//! - the current line is still the best → [`Reason::Sticky`].
//!
//! A half-open line that is chosen and admitted as its single trial is reported as
//! [`Reason::HalfOpenTrial`]. The pool re-ranks at least every `switch_interval_ms`, so
//! untried lines get verified and a better line can win; a line fault reported on the
//! current line marks the pool dirty, so the very next request moves (subject to the
//! guard): traffic leaves a failing line within one failed request.
//!
//! # Deployment versions
//! With a [`VersionGuard`] (the business line names a `version_header`) each line keeps
//! the last fingerprint seen; under `strict` both re-ranking and in-call failover put
//! usable lines of the reference fingerprint first, and [`LinePool::version_mismatch`]
//! tells the router whether a decision lands on another fingerprint (see
//! [`super::version`]).
//!
//! # Observed selections
//! Under rollout mode `observe` the router asks [`LinePool::select_observed`]: the same
//! rules, sticky line and switch guard as [`LinePool::select`], so the would-be decisions
//! read as the sequence `on` would produce, but a half-open line's single trial is left
//! for a probe or request that does go to the line. [`LinePool::known_healthy`] says
//! whether the would-be line was known healthy, and [`LinePool::index_of_origin`] finds
//! the line whose origin an observed request's URL names (its outcome counts there).
//!
//! # In-call failover
//! With a non-empty `exclude` (line ids already tried by this call) the pool returns the
//! best admitting line not excluded ([`Reason::RetryExcluded`]) without moving its sticky
//! current line.

use super::breaker::{Admission, Breaker, BreakerParams, PersistedBreaker};
use super::endpoint::Endpoint;
use super::guard::SwitchGuard;
use super::in_flight::InFlight;
use super::outcome::{Outcome, Protocol};
use super::rank::{all_slow, rank};
use super::stats::{PersistedBucket, WindowStats};
use super::version::VersionGuard;
use super::warm::{PoolView, WarmMark};
use crate::config::{LineConfig, Thresholds, VersionPolicy};
use crate::error::{Error, FieldError, Result};
use crate::trace::Reason;
use crate::config::decode::Decode;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Arc;

/// One line of a pool and everything the pool knows about it.
#[derive(Debug, Clone)]
pub struct LineState {
    /// Line id, unique in its business line.
    pub id: Arc<str>,
    /// Where requests go.
    pub endpoint: Endpoint,
    /// Lower is preferred (defaults to the position in the config list).
    pub priority: u32,
    /// Relative preference among equally healthy lines.
    pub weight: u32,
    /// Sliding-window counts and latency.
    pub stats: WindowStats,
    /// Circuit breaker.
    pub breaker: Breaker,
    /// Whether any counted outcome was ever reported.
    pub used: bool,
    /// Cost of the most recent counted attempt.
    pub last_cost_ms: Option<u64>,
    /// Most recent counted failure kind (cleared by nothing: it is history).
    pub last_error: Option<Outcome>,
    /// Line faults in a row (reset by any counted non-fault outcome).
    pub consecutive_faults: u32,
    /// Last deployment fingerprint seen on this line (see [`super::version`]).
    pub version: Option<Arc<str>>,
    /// Answered attempts in a row slower than `slow_request_ms` (reset by a fast answer).
    pub slow_streak: u32,
    /// When the current slow streak began (its first slow answer).
    pub slow_since: Option<u64>,
    /// The slow streak met the switch rule ([`SlowRule`]): ranked after lines that are not
    /// slow, until a fast answer ends the streak.
    pub slowed: bool,
    /// When the latest read-side fault ([`Outcome::is_read_side`]) was recorded.
    pub read_fault_at: Option<u64>,
    /// Requests routed to the line and not answered yet (HTTP pools; see
    /// [`super::in_flight`]).
    pub in_flight: InFlight,
    /// When a connection to the line was last warmed ([`super::warm`]).
    pub warmed: Option<WarmMark>,
}

impl LineState {
    /// A fresh, untried line.
    pub fn new(
        id: Arc<str>,
        endpoint: Endpoint,
        priority: u32,
        weight: u32,
        thresholds: &Thresholds,
    ) -> Self {
        LineState {
            id,
            endpoint,
            priority,
            weight,
            stats: WindowStats::new(thresholds.window_ms),
            breaker: Breaker::new(breaker_params(thresholds)),
            used: false,
            last_cost_ms: None,
            last_error: None,
            consecutive_faults: 0,
            version: None,
            slow_streak: 0,
            slow_since: None,
            slowed: false,
            read_fault_at: None,
            in_flight: InFlight::default(),
            warmed: None,
        }
    }
}

/// When a slow serving line loses its traffic: after `count` answers in a row slower than
/// `slow_request_ms`, or after a streak of at least two that has lasted `streak_ms` (for
/// sparse traffic) — but only to a line *known to be fast*: used, breaker closed, no fault
/// and no slow answer as its latest outcomes, and a window average and latest cost under
/// `slow_request_ms`. Without such a line the slow requests only trigger a detect, which
/// is what makes a line known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlowRule {
    /// An answer slower than this is slow.
    pub slow_request_ms: u64,
    /// Slow answers in a row that move traffic.
    pub count: u32,
    /// Age of a streak (≥ 2 slow answers) that moves traffic.
    pub streak_ms: u64,
}

impl SlowRule {
    /// The rule of a config's thresholds.
    pub fn from_thresholds(t: &Thresholds) -> Self {
        SlowRule {
            slow_request_ms: t.slow_request_ms,
            count: t.slow_switch_count,
            streak_ms: t.slow_switch_ms,
        }
    }

    /// Whether `line`'s slow streak meets the rule at `now_ms`.
    pub fn is_streak(&self, line: &LineState, now_ms: u64) -> bool {
        if self.count == 0 || line.slow_streak == 0 {
            return false;
        }
        line.slow_streak >= self.count
            || (line.slow_streak >= 2
                && line
                    .slow_since
                    .is_some_and(|since| now_ms.saturating_sub(since) >= self.streak_ms))
    }

    /// Whether `line` is known to be fast at `now_ms`.
    pub fn is_known_fast(&self, line: &LineState, now_ms: u64) -> bool {
        if !line.used
            || line.slow_streak > 0
            || line.consecutive_faults > 0
            || line.breaker.state(now_ms) != super::breaker::BreakerState::Closed
            || line.last_cost_ms.is_none_or(|c| c > self.slow_request_ms)
        {
            return false;
        }
        let w = line.stats.summary(now_ms);
        w.successes > 0 && w.avg_latency_ms.is_some_and(|l| l <= self.slow_request_ms)
    }
}

fn breaker_params(t: &Thresholds) -> BreakerParams {
    BreakerParams {
        failure_threshold: t.failure_threshold,
        open_cooldown_ms: t.open_cooldown_ms,
        trial_timeout_ms: t.timeout_ms,
    }
}

/// Whether a selection takes a half-open line's single trial (the request goes there) or
/// leaves it (the request goes elsewhere: rollout mode `observe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trials {
    Take,
    Leave,
}

/// The line chosen for one request, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    /// Index into [`LinePool::lines`].
    pub index: usize,
    /// The rule that chose it.
    pub reason: Reason,
}

/// One line in a [`PoolSnapshot`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LineSnapshot {
    /// Line id.
    pub id: String,
    /// Host (with `:port` when the line names one).
    pub host: String,
    /// The breaker's state, a [`super::BreakerState`] wire name: `closed`, `open` or
    /// `half_open`.
    pub breaker: String,
    /// Successes in the window.
    pub successes: u64,
    /// Failures in the window.
    pub failures: u64,
    /// Average latency of answered requests in the window.
    pub avg_latency_ms: Option<u64>,
    /// Whether the line was ever used.
    pub used: bool,
    /// Most recent failure kind (an [`Outcome`] wire name).
    pub last_error: Option<String>,
    /// Whether this is the pool's sticky current line.
    pub current: bool,
    /// Last deployment fingerprint seen (null when unknown or the guard is off).
    pub version: Option<String>,
}

/// A pool's lines, best first. Serialises as a JSON array.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(transparent)]
pub struct PoolSnapshot {
    /// Lines in rank order.
    pub lines: Vec<LineSnapshot>,
}

/// What a pool persists about one used line (see [`LinePool::export`]). Matched on load
/// by id **and** origin, so a line whose URL changed starts fresh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedLine {
    /// Line id.
    pub id: String,
    /// The line's origin when it was saved.
    pub origin: String,
    /// Wall-clock time (Unix ms) the line was exported at.
    pub as_of_wall_ms: u64,
    /// Whether any counted outcome was reported.
    pub used: bool,
    /// Cost of the most recent counted attempt.
    #[decode(nullable)]
    pub last_cost_ms: Option<u64>,
    /// Most recent failure kind (`Outcome` wire name).
    #[decode(nullable)]
    pub last_error: Option<String>,
    /// Line faults in a row.
    #[serde(default)]
    pub consecutive_faults: u32,
    /// The breaker, when it was open.
    #[decode(nullable)]
    pub breaker: Option<PersistedBreaker>,
    /// Window length the buckets belong to (buckets are dropped if it changed).
    pub window_ms: u64,
    /// Live window buckets.
    #[decode(drop_malformed)]
    pub buckets: Vec<PersistedBucket>,
}

/// The lines of one business line × protocol and the state that picks among them.
#[derive(Debug, Clone)]
pub struct LinePool {
    protocol: Protocol,
    lines: Vec<LineState>,
    timeout_ms: u64,
    switch_interval_ms: u64,
    window_ms: u64,
    /// How long a read-side fault keeps a line from serving while a line known to be fast
    /// exists (`thresholds.read_fault_hold_ms`).
    read_fault_hold_ms: u64,
    slow: SlowRule,
    current: usize,
    guard: SwitchGuard,
    /// A report asked for a re-rank at the next select.
    dirty: bool,
    /// The sticky fast path is valid while `now < rerank_at`.
    rerank_at: u64,
    /// Reused ranking buffer.
    order: Vec<usize>,
    /// The deployment-version guard, when the business line names a `version_header`.
    version: Option<VersionGuard>,
}

impl LinePool {
    /// Builds a pool from its config lines. Priorities default to the list position; lines
    /// are kept sorted by (priority, position). Errors name the field (`http[1].url`, …):
    /// an empty pool, an empty or duplicate id, a bad URL, a scheme not matching the
    /// protocol, or cleartext without `allow_cleartext`.
    pub fn new(
        protocol: Protocol,
        lines: &[LineConfig],
        thresholds: &Thresholds,
        allow_cleartext: bool,
    ) -> Result<LinePool> {
        let mut errors = Vec::new();
        if lines.is_empty() {
            errors.push(FieldError::new(
                protocol.as_str(),
                "a pool needs at least one line",
            ));
        }
        let mut seen = HashSet::new();
        let mut built = Vec::with_capacity(lines.len());
        for (pos, cfg) in lines.iter().enumerate() {
            let path = format!("{}[{pos}]", protocol.as_str());
            if cfg.id.is_empty() {
                errors.push(FieldError::new(format!("{path}.id"), "empty line id"));
            } else if !seen.insert(cfg.id.as_str()) {
                errors.push(FieldError::new(
                    format!("{path}.id"),
                    "duplicate line id in this business line",
                ));
            }
            let endpoint = match Endpoint::parse(&cfg.url, allow_cleartext) {
                Ok(e) => e,
                Err(why) => {
                    errors.push(FieldError::new(format!("{path}.url"), why));
                    continue;
                }
            };
            if endpoint.scheme.is_ws() != (protocol == Protocol::Ws) {
                errors.push(FieldError::new(
                    format!("{path}.url"),
                    match protocol {
                        Protocol::Http => "an http pool needs http or https lines",
                        Protocol::Ws => "a ws pool needs ws or wss lines",
                    },
                ));
                continue;
            }
            let priority = cfg
                .priority
                .unwrap_or_else(|| u32::try_from(pos).unwrap_or(u32::MAX));
            built.push((
                priority,
                pos,
                LineState::new(
                    Arc::from(cfg.id.as_str()),
                    endpoint,
                    priority,
                    cfg.weight,
                    thresholds,
                ),
            ));
        }
        if !errors.is_empty() {
            return Err(Error::InvalidConfig(errors));
        }
        built.sort_by_key(|(priority, pos, _)| (*priority, *pos));
        let lines: Vec<LineState> = built.into_iter().map(|(_, _, l)| l).collect();
        let order = Vec::with_capacity(lines.len());
        Ok(LinePool {
            protocol,
            lines,
            timeout_ms: thresholds.timeout_ms,
            switch_interval_ms: thresholds.switch_interval_ms,
            window_ms: thresholds.window_ms,
            read_fault_hold_ms: thresholds.read_fault_hold_ms,
            slow: SlowRule::from_thresholds(thresholds),
            current: 0,
            guard: SwitchGuard::new(thresholds.switch_interval_ms),
            dirty: true,
            rerank_at: 0,
            order,
            version: None,
        })
    }

    /// The protocol this pool serves.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The lines, sorted by (priority, config position). Indices are stable for the life
    /// of the pool.
    pub fn lines(&self) -> &[LineState] {
        &self.lines
    }

    /// Index of the line with id `id`.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.lines.iter().position(|l| &*l.id == id)
    }

    /// Index of the line whose endpoint host is `host` (ASCII case-insensitive).
    pub fn index_of_host(&self, host: &str) -> Option<usize> {
        let host = host.trim_end_matches('.');
        self.lines
            .iter()
            .position(|l| l.endpoint.host.eq_ignore_ascii_case(host))
    }

    /// Index of the first line by priority (what downgrade and the fallbacks use).
    pub fn first_by_priority(&self) -> usize {
        0
    }

    /// Index of the sticky current line.
    pub fn current(&self) -> usize {
        self.current
    }

    /// The switch guard's state.
    pub fn guard(&self) -> &SwitchGuard {
        &self.guard
    }

    /// Turns the deployment-version guard on with `policy`, or off with `None` (which
    /// forgets every fingerprint).
    pub fn set_version_policy(&mut self, policy: Option<VersionPolicy>) {
        match policy {
            None => {
                self.version = None;
                for line in &mut self.lines {
                    line.version = None;
                }
            }
            Some(p) => match &mut self.version {
                Some(guard) if guard.policy() == p => {}
                slot => *slot = Some(VersionGuard::new(p)),
            },
        }
    }

    /// The version guard, when on.
    pub fn version_guard(&self) -> Option<&VersionGuard> {
        self.version.as_ref()
    }

    /// Line `index` answered with deployment fingerprint `value` (already sanitized).
    /// Ignored when the guard is off or the index is unknown. A changed fingerprint under
    /// `strict` makes the next select re-rank.
    pub fn observe_version(&mut self, index: usize, value: Arc<str>) {
        let Some(guard) = &mut self.version else {
            return;
        };
        let changed = guard.observe(&mut self.lines, self.current, index, value);
        if changed && guard.policy() == VersionPolicy::Strict {
            self.dirty = true;
        }
    }

    /// Whether a decision for line `index` lands on a fingerprint other than the
    /// reference (always `false` with the guard off).
    pub fn version_mismatch(&self, index: usize) -> bool {
        match (&self.version, self.lines.get(index)) {
            (Some(guard), Some(line)) => guard.mismatch(line.version.as_ref()),
            _ => false,
        }
    }

    /// Picks the line for one request at `now_ms`. `exclude` lists line ids already tried
    /// by this call (in-call failover). See the module docs for the rules.
    pub fn select(&mut self, now_ms: u64, exclude: &[&str]) -> Selection {
        self.choose(now_ms, exclude, Trials::Take)
    }

    /// The line [`Self::select`] would pick for a request that is not sent to it (rollout
    /// mode `observe`): the same rules and the same sticky line and switch guard, but a
    /// half-open line's single trial is left for a request or probe that does go there.
    pub fn select_observed(&mut self, now_ms: u64, exclude: &[&str]) -> Selection {
        self.choose(now_ms, exclude, Trials::Leave)
    }

    /// Whether line `index` is known healthy at `now_ms`: its breaker is closed, its latest
    /// counted outcome (request or probe) was not a line fault, and the window holds at
    /// least one success. A line never tried is not known healthy.
    pub fn known_healthy(&self, index: usize, now_ms: u64) -> bool {
        self.lines.get(index).is_some_and(|l| {
            l.breaker.state(now_ms) == super::breaker::BreakerState::Closed
                && l.consecutive_faults == 0
                && l.stats.summary(now_ms).successes > 0
        })
    }

    /// Index of the line whose origin `url` names: the same host (ASCII case-insensitive,
    /// trailing dot ignored), the same security (TLS or cleartext) and the same port.
    pub fn index_of_origin(&self, url: &super::endpoint::SplitUrl<'_>) -> Option<usize> {
        let host = url.host.trim_end_matches('.');
        let port = url.port.unwrap_or_else(|| url.scheme.default_port());
        self.lines.iter().position(|l| {
            l.endpoint.host.eq_ignore_ascii_case(host)
                && l.endpoint.scheme.is_cleartext() == url.scheme.is_cleartext()
                && l.endpoint.effective_port() == port
        })
    }

    fn choose(&mut self, now_ms: u64, exclude: &[&str], trials: Trials) -> Selection {
        self.count_overdue(now_ms);
        if !exclude.is_empty() {
            return self.select_excluding(now_ms, exclude, trials);
        }
        if !self.dirty && now_ms < self.rerank_at {
            match self.admission(self.current, now_ms, trials) {
                Admission::Closed => {
                    return Selection {
                        index: self.current,
                        reason: Reason::Sticky,
                    }
                }
                Admission::Trial => {
                    return Selection {
                        index: self.current,
                        reason: Reason::HalfOpenTrial,
                    }
                }
                Admission::Rejected => {}
            }
        }
        self.rerank(now_ms, trials)
    }

    /// A request routed to line `index` at `now_ms` is on its way (HTTP pools: a WebSocket
    /// stays open by design). Its answer goes through [`Self::finish_request`].
    pub fn start_request(&mut self, index: usize, now_ms: u64) {
        if self.protocol == Protocol::Http {
            let forget_ms = self.forget_ms();
            if let Some(line) = self.lines.get_mut(index) {
                line.in_flight.start(now_ms, forget_ms);
            }
        }
    }

    /// Hands the serving line's requests that have waited past `slow_request_ms` to its
    /// slow streak, each once; a streak that meets the rule then moves the next requests
    /// as slow answers would.
    fn count_overdue(&mut self, now_ms: u64) {
        let rule = self.slow;
        let forget_ms = self.forget_ms();
        let Some(line) = self.lines.get_mut(self.current) else {
            return;
        };
        let Some((count, first_at)) =
            line.in_flight
                .count_overdue(now_ms, rule.slow_request_ms, forget_ms)
        else {
            return;
        };
        line.slow_streak = line.slow_streak.saturating_add(count);
        line.slow_since.get_or_insert(first_at);
        line.slowed = rule.is_streak(line, now_ms);
        if line.slowed {
            self.dirty = true;
        }
    }

    /// Age past which an unanswered request is forgotten ([`super::in_flight::forget_ms`]).
    fn forget_ms(&self) -> u64 {
        super::in_flight::forget_ms(self.timeout_ms, self.slow.slow_request_ms)
    }

    /// Line `index`'s breaker admission at `now_ms`, taking a half-open trial or not.
    fn admission(&mut self, index: usize, now_ms: u64, trials: Trials) -> Admission {
        let breaker = &mut self.lines[index].breaker;
        match trials {
            Trials::Take => breaker.try_admit(now_ms),
            Trials::Leave => breaker.peek_admit(now_ms),
        }
    }

    fn rerank(&mut self, now_ms: u64, trials: Trials) -> Selection {
        self.dirty = false;
        let mut order = std::mem::take(&mut self.order);
        rank(&self.lines, now_ms, &mut order);
        if let Some(guard) = &self.version {
            guard.prefer_compatible(&self.lines, now_ms, &mut order);
        }
        let best = order.first().copied().unwrap_or(0);
        self.order = order;
        self.rerank_at = self.next_rerank_at(now_ms);
        let first = self.first_by_priority();

        if self.lines[best].breaker.is_open(now_ms) {
            // The best line does not admit, so none does.
            self.current = first;
            return Selection {
                index: first,
                reason: Reason::AllOpenFallback,
            };
        }
        if all_slow(&self.lines, now_ms, self.timeout_ms)
            && !self.lines[first].breaker.is_open(now_ms)
        {
            self.current = first;
            return self.admit(now_ms, first, Reason::AllSlowFallback, trials);
        }
        if let Some(fast) = self.slow_switch_target(now_ms) {
            // A slow streak on the serving line bypasses the guard, but only towards a
            // line known to be fast, so two slow lines cannot flap.
            self.guard.record_switch(now_ms);
            self.current = fast;
            return self.admit(now_ms, fast, Reason::SlowSwitch, trials);
        }
        if let Some(to) = self.read_fault_switch_target(now_ms) {
            // A response on the serving line was cut off, reset or stalled after it was
            // sent: a body already handed to the app cannot be retried, so every further
            // request there risks the same. Towards a line known to be fast (never one
            // with faults of its own), traffic moves at once, even inside the interval.
            self.guard.record_switch(now_ms);
            self.current = to;
            return self.admit(now_ms, to, Reason::ReadFaultSwitch, trials);
        }
        if best == self.current {
            return self.admit(now_ms, best, Reason::Sticky, trials);
        }
        let current_open = self.lines[self.current].breaker.is_open(now_ms);
        if current_open || self.guard.may_switch(now_ms) {
            self.guard.record_switch(now_ms);
            self.current = best;
            return self.admit(now_ms, best, Reason::Ranked, trials);
        }
        if let Some(at) = self.guard.next_allowed_at() {
            self.rerank_at = self.rerank_at.min(at);
        }
        self.admit(now_ms, self.current, Reason::Guarded, trials)
    }

    /// The line to warm a connection to now, before traffic moves there
    /// ([`super::warm`]): a pending move's line, or the way out of trouble on the serving
    /// line, unless it was warmed already in this switch epoch. `None` for a WebSocket
    /// pool, or when no line qualifies. A warm sent is marked with [`Self::mark_warmed`].
    pub fn warm_target(&mut self, now_ms: u64) -> Option<usize> {
        if self.protocol != Protocol::Http {
            return None;
        }
        let mut order = std::mem::take(&mut self.order);
        rank(&self.lines, now_ms, &mut order);
        if let Some(guard) = &self.version {
            guard.prefer_compatible(&self.lines, now_ms, &mut order);
        }
        let target = PoolView {
            lines: &self.lines,
            order: &order,
            current: self.current,
            slow: self.slow,
            in_trouble: self.serving_in_trouble(now_ms),
        }
        .target(now_ms);
        self.order = order;
        let epoch = self.guard.last_switch_at;
        target.filter(|&i| WarmMark::allows(self.lines[i].warmed, epoch, now_ms))
    }

    /// Whether the serving line shows trouble at `now_ms`: a line fault or a slow answer as
    /// its latest outcome, a read-side fault still held, or a breaker that is not closed.
    fn serving_in_trouble(&self, now_ms: u64) -> bool {
        let line = &self.lines[self.current];
        line.consecutive_faults > 0
            || line.slow_streak > 0
            || self.read_fault_within(self.current, now_ms, self.read_fault_hold_ms)
            || line.breaker.state(now_ms) != super::BreakerState::Closed
    }

    /// Notes that line `index` was warmed at `now_ms`, in the current switch epoch.
    pub fn mark_warmed(&mut self, index: usize, now_ms: u64) {
        let epoch = self.guard.last_switch_at;
        if let Some(line) = self.lines.get_mut(index) {
            line.warmed = Some(WarmMark { epoch, at_ms: now_ms });
        }
    }

    /// Whether a line other than `index` is known to be fast ([`SlowRule::is_known_fast`]).
    pub fn knows_fast_line_besides(&self, index: usize, now_ms: u64) -> bool {
        self.lines
            .iter()
            .enumerate()
            .any(|(i, l)| i != index && self.slow.is_known_fast(l, now_ms))
    }

    /// Whether line `index` had a read-side fault less than `hold_ms` before `now_ms`.
    pub fn read_fault_within(&self, index: usize, now_ms: u64, hold_ms: u64) -> bool {
        self.lines
            .get(index)
            .and_then(|l| l.read_fault_at)
            .is_some_and(|at| now_ms.saturating_sub(at) < hold_ms)
    }

    /// The line to move to because the current one is in a slow streak: the best-ranked
    /// line known to be fast, if there is one.
    fn slow_switch_target(&self, now_ms: u64) -> Option<usize> {
        if !self.lines[self.current].slowed {
            return None;
        }
        self.order
            .iter()
            .copied()
            .find(|&i| i != self.current && self.slow.is_known_fast(&self.lines[i], now_ms))
    }

    /// The line to move to because the serving line had a read-side fault (`truncated`,
    /// `connection_reset`, `read_timeout`) less than `read_fault_hold_ms` ago: the
    /// best-ranked line known to be fast without such a fault of its own, if there is one.
    /// The fault's time decides, not the latest result: a concurrent call's headers
    /// arriving on the same line say nothing about whether its body will be cut too.
    fn read_fault_switch_target(&self, now_ms: u64) -> Option<usize> {
        let hold = self.read_fault_hold_ms;
        if !self.read_fault_within(self.current, now_ms, hold) {
            return None;
        }
        self.order.iter().copied().find(|&i| {
            i != self.current
                && self.slow.is_known_fast(&self.lines[i], now_ms)
                && !self.read_fault_within(i, now_ms, hold)
        })
    }

    /// Admits `index` through its breaker; a half-open trial overrides the reason.
    fn admit(&mut self, now_ms: u64, index: usize, reason: Reason, trials: Trials) -> Selection {
        let reason = match self.admission(index, now_ms, trials) {
            Admission::Trial => Reason::HalfOpenTrial,
            Admission::Closed | Admission::Rejected => reason,
        };
        if reason == Reason::HalfOpenTrial {
            // The trial's result (or its timeout) decides what happens next.
            self.rerank_at = self.rerank_at.min(self.next_rerank_at(now_ms));
        }
        Selection { index, reason }
    }

    /// The periodic re-rank time, brought forward to the earliest breaker deadline.
    fn next_rerank_at(&self, now_ms: u64) -> u64 {
        self.lines
            .iter()
            .filter_map(|l| l.breaker.next_deadline(now_ms))
            .fold(now_ms.saturating_add(self.switch_interval_ms), u64::min)
    }

    fn select_excluding(&mut self, now_ms: u64, exclude: &[&str], trials: Trials) -> Selection {
        let mut order = std::mem::take(&mut self.order);
        rank(&self.lines, now_ms, &mut order);
        if let Some(guard) = &self.version {
            guard.prefer_compatible(&self.lines, now_ms, &mut order);
        }
        let mut chosen = None;
        for &i in &order {
            if exclude.contains(&&*self.lines[i].id) {
                continue;
            }
            if self.admission(i, now_ms, trials) != Admission::Rejected {
                chosen = Some(i);
                break;
            }
        }
        self.order = order;
        if let Some(index) = chosen {
            return Selection {
                index,
                reason: Reason::RetryExcluded,
            };
        }
        let index = self
            .lines
            .iter()
            .position(|l| !exclude.contains(&&*l.id))
            .unwrap_or_else(|| self.first_by_priority());
        Selection {
            index,
            reason: Reason::AllOpenFallback,
        }
    }

    /// Asks line `index`'s breaker to admit a probe (or a request routed outside
    /// [`LinePool::select`]) at `now_ms`; a half-open line admits exactly one. An unknown
    /// index is rejected.
    pub fn try_admit(&mut self, now_ms: u64, index: usize) -> Admission {
        let Some(line) = self.lines.get_mut(index) else {
            return Admission::Rejected;
        };
        let admission = line.breaker.try_admit(now_ms);
        if let Some(deadline) = line.breaker.next_deadline(now_ms) {
            self.rerank_at = self.rerank_at.min(deadline);
        }
        admission
    }

    /// The answer to a request routed to line `index` ([`Self::start_request`]) arrived at
    /// `now_ms`, costing `cost_ms`: the request is no longer in flight. Called before the
    /// answer is [recorded](Self::record). A request counted slow while it waited keeps
    /// that count, except that a slow `ok` answer, which [`Self::record`] counts itself,
    /// takes it back first, so one request counts once.
    pub fn finish_request(&mut self, now_ms: u64, index: usize, outcome: Outcome, cost_ms: u64) {
        let slow_ms = self.slow.slow_request_ms;
        let Some(line) = self.lines.get_mut(index) else {
            return;
        };
        if line.in_flight.finish(now_ms, cost_ms) && outcome == Outcome::Ok && cost_ms > slow_ms
        {
            line.slow_streak = line.slow_streak.saturating_sub(1);
        }
    }

    /// Records the outcome of one attempt (a request's, after [`Self::finish_request`], or
    /// a probe's) on line `index` that finished at `now_ms`. `local_network` and
    /// `cancelled` change nothing; an unknown index is ignored.
    pub fn record(
        &mut self,
        now_ms: u64,
        index: usize,
        outcome: Outcome,
        status: Option<u16>,
        cost_ms: u64,
    ) {
        if outcome.is_ignored() {
            return;
        }
        let Some(line) = self.lines.get_mut(index) else {
            return;
        };
        let fault = outcome.is_line_fault(status);
        line.stats.record(now_ms, outcome, cost_ms);
        line.used = true;
        line.last_cost_ms = Some(cost_ms);
        if outcome != Outcome::Ok {
            line.last_error = Some(outcome);
        }
        if outcome.is_read_side() {
            line.read_fault_at = Some(now_ms);
        }
        if fault {
            line.consecutive_faults = line.consecutive_faults.saturating_add(1);
        } else {
            line.consecutive_faults = 0;
        }
        if outcome == Outcome::Ok {
            if cost_ms > self.slow.slow_request_ms {
                line.slow_streak = line.slow_streak.saturating_add(1);
                line.slow_since.get_or_insert(now_ms);
            } else {
                line.slow_streak = 0;
                line.slow_since = None;
            }
            line.slowed = self.slow.is_streak(line, now_ms);
        }
        let streak = self.lines.get(self.current).is_some_and(|c| c.slowed);
        // The serving line's streak became long enough, or another line just proved fast
        // while it is: the next select re-ranks (and moves if a fast line exists).
        if streak && (index == self.current || self.slow.is_known_fast(&self.lines[index], now_ms))
        {
            self.dirty = true;
        }
        let line = &mut self.lines[index];
        line.breaker.on_result(now_ms, fault);
        if let Some(deadline) = line.breaker.next_deadline(now_ms) {
            self.rerank_at = self.rerank_at.min(deadline);
        }
        if fault && index == self.current {
            self.dirty = true;
        }
    }

    /// Takes over what `old` (the pool before a config update) learned: statistics,
    /// breaker and used flag of every line with the same id **and** origin, the switch
    /// guard, and the current line if its id still exists. Statistics restart when the
    /// window length changed. The next select re-ranks.
    pub fn carry_over(&mut self, old: &LinePool) {
        let same_window = old.window_ms == self.window_ms;
        for line in &mut self.lines {
            let Some(prev) = old
                .lines
                .iter()
                .find(|o| o.id == line.id && o.endpoint.origin == line.endpoint.origin)
            else {
                continue;
            };
            if same_window {
                line.stats = prev.stats.clone();
            }
            let params = line.breaker.params();
            line.breaker = prev.breaker.clone();
            line.breaker.set_params(params);
            line.used = prev.used;
            line.last_cost_ms = prev.last_cost_ms;
            line.last_error = prev.last_error;
            line.consecutive_faults = prev.consecutive_faults;
            line.slow_streak = prev.slow_streak;
            line.slow_since = prev.slow_since;
            line.slowed = prev.slowed;
            line.read_fault_at = prev.read_fault_at;
            line.in_flight = prev.in_flight.clone();
            line.warmed = prev.warmed;
            if self.version.is_some() {
                line.version = prev.version.clone();
            }
        }
        if let (Some(guard), Some(old_guard)) = (&mut self.version, &old.version) {
            guard.carry_over(old_guard);
        }
        if let Some(cur) = old.lines.get(old.current) {
            if let Some(i) = self.index_of(&cur.id) {
                self.current = i;
            }
        }
        self.guard.last_switch_at = old.guard.last_switch_at;
        self.dirty = true;
    }

    /// The used lines' state at monotonic `now_ms`, with every time converted to wall
    /// `wall_ms` (untried lines have nothing to keep).
    pub fn export(&self, now_ms: u64, wall_ms: u64) -> Vec<PersistedLine> {
        self.lines
            .iter()
            .filter(|l| l.used)
            .map(|l| PersistedLine {
                id: l.id.to_string(),
                origin: l.endpoint.origin.to_string(),
                as_of_wall_ms: wall_ms,
                used: l.used,
                last_cost_ms: l.last_cost_ms,
                last_error: l.last_error.map(|o| o.as_str().to_string()),
                consecutive_faults: l.consecutive_faults,
                breaker: l.breaker.export(now_ms, wall_ms),
                window_ms: l.stats.window_ms(),
                buckets: l.stats.export(now_ms, wall_ms),
            })
            .collect()
    }

    /// Restores persisted lines at monotonic `now_ms` / wall `wall_ms`; returns how many
    /// lines took something. Rules: only lines with the same id and origin; never a line
    /// already used in this process (live data is newer); nothing from a record exported
    /// in the future (the clock moved back); window buckets only when the window length is
    /// unchanged, each checked by [`WindowStats::import`]; the breaker by
    /// [`Breaker::import`]; consecutive faults only when less than one window old.
    pub fn import(&mut self, lines: &[PersistedLine], now_ms: u64, wall_ms: u64) -> usize {
        let mut restored = 0;
        for p in lines {
            let Some(line) = self
                .lines
                .iter_mut()
                .find(|l| *l.id == *p.id && *l.endpoint.origin == *p.origin)
            else {
                continue;
            };
            let Some(age) = wall_ms.checked_sub(p.as_of_wall_ms) else {
                continue;
            };
            if line.used || !p.used {
                continue;
            }
            line.used = true;
            line.last_cost_ms = p.last_cost_ms;
            line.last_error = p.last_error.as_deref().and_then(|e| e.parse().ok());
            if p.window_ms == line.stats.window_ms() {
                line.stats.import(&p.buckets, now_ms, wall_ms);
            }
            let opened = p
                .breaker
                .is_some_and(|b| line.breaker.import(&b, now_ms, wall_ms));
            if age < self.window_ms || opened {
                line.consecutive_faults = p.consecutive_faults;
                line.breaker.restore_faults(p.consecutive_faults);
            }
            restored += 1;
        }
        if restored > 0 {
            self.dirty = true;
            self.rerank_at = 0;
        }
        restored
    }

    /// The lines in rank order at `now_ms`, for `linekit replay`'s `state` op and debugging.
    pub fn snapshot(&self, now_ms: u64) -> PoolSnapshot {
        let mut order = Vec::with_capacity(self.lines.len());
        rank(&self.lines, now_ms, &mut order);
        let lines = order
            .into_iter()
            .map(|i| {
                let l = &self.lines[i];
                LineSnapshot {
                    id: l.id.to_string(),
                    host: match l.endpoint.port {
                        Some(p) if l.endpoint.host.contains(':') => {
                            format!("[{}]:{p}", l.endpoint.host)
                        }
                        Some(p) => format!("{}:{p}", l.endpoint.host),
                        None => l.endpoint.host.to_string(),
                    },
                    breaker: l.breaker.state(now_ms).as_str().to_string(),
                    successes: l.stats.successes(now_ms),
                    failures: l.stats.failures(now_ms),
                    avg_latency_ms: l.stats.avg_latency_ms(now_ms),
                    used: l.used,
                    last_error: l.last_error.map(|o| o.as_str().to_string()),
                    current: i == self.current,
                    version: l.version.as_deref().map(str::to_string),
                }
            })
            .collect();
        PoolSnapshot { lines }
    }
}
