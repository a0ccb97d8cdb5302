//! The detect (probe) scheduler: decides *whether and when* a business line's lines get
//! probed, never how (the engine sends probes through the transport).
//!
//! Rules, per business line:
//! - **single-flight**: while a detect is scheduled or its probes are in flight, further
//!   triggers are absorbed — except that an urgent trigger pulls a later scheduled detect
//!   (the delayed start-up one) forward instead of waiting behind it;
//! - **cooldown**: `detect_cooldown_ms` counted from the *start* of the previous detect,
//!   whether it succeeded or not (a failing backup must not be hammered); a manual
//!   `detect(biz)` skips the cooldown but not single-flight or the budget;
//! - **jitter**: each detect starts after a random delay in `[0, detect_jitter_ms]`, and the
//!   start-up detect after `startup_detect_delay_ms` plus jitter, so installs that saw the
//!   same outage at the same moment do not probe in lock-step. An **urgent** trigger (slow
//!   requests, consecutive failures, a WebSocket handshake failure) that opens an incident —
//!   no urgent detect of the business line started in the last
//!   `2 × (detect_cooldown_ms + detect_jitter_ms)` — waits only `[0, urgent_jitter_ms]`
//!   and pulls any scheduled non-urgent detect forward: a user waiting on a slow or broken
//!   line does not wait for a delay that spans the cooldown — unless the pool already knows
//!   a fast line to move to, when the move needs no probe and the trigger counts as
//!   ordinary (so a fleet that knows its backup does not stampede it). So only installs
//!   that must *discover* a line by probing take the short jitter, which is wide enough
//!   (10 s by default, a third of the cooldown) to spread a fleet that shares the onset
//!   over several seconds. Every later urgent detect of the same incident uses the long
//!   jitter again, so a fleet that shares a long outage still spreads its probes (a bounded
//!   rise at the onset, then the flat rate; see the fleet simulation);
//! - **budget**: a global [`ProbeBudget`] caps probes per minute per install; a detect
//!   that gets fewer tokens than lines probes only that many (the most useful first).
//!
//! All randomness comes from a seeded generator so replay output is reproducible.

internal_mod!(budget);

pub use budget::ProbeBudget;

use crate::config::Thresholds;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Why a detect was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// The engine started (low priority, delayed).
    Startup,
    /// A request was slower than `slow_request_ms`.
    SlowRequest,
    /// A line reached `failure_threshold` consecutive faults.
    ConsecutiveFailures,
    /// A WebSocket handshake failed.
    WsHandshakeFailure,
    /// The default network became validated.
    NetworkValidated,
    /// The app asked (`LineKit.detect(biz)`).
    Manual,
    /// Periodic check of open lines.
    Revive,
}

impl Trigger {
    /// Whether a user is waiting on a slow or failing line (see the module docs).
    pub fn is_urgent(self) -> bool {
        matches!(
            self,
            Trigger::SlowRequest | Trigger::ConsecutiveFailures | Trigger::WsHandshakeFailure
        )
    }

    /// Snake-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Startup => "startup",
            Trigger::SlowRequest => "slow_request",
            Trigger::ConsecutiveFailures => "consecutive_failures",
            Trigger::WsHandshakeFailure => "ws_handshake_failure",
            Trigger::NetworkValidated => "network_validated",
            Trigger::Manual => "manual",
            Trigger::Revive => "revive",
        }
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the scheduler decided about a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Start the detect at monotonic `at`; pass `token` to [`DetectScheduler::begin`]
    /// (a detect that was rescheduled earlier makes older tokens stale).
    StartAt {
        /// When.
        at: u64,
        /// Identifies this schedule.
        token: u64,
    },
    /// A detect is already scheduled or running.
    InFlight,
    /// The previous detect started less than the cooldown ago.
    CoolingDown {
        /// When a new detect becomes possible.
        until: u64,
    },
}

