//! A run aggregated into time buckets for drawing: one lane per line with, per bucket, its
//! attempts, its share of its pool's attempts, its failures by outcome and its probes;
//! breaker states as bands; switches between lines with their reason code; network and
//! kill-switch changes. Buckets keep the report the same size whatever the traffic: a
//! 30-minute trace of 100k requests draws as many shapes as a 30-second one.

use linekit_core::line::{BreakerState, Outcome};
use linekit_core::trace::TraceBody;
use linekit_core::trace::TraceEvent;
use std::collections::{BTreeMap, HashMap};

/// Buckets across the time axis.
pub const BUCKETS: usize = 240;

/// A breaker state over an interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Start (ms).
    pub from: u64,
    /// End (ms).
    pub to: u64,
    /// `open` or `half_open`.
    pub state: &'static str,
}

/// One line's row.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lane {
    /// `biz/protocol/line`.
    pub key: String,
    /// `biz/protocol`.
    pub pool: String,
    /// Line id.
    pub line: String,
    /// Attempts per bucket.
    pub attempts: Vec<u32>,
    /// Share of the pool's attempts per bucket (0..=1).
    pub share: Vec<f32>,
    /// Failed attempts per bucket, by outcome.
    pub failures: Vec<BTreeMap<String, u32>>,
    /// Probes per bucket: (succeeded, failed).
    pub probes: Vec<(u32, u32)>,
    /// Attempts per bucket whose outcome a replay inferred.
    pub inferred: Vec<u32>,
    /// Breaker bands (closed is no band).
    pub bands: Vec<Band>,
}

/// A change of line between consecutive calls of a pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    /// When.
    pub at: u64,
    /// `biz/protocol`.
    pub pool: String,
    /// Previous line.
    pub from: String,
    /// New line.
    pub to: String,
    /// Reason code of the decision.
    pub reason: String,
}

/// A run ready to draw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// Length of the time axis (ms; shared by the runs drawn together).
    pub end_ms: u64,
    /// Bucket width (ms).
    pub bucket_ms: u64,
    /// Lanes, grouped by pool.
    pub lanes: Vec<Lane>,
    /// Line switches.
    pub switches: Vec<Switch>,
    /// Network changes: (at, label).
    pub networks: Vec<(u64, String)>,
    /// Kill switch changes: (at, on).
    pub downgrades: Vec<(u64, bool)>,
}

/// The bucket width for an axis of `end_ms`.
pub fn bucket_ms(end_ms: u64) -> u64 {
    end_ms.div_ceil(BUCKETS as u64).max(1)
}

/// The bucket of time `at` for buckets of `bucket` ms (the last one takes any later time).
pub fn slot(at: u64, bucket: u64) -> usize {
    ((at / bucket) as usize).min(BUCKETS - 1)
}

/// Each lane (pool, line) to its index.
pub fn lane_index(lanes: &[(String, String)]) -> HashMap<(String, String), usize> {
    lanes
        .iter()
        .enumerate()
        .map(|(i, k)| (k.clone(), i))
        .collect()
}

fn key_of(r: &TraceEvent) -> Option<(String, String)> {
    let (biz, protocol, line) = r.line_key().filter(|(biz, _, _)| !biz.is_empty())?;
    Some((format!("{biz}/{}", protocol.as_str()), line.to_string()))
}

/// The lanes of several runs together, in order of first appearance (pool by pool), so
/// runs drawn one above the other have the same rows.
pub fn lane_order(runs: &[&[TraceEvent]]) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for records in runs {
        for r in records.iter() {
            if let Some(k) = key_of(r) {
                if !seen.contains(&k) {
                    seen.push(k);
                }
            }
        }
    }
    let mut pools: Vec<String> = Vec::new();
    for (p, _) in &seen {
        if !pools.contains(p) {
            pools.push(p.clone());
        }
    }
    pools
        .iter()
        .flat_map(|p| seen.iter().filter(move |(q, _)| q == p).cloned())
        .collect()
}

