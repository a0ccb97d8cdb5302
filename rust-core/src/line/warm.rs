//! Warm connections: which line a pool's traffic would move to next, named *before* the
//! move, so that the caller can open a connection to it on the business client's own
//! connection pool and the first requests after the switch find one waiting instead of
//! paying a TCP and TLS handshake each.
//!
//! [`LinePool::warm_target`](super::LinePool::warm_target) is asked after a report or a
//! probe result changed what the pool knows. It names:
//! 1. **a pending move**: the next re-rank would put another line first, with its breaker
//!    closed (a probe revived a better line, a retry proved another line, the switch
//!    guard holds a better line back);
//! 2. **the way out of trouble**: the serving line's latest outcome is a line fault or a
//!    slow answer, it holds a recent read-side fault, or its breaker is not closed. The
//!    line is the best-ranked other line known to be fast
//!    ([`SlowRule::is_known_fast`](super::pool::SlowRule::is_known_fast)), the one a slow
//!    or read-fault switch would take, or else the best-ranked other line whose breaker is
//!    closed, the one a ranked switch would take.
//!
//! Only a line whose breaker is closed is warmed: a half-open line's single trial belongs
//! to a request or a probe whose answer counts, and an open line is out. Only HTTP pools
//! warm (a WebSocket keeps its own connection).
//!
//! **Bound.** A line is warmed at most once per switch of its pool: the switch guard's last
//! switch time is the epoch a [`WarmMark`] remembers. Within one epoch a line is warmed
//! again only after [`WARM_STALE_MS`], when an idle connection may have been closed. The
//! engine adds its own conditions (rollout mode `on`, the business line's
//! `warm_connections`, consent, a validated network, a token of the probe budget).

use super::pool::{LineState, SlowRule};
use super::BreakerState;

/// Within one switch epoch, a warmed line is warmed again only this long after the last
/// warm: a connection idle for a minute may already be gone (servers and Android radios
/// drop idle connections well before OkHttp's five-minute keep-alive).
pub const WARM_STALE_MS: u64 = 60_000;

/// When a line was last warmed, and in which switch epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmMark {
    /// The pool's last switch time when the warm was sent (`None`: before any switch).
    pub epoch: Option<u64>,
    /// When the warm was sent.
    pub at_ms: u64,
}

impl WarmMark {
    /// Whether a line last warmed as `mark` may be warmed again in `epoch` at `now_ms`.
    pub fn allows(mark: Option<WarmMark>, epoch: Option<u64>, now_ms: u64) -> bool {
        match mark {
            None => true,
            Some(m) => m.epoch != epoch || now_ms.saturating_sub(m.at_ms) >= WARM_STALE_MS,
        }
    }
}

/// What the target choice reads of a pool.
pub(super) struct PoolView<'p> {
    /// The pool's lines.
    pub lines: &'p [LineState],
    /// The lines in rank order, best first.
    pub order: &'p [usize],
    /// The serving line.
    pub current: usize,
    /// The pool's slow-switch rule.
    pub slow: SlowRule,
    /// Whether the serving line shows trouble: a line fault or a slow answer as its latest
    /// outcome, a read-side fault still held, or a breaker that is not closed.
    pub in_trouble: bool,
}

impl PoolView<'_> {
    /// The line to warm at `now_ms` (rules 1 and 2 of the module docs), before the bound.
    pub(super) fn target(&self, now_ms: u64) -> Option<usize> {
        let closed = |i: usize| self.lines[i].breaker.state(now_ms) == BreakerState::Closed;
        let best = self.order.first().copied()?;
        if best != self.current && closed(best) {
            return Some(best);
        }
        if !self.in_trouble {
            return None;
        }
        let others = || self.order.iter().copied().filter(|&i| i != self.current);
        others()
            .find(|&i| self.slow.is_known_fast(&self.lines[i], now_ms))
            .or_else(|| others().find(|&i| closed(i)))
    }
}