/// A detect waiting for its start.
#[derive(Debug, Clone, Copy)]
struct Scheduled {
    at: u64,
    token: u64,
    trigger: Trigger,
    /// Asked for by an urgent trigger.
    urgent: bool,
}

#[derive(Debug, Default, Clone)]
struct BizDetect {
    scheduled: Option<Scheduled>,
    in_flight: u32,
    last_start: Option<u64>,
    /// Start of the latest detect asked for by an urgent trigger.
    last_urgent_start: Option<u64>,
}

/// Scheduler state for every business line.
#[derive(Debug)]
pub struct DetectScheduler {
    biz: HashMap<Arc<str>, BizDetect>,
    budget: ProbeBudget,
    rng: fastrand::Rng,
    next_token: u64,
    cooldown_ms: u64,
    jitter_ms: u64,
    urgent_jitter_ms: u64,
    startup_delay_ms: u64,
}

impl DetectScheduler {
    /// A scheduler with the thresholds of a config and a seed for its jitter.
    pub fn new(t: &Thresholds, seed: u64, now_ms: u64) -> Self {
        DetectScheduler {
            biz: HashMap::new(),
            budget: ProbeBudget::new(t.probe_budget_per_min, now_ms),
            rng: fastrand::Rng::with_seed(seed ^ 0x005e_edde_7ec7),
            next_token: 1,
            cooldown_ms: t.detect_cooldown_ms,
            jitter_ms: t.detect_jitter_ms,
            urgent_jitter_ms: t.urgent_jitter_ms,
            startup_delay_ms: t.startup_detect_delay_ms,
        }
    }

    /// Applies new thresholds (a config update); running detects are unaffected.
    pub fn set_thresholds(&mut self, t: &Thresholds, now_ms: u64) {
        self.cooldown_ms = t.detect_cooldown_ms;
        self.jitter_ms = t.detect_jitter_ms;
        self.urgent_jitter_ms = t.urgent_jitter_ms;
        self.startup_delay_ms = t.startup_detect_delay_ms;
        self.budget.set_per_minute(t.probe_budget_per_min, now_ms);
    }

    /// Decides what to do about `trigger` for business line `biz` at `now_ms`. A
    /// `StartAt` plan marks the business line as scheduled: call [`Self::begin`] with its
    /// token when the time comes (or [`Self::abandon`] if it cannot run).
    #[cfg(any(test, feature = "testing"))]
    pub fn request(&mut self, biz: &Arc<str>, trigger: Trigger, now_ms: u64) -> Plan {
        self.request_as(biz, trigger, trigger.is_urgent(), now_ms)
    }

    /// [`Self::request`], with the caller deciding whether the trigger is urgent: the
    /// engine treats an urgent trigger as ordinary when the pool already knows a fast line
    /// to move to (the move needs no probe, so the probe can spread out).
    pub fn request_as(
        &mut self,
        biz: &Arc<str>,
        trigger: Trigger,
        urgent: bool,
        now_ms: u64,
    ) -> Plan {
        let cooldown = self.cooldown_ms;
        let incident_gap = cooldown.saturating_add(self.jitter_ms).saturating_mul(2);
        let state = self.biz.entry(biz.clone()).or_default();
        let opens_incident = urgent
            && state
                .last_urgent_start
                .is_none_or(|t| now_ms.saturating_sub(t) >= incident_gap);
        let max_jitter = if opens_incident {
            self.urgent_jitter_ms.min(self.jitter_ms)
        } else {
            self.jitter_ms
        };
        let jitter = if max_jitter == 0 {
            0
        } else {
            self.rng.u64(0..=max_jitter)
        };
        let base = if trigger == Trigger::Startup {
            self.startup_delay_ms
        } else {
            0
        };
        let at = now_ms.saturating_add(base).saturating_add(jitter);
        let token = self.next_token;
        if state.in_flight > 0 {
            return Plan::InFlight;
        }
        match state.scheduled {
            // A more urgent trigger pulls a later scheduled detect forward: any trigger
            // the delayed start-up detect, an incident-opening urgent one any non-urgent
            // detect. Re-rolling the jitter on every trigger would bias starts early and
            // bunch a fleet's probes together, so nothing else reschedules.
            Some(s)
                if at < s.at
                    && ((s.trigger == Trigger::Startup && trigger != Trigger::Startup)
                        || (opens_incident && !s.urgent)) => {}
            Some(_) => return Plan::InFlight,
            None => {
                if trigger != Trigger::Manual {
                    if let Some(last) = state.last_start {
                        let until = last.saturating_add(cooldown);
                        if now_ms < until {
                            return Plan::CoolingDown { until };
                        }
                    }
                }
            }
        }
        state.scheduled = Some(Scheduled {
            at,
            token,
            trigger,
            urgent,
        });
        self.next_token += 1;
        Plan::StartAt { at, token }
    }

