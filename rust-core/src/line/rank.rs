//! Ranking: the order in which a pool prefers its lines, as a pure function of the lines'
//! state and `now`.
//!
//! The key, compared field by field:
//! 1. lines whose breaker does not admit (open, or half-open with a trial in flight) last;
//! 2. lines whose most recent counted outcome was a line fault (`consecutive_faults > 0`)
//!    still inside the window after the others — a failed line is demoted at once, never
//!    removed, and the demotion ends when the fault leaves the window;
//! 3. lines whose slow streak met the slow-switch rule ([`super::pool::SlowRule`]) after
//!    the others, until a fast answer ends the streak;
//! 4. the [`Tier`]: untried lines first (so new lines get verified), then weighted success
//!    rate ≥ 0.9, then 0.5–0.9, then below 0.5. A used line whose window is empty (its old
//!    outcomes expired) counts as healthy, so a recovered line comes back;
//! 5. inside a tier: untried lines by priority; the others by weight (descending), then
//!    [`effective_latency_ms`] (ascending: window average plus [`ERROR_PENALTY_MS`] per unit
//!    of weighted failure), then priority;
//! 6. the index, so the order is total and deterministic.
//!
//! [`rank`] fills a caller-owned buffer and sorts it in place (unstable sort, no allocation
//! once the buffer has grown to the pool size).

use super::pool::LineState;
use super::stats::WindowSummary;

/// Latency added per unit of weighted failure in the window when comparing lines.
pub const ERROR_PENALTY_MS: f64 = 200.0;

/// Success-rate bands of used lines, plus the untried band ahead of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Never used: ranked first so it gets verified.
    Untried,
    /// Weighted success rate ≥ 0.9 (or an empty window).
    Healthy,
    /// Weighted success rate in 0.5..0.9.
    Unstable,
    /// Weighted success rate below 0.5.
    Failing,
}

/// The tier of `line` at `now_ms`.
#[cfg(any(test, feature = "testing"))]
pub fn tier(line: &LineState, now_ms: u64) -> Tier {
    tier_of(line, &line.stats.summary(now_ms))
}

fn tier_of(line: &LineState, w: &WindowSummary) -> Tier {
    if !line.used {
        return Tier::Untried;
    }
    match w.weighted_success_rate {
        None => Tier::Healthy,
        Some(r) if r >= 0.9 => Tier::Healthy,
        Some(r) if r >= 0.5 => Tier::Unstable,
        Some(_) => Tier::Failing,
    }
}

/// The latency used to compare lines of one tier: the window's average latency (or the
/// last cost when the window holds no answered request) plus [`ERROR_PENALTY_MS`] per unit
/// of weighted failure in the window.
#[cfg(any(test, feature = "testing"))]
pub fn effective_latency_ms(line: &LineState, now_ms: u64) -> u64 {
    effective_latency_of(line, &line.stats.summary(now_ms))
}

fn effective_latency_of(line: &LineState, w: &WindowSummary) -> u64 {
    let base = w.avg_latency_ms.or(line.last_cost_ms).unwrap_or(0);
    let penalty = (w.weighted_failures * ERROR_PENALTY_MS).round() as u64;
    base.saturating_add(penalty)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RankKey {
    blocked: bool,
    faulted: bool,
    slowed: bool,
    tier: Tier,
    inverse_weight: u32,
    latency: u64,
    priority: u32,
    index: usize,
}

impl RankKey {
    const LAST: RankKey = RankKey {
        blocked: true,
        faulted: true,
        slowed: true,
        tier: Tier::Failing,
        inverse_weight: u32::MAX,
        latency: u64::MAX,
        priority: u32::MAX,
        index: usize::MAX,
    };
}

fn key(lines: &[LineState], index: usize, now_ms: u64) -> RankKey {
    let line = &lines[index];
    let w = line.stats.summary(now_ms);
    let tier = tier_of(line, &w);
    let (inverse_weight, latency) = if tier == Tier::Untried {
        (0, 0)
    } else {
        (u32::MAX - line.weight, effective_latency_of(line, &w))
    };
    RankKey {
        blocked: line.breaker.is_open(now_ms),
        // A fault that has left the window no longer demotes the line: otherwise a line
        // with one fault below the breaker threshold would never get traffic (or a
        // success) again.
        faulted: line.consecutive_faults > 0 && w.weighted_failures > 0.0,
        slowed: line.slowed,
        tier,
        inverse_weight,
        latency,
        priority: line.priority,
        index,
    }
}

/// Pools up to this size are ranked with keys computed once, on the stack.
const SMALL_POOL: usize = 16;

/// Fills `out` with the indices of `lines`, best first.
pub fn rank(lines: &[LineState], now_ms: u64, out: &mut Vec<usize>) {
    out.clear();
    if lines.len() <= SMALL_POOL {
        // Compute each key once, then insertion-sort: cheapest for a handful of lines.
        let mut keys = [RankKey::LAST; SMALL_POOL];
        for (i, k) in keys.iter_mut().enumerate().take(lines.len()) {
            *k = key(lines, i, now_ms);
        }
        let keys = &mut keys[..lines.len()];
        for i in 1..keys.len() {
            let mut j = i;
            while j > 0 && keys[j] < keys[j - 1] {
                keys.swap(j, j - 1);
                j -= 1;
            }
        }
        out.extend(keys.iter().map(|k| k.index));
    } else {
        out.extend(0..lines.len());
        out.sort_unstable_by_key(|&a| key(lines, a, now_ms));
    }
}

/// The most recent cost of a line: its last cost, else its window's average latency.
pub fn recent_cost_ms(line: &LineState, now_ms: u64) -> Option<u64> {
    line.last_cost_ms
        .or_else(|| line.stats.avg_latency_ms(now_ms))
}

/// Whether every line has been used and each one's recent cost exceeds `timeout_ms`; the
/// caller then falls back to the first line by priority. `false` for an empty slice.
pub fn all_slow(lines: &[LineState], now_ms: u64, timeout_ms: u64) -> bool {
    !lines.is_empty()
        && lines
            .iter()
            .all(|l| l.used && recent_cost_ms(l, now_ms).is_some_and(|c| c > timeout_ms))
}

/// Whether `line` can take traffic at `now_ms` without being a known bad choice: its
/// breaker admits and its most recent counted outcome was not a line fault still inside
/// the window (the first two keys of the ranking).
pub fn is_usable(line: &LineState, now_ms: u64) -> bool {
    let faulted = line.consecutive_faults > 0 && line.stats.summary(now_ms).weighted_failures > 0.0;
    !line.breaker.is_open(now_ms) && !faulted
}
