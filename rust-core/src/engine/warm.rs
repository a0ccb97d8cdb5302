//! The warmer: sends the warm a line pool asks for ([`crate::line::LinePool::warm_target`],
//! rules in [`crate::line::warm`]) as a [`RequestKind::Warm`] request, a `HEAD` of the
//! line's detect path that the transport sends through the business client's connection
//! pool, so the connection it opens is there when traffic moves to the line.
//!
//! The pool decides *which* line and bounds it to once per line per switch; this module
//! adds the engine's conditions, all checked before a token is spent: the business line is
//! under rollout mode `on` (under `observe` traffic does not move; under `off` it is left
//! alone) with `warm_connections` set; the engine may send its own requests (open,
//! consent, a transport that sends warms through the business client's pool); and the
//! default network is validated (a captive portal would answer the warm itself; a plain
//! JVM that never reports a network has nothing to wait for). The warm then takes one
//! token of the probe budget (the prober's lock ranks after a pool's), so warming never
//! adds load beyond what probing may use. Its answer is traced (`warm`) and never counted
//! on the line: a probe or real traffic says how the line is.

use super::detect::probe_url;
use super::requests::Pending;
use super::Inner;
use crate::config::Config;
use crate::line::rollout::RolloutMode;
use crate::line::router::BizEntry;
use crate::line::{LinePool, Outcome, Protocol, Timings};
use crate::trace::{AttemptTrace, TraceBody, TraceEvent, TraceLine};
use crate::transport::{RequestKind, TransportResult};
use std::sync::Arc;

/// A warm the pool asked for, taken out from under its lock.
pub(super) struct WarmWanted {
    line: Arc<str>,
    url: String,
}

impl Inner {
    /// Asks `pool` (locked, of business line `biz` in `config`) for a warm at `now`, after
    /// the engine's conditions (module docs); the token of the probe budget is taken here
    /// and the line marked warmed. `None` when nothing is to be warmed.
    pub(super) fn want_warm(
        &self,
        pool: &mut LinePool,
        biz: &BizEntry,
        config: &Config,
        now: u64,
    ) -> Option<WarmWanted> {
        if biz.mode != RolloutMode::On
            || !self.requests.warms_business_pool()
            || !self.is_open()
            || !self.consented()
            || !self.httpdns.validated()
        {
            return None;
        }
        let path = config
            .biz_lines
            .get(&*biz.name)
            .filter(|b| b.warm_connections)?
            .detect_path
            .as_str();
        let index = pool.warm_target(now)?;
        if self.prober.take_budget(now, 1) == 0 {
            log::debug!(
                "linekit: a warm of {} skipped: probe budget spent",
                biz.name
            );
            return None;
        }
        pool.mark_warmed(index, now);
        let line = &pool.lines()[index];
        Some(WarmWanted {
            line: line.id.clone(),
            url: probe_url(&line.endpoint, path),
        })
    }

    /// Sends `wanted` for business line `biz` (no lock held).
    pub(super) fn send_warm(self: &Arc<Self>, biz: &Arc<str>, wanted: WarmWanted, now: u64) {
        let timeout_ms = self.routing.config().thresholds.timeout_ms;
        self.start_request(
            RequestKind::Warm,
            "HEAD",
            wanted.url,
            Vec::new(),
            timeout_ms,
            Pending::Warm {
                biz: biz.clone(),
                line: wanted.line,
                started_at: now,
            },
        );
    }

    /// Traces a finished warm (nothing is counted).
    pub(super) fn finish_warm(
        &self,
        biz: &str,
        line: &str,
        started_at: u64,
        result: &TransportResult,
        now: u64,
    ) {
        let state = self.routing.load();
        if !self.sampled(&state, now) {
            return;
        }
        let (outcome, status) = match result {
            TransportResult::Response { status, .. } => {
                (Outcome::from_status(*status), Some(*status))
            }
            TransportResult::Failed(e) => (e.outcome(), None),
        };
        self.emit(TraceEvent::new(
            now,
            TraceBody::Warm(AttemptTrace {
                on: TraceLine::new(biz, Protocol::Http, line),
                outcome,
                status,
                timings: Timings::default(),
                total_ms: Some(now.saturating_sub(started_at)),
            }),
        ));
    }
}