    /// Starts the scheduled detect `token` that wants `wanted` probes; returns how many
    /// the global budget allows (possibly 0), or `None` when the token is stale (the detect
    /// was rescheduled or abandoned). The cooldown counts from now even if nothing was
    /// granted.
    pub fn begin(&mut self, biz: &Arc<str>, token: u64, wanted: u32, now_ms: u64) -> Option<u32> {
        let state = self.biz.get_mut(biz)?;
        let scheduled = state.scheduled?;
        if scheduled.token != token {
            return None;
        }
        let granted = self.budget.take(now_ms, wanted);
        state.scheduled = None;
        if scheduled.urgent {
            state.last_urgent_start = Some(now_ms);
        }
        state.last_start = Some(now_ms);
        state.in_flight = granted;
        Some(granted)
    }

    /// Gives back budget tokens that [`Self::begin`] granted but were not used (for
    /// example a line whose breaker refused the probe).
    pub fn unused(&mut self, biz: &Arc<str>, count: u32) {
        if let Some(state) = self.biz.get_mut(biz) {
            state.in_flight = state.in_flight.saturating_sub(count);
        }
    }

    /// Drops a scheduled detect that could not start (engine closing, config removed it).
    pub fn abandon(&mut self, biz: &Arc<str>) {
        if let Some(state) = self.biz.get_mut(biz) {
            state.scheduled = None;
        }
    }

    /// One probe of `biz` finished (answered, failed or timed out).
    pub fn probe_finished(&mut self, biz: &Arc<str>) {
        if let Some(state) = self.biz.get_mut(biz) {
            state.in_flight = state.in_flight.saturating_sub(1);
        }
    }

    /// Whether a detect of `biz` is scheduled or running.
    #[cfg(any(test, feature = "testing"))]
    pub fn busy(&self, biz: &str) -> bool {
        self.biz
            .get(biz)
            .is_some_and(|s| s.scheduled.is_some() || s.in_flight > 0)
    }

    /// Budget tokens available now.
    #[cfg(any(test, feature = "testing"))]
    pub fn budget_available(&mut self, now_ms: u64) -> u32 {
        self.budget.available(now_ms)
    }