/// Aggregates one run on an axis of `end_ms` with the given lanes.
pub fn build(records: &[TraceEvent], lanes: &[(String, String)], end_ms: u64) -> Timeline {
    let bucket = bucket_ms(end_ms);
    let slot = |at: u64| slot(at, bucket);
    let index = lane_index(lanes);
    let mut out: Vec<Lane> = lanes
        .iter()
        .map(|(pool, line)| Lane {
            key: format!("{pool}/{line}"),
            pool: pool.clone(),
            line: line.clone(),
            attempts: vec![0; BUCKETS],
            share: vec![0.0; BUCKETS],
            failures: vec![BTreeMap::new(); BUCKETS],
            probes: vec![(0, 0); BUCKETS],
            inferred: vec![0; BUCKETS],
            bands: Vec::new(),
        })
        .collect();
    let mut t = Timeline {
        end_ms,
        bucket_ms: bucket,
        ..Timeline::default()
    };
    let mut last_line: HashMap<String, String> = HashMap::new();
    // Open band start and the time it turns half-open, per lane.
    let mut open: HashMap<usize, (u64, u64)> = HashMap::new();
    for r in records {
        let lane = key_of(r).and_then(|k| index.get(&k).copied());
        match (&r.body, lane) {
            (TraceBody::Route(route), Some(i)) => {
                let l = &mut out[i];
                l.attempts[slot(r.at_ms)] += 1;
                if route.attempt.unwrap_or(0) == 0 {
                    let prev = last_line.insert(l.pool.clone(), l.line.clone());
                    if let Some(prev) = prev.filter(|p| *p != l.line) {
                        t.switches.push(Switch {
                            at: r.at_ms,
                            pool: l.pool.clone(),
                            from: prev,
                            to: l.line.clone(),
                            reason: route.reason.as_str().to_string(),
                        });
                    }
                }
            }
            (TraceBody::Report(a), Some(i)) if a.outcome != Outcome::Ok => {
                let kind = a.outcome.as_str().to_string();
                *out[i].failures[slot(r.at_ms)].entry(kind).or_default() += 1;
            }
            (TraceBody::Probe(a), Some(i)) => {
                let p = &mut out[i].probes[slot(r.at_ms)];
                if a.outcome == Outcome::Ok {
                    p.0 += 1;
                } else {
                    p.1 += 1;
                }
            }
            (TraceBody::Breaker(b), Some(i)) => {
                if let Some((from, half)) = open.remove(&i) {
                    close_band(&mut out[i].bands, from, half, r.at_ms);
                }
                match b.state {
                    BreakerState::Open => {
                        let half = r.at_ms.saturating_add(b.cooldown_ms.unwrap_or(0));
                        open.insert(i, (r.at_ms, half));
                    }
                    BreakerState::HalfOpen => {
                        open.insert(i, (r.at_ms, r.at_ms));
                    }
                    BreakerState::Closed => {}
                }
            }
            (TraceBody::Network(n), _) => {
                let mut label = format!("net {}", n.handle);
                if !n.validated {
                    label.push_str(" unvalidated");
                }
                if let Some(tr) = &n.transport {
                    label.push(' ');
                    label.push_str(tr);
                }
                t.networks.push((r.at_ms, label));
            }
            (TraceBody::Downgrade(on), _) => t.downgrades.push((r.at_ms, *on)),
            _ => {}
        }
    }
    for (i, (from, half)) in open {
        close_band(&mut out[i].bands, from, half, end_ms);
    }
    for l in &mut out {
        l.bands.sort_by_key(|b| b.from);
    }
    // Shares within each pool.
    let mut pool_totals: HashMap<String, Vec<u32>> = HashMap::new();
    for l in &out {
        let totals = pool_totals
            .entry(l.pool.clone())
            .or_insert_with(|| vec![0; BUCKETS]);
        for (t, a) in totals.iter_mut().zip(&l.attempts) {
            *t += a;
        }
    }
    for l in &mut out {
        let totals = &pool_totals[&l.pool];
        for ((share, attempts), total) in l.share.iter_mut().zip(&l.attempts).zip(totals) {
            if *total > 0 {
                *share = *attempts as f32 / *total as f32;
            }
        }
    }
    t.lanes = out;
    t
}

/// Counts a replay's inferred attempts ((time, `biz/protocol/line`)) into its lanes.
pub fn add_inferred(t: &mut Timeline, inferred: &[(u64, String)]) {
    let bucket = t.bucket_ms;
    for (at, key) in inferred {
        if let Some(lane) = t.lanes.iter_mut().find(|l| l.key == *key) {
            lane.inferred[slot(*at, bucket)] += 1;
        }
    }
}

/// Ends an open band at `to`: open until `half`, then half-open.
fn close_band(bands: &mut Vec<Band>, from: u64, half: u64, to: u64) {
    let half = half.clamp(from, to);
    if half > from {
        bands.push(Band {
            from,
            to: half,
            state: "open",
        });
    }
    if to > half {
        bands.push(Band {
            from: half,
            to,
            state: "half_open",
        });
    }
}