    /// Takes up to `wanted` probes from the global budget outside any detect (a
    /// diagnosis); returns how many were granted.
    pub fn take_budget(&mut self, now_ms: u64, wanted: u32) -> u32 {
        self.budget.take(now_ms, wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thresholds() -> Thresholds {
        Thresholds {
            detect_cooldown_ms: 30_000,
            detect_jitter_ms: 1_000,
            startup_detect_delay_ms: 2_000,
            probe_budget_per_min: 10,
            ..Thresholds::default()
        }
    }

    #[test]
    fn single_flight_then_cooldown_from_the_start() {
        let biz: Arc<str> = Arc::from("spot");
        let mut s = DetectScheduler::new(&thresholds(), 1, 0);
        let Plan::StartAt { at, token } = s.request(&biz, Trigger::SlowRequest, 0) else {
            panic!("first trigger schedules")
        };
        assert!(at <= 1_000);
        assert_eq!(s.request(&biz, Trigger::SlowRequest, at), Plan::InFlight);
        assert_eq!(s.begin(&biz, token, 2, at), Some(2));
        assert_eq!(
            s.request(&biz, Trigger::ConsecutiveFailures, at + 1),
            Plan::InFlight
        );
        s.probe_finished(&biz);
        s.probe_finished(&biz);
        assert!(!s.busy("spot"));
        assert_eq!(
            s.request(&biz, Trigger::SlowRequest, at + 5_000),
            Plan::CoolingDown { until: at + 30_000 }
        );
        assert!(matches!(
            s.request(&biz, Trigger::Manual, at + 5_000),
            Plan::StartAt { .. }
        ));
    }

    #[test]
    fn startup_is_delayed_and_jitter_depends_on_the_seed() {
        let biz: Arc<str> = Arc::from("spot");
        let starts: Vec<u64> = (0..20)
            .map(|seed| {
                let mut s = DetectScheduler::new(&thresholds(), seed, 0);
                match s.request(&biz, Trigger::Startup, 0) {
                    Plan::StartAt { at, .. } => at,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        assert!(starts.iter().all(|at| (2_000..=3_000).contains(at)));
        assert!(
            starts.iter().any(|at| *at != starts[0]),
            "seeds give different jitter"
        );
    }

    #[test]
    fn budget_limits_probes_across_business_lines() {
        let mut s = DetectScheduler::new(&thresholds(), 1, 0);
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        let Plan::StartAt { token: ta, .. } = s.request(&a, Trigger::Manual, 0) else {
            panic!()
        };
        assert_eq!(s.begin(&a, ta, 8, 0), Some(8));
        let Plan::StartAt { token: tb, .. } = s.request(&b, Trigger::Manual, 0) else {
            panic!()
        };
        assert_eq!(s.begin(&b, tb, 8, 0), Some(2));
        assert_eq!(s.budget_available(0), 0);
    }

    #[test]
    fn an_incident_opening_urgent_trigger_waits_only_the_short_jitter() {
        let biz: Arc<str> = Arc::from("spot");
        let t = Thresholds {
            detect_jitter_ms: 30_000,
            urgent_jitter_ms: 500,
            ..thresholds()
        };
        for seed in 0..20 {
            let mut s = DetectScheduler::new(&t, seed, 0);
            // A revive detect scheduled far ahead is pulled forward by the urgent trigger.
            let Plan::StartAt { at: revive_at, .. } = s.request(&biz, Trigger::Revive, 0) else {
                panic!()
            };
            let Plan::StartAt { at, token } = s.request(&biz, Trigger::SlowRequest, 10) else {
                panic!("seed {seed}: the urgent trigger must reschedule (revive at {revive_at})")
            };
            assert!((10..=510).contains(&at), "seed {seed}: {at}");
            assert_eq!(s.begin(&biz, token, 1, at), Some(1));
            s.probe_finished(&biz);
            // The same incident, after the cooldown: the long jitter again.
            let later: Vec<u64> = (0..1)
                .filter_map(
                    |_| match s.request(&biz, Trigger::SlowRequest, at + 31_000) {
                        Plan::StartAt { at: next, .. } => Some(next - (at + 31_000)),
                        _ => None,
                    },
                )
                .collect();
            assert_eq!(later.len(), 1);
            assert!(later[0] <= 30_000);
        }
        // Over many seeds the incident's later detects spread over the long jitter.
        let spread: Vec<u64> = (0..50)
            .map(|seed| {
                let mut s = DetectScheduler::new(&t, seed, 0);
                let Plan::StartAt { at, token } = s.request(&biz, Trigger::SlowRequest, 0) else {
                    panic!()
                };
                s.begin(&biz, token, 1, at);
                s.probe_finished(&biz);
                match s.request(&biz, Trigger::ConsecutiveFailures, 31_000) {
                    Plan::StartAt { at, .. } => at - 31_000,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        assert!(spread.iter().any(|j| *j > 5_000), "{spread:?}");
    }
}
