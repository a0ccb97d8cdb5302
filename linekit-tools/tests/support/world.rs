//! A small simulated world that writes replay scenarios: the real engine on a manual clock,
//! clients calling through an interceptor that retries line faults on the next line (as
//! many times as the decision allows), and every request the engine starts — probes — and
//! every attempt answered by the same [`World`]. What happened is kept as scenario steps
//! (`route`, `report`, `respond`, ...), so `linekit replay` reproduces the run exactly.

#![allow(dead_code)]

use super::transport::RecordingTransport;
use linekit_core::engine::{LineKit, Report};
use linekit_core::line::router::RouteDecision;
use linekit_core::line::{Outcome, Protocol};
use linekit_core::transport::{Completion, TransportError, TransportResult};
use linekit_core::ManualClock;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// What each line does over time.
pub trait World {
    /// What line `line` answers at `t`: (outcome, status, cost in ms).
    fn answer(&self, line: &str, t: u64) -> (Outcome, Option<u16>, u64);
}

/// The engine, its clock and the world, with the scenario steps written so far.
pub struct Sim<W: World> {
    /// The engine under test.
    pub kit: LineKit,
    /// Its clock.
    pub clock: ManualClock,
    /// The world answering requests and attempts.
    pub world: W,
    /// The scenario's steps so far.
    pub steps: Vec<Value>,
    config: Value,
    seed: u64,
    biz: String,
    url: String,
    transport: Arc<RecordingTransport>,
    /// Line hosts (of the business line's `http` pool) to line ids.
    hosts: HashMap<String, String>,
    /// (answer time, request id, completion, answer fields)
    answers: Vec<(u64, u64, Completion, Value)>,
}

/// The host of a URL (no scheme, port or path).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.split(':').next().unwrap_or("")
}

impl<W: World> Sim<W> {
    /// An engine with `config` and `seed`, whose clients call `url` of business line `biz`.
    pub fn new(config: Value, seed: u64, biz: &str, url: &str, world: W) -> Self {
        let transport = Arc::new(RecordingTransport::default());
        let (kit, clock) = super::manual::engine(config.to_string(), seed, &transport);
        let hosts = config["biz_lines"][biz]["http"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| {
                Some((
                    host_of(l["url"].as_str()?).to_string(),
                    l["id"].as_str()?.to_string(),
                ))
            })
            .collect();
        Sim {
            kit,
            clock,
            world,
            steps: Vec::new(),
            config,
            seed,
            biz: biz.to_string(),
            url: url.to_string(),
            transport,
            hosts,
            answers: Vec::new(),
        }
    }

    /// Plans the world's answer to every request the engine started at `now`.
    pub fn take_started(&mut self, now: u64) {
        for (r, done) in self.transport.take_waiting() {
            let host = host_of(&r.url);
            let line = self
                .hosts
                .get(host)
                .cloned()
                .unwrap_or_else(|| host.split('.').next().unwrap_or("").to_string());
            let (outcome, status, cost) = self.world.answer(&line, now);
            let answer = match status {
                Some(s) => json!({"status": s}),
                None => json!({"error": outcome.as_str()}),
            };
            self.answers.push((now + cost, r.id, done, answer));
        }
    }

    /// Moves time to `to`, firing timers and delivering answers in time order.
    pub fn advance(&mut self, to: u64) {
        loop {
            self.answers.sort_by_key(|a| (a.0, a.1));
            let next_answer = self.answers.first().map(|a| a.0).filter(|a| *a <= to);
            let next_timer = self.kit.next_deadline().filter(|d| *d <= to);
            match (next_timer, next_answer) {
                (Some(d), a) if a.is_none_or(|a| d <= a) => {
                    self.clock.set_now(d);
                    self.kit.run_due();
                    self.take_started(d);
                }
                (_, Some(a)) => {
                    let (at, id, done, answer) = self.answers.remove(0);
                    self.clock.set_now(a);
                    self.kit.run_due();
                    let mut step = json!({"at": at, "op": "respond", "id": id});
                    for (k, v) in answer.as_object().unwrap() {
                        step[k] = v.clone();
                    }
                    self.steps.push(step);
                    let result = match answer.get("status") {
                        Some(s) => TransportResult::Response {
                            status: s.as_u64().unwrap() as u16,
                            body: Vec::new(),
                            headers: Vec::new(),
                        },
                        None => TransportResult::Failed(TransportError::from_name(
                            answer["error"].as_str().unwrap(),
                        )),
                    };
                    done.complete(result);
                    self.kit.run_due();
                    self.take_started(a);
                }
                _ => {
                    self.clock.set_now(to);
                    self.kit.run_due();
                    self.take_started(to);
                    return;
                }
            }
        }
    }

    /// One GET at `t`, retrying line faults on the next line like the interceptor, as
    /// many times as the first decision allows (`thresholds.max_retries` under `on`, none
    /// under `observe`). Returns the first decision.
    pub fn call(&mut self, t: u64) -> Option<RouteDecision> {
        let mut exclude: Vec<String> = Vec::new();
        let mut now = t;
        let mut first: Option<RouteDecision> = None;
        loop {
            self.advance(now);
            let ex: Vec<&str> = exclude.iter().map(String::as_str).collect();
            let (d, _) = self.kit.route_with_headers::<&str, &str>(
                &self.url,
                "GET",
                &[],
                Some(Protocol::Http),
                &ex,
                None,
            );
            let mut route = json!({"at": now, "op": "route", "url": self.url, "method": "GET"});
            if !exclude.is_empty() {
                route["exclude"] = json!(exclude);
            }
            self.steps.push(route);
            self.kit.run_due();
            self.take_started(now);
            let line = d.line.as_deref().map(str::to_string);
            let first = first.get_or_insert(d);
            let Some(line) = line else {
                return Some(first.clone());
            };
            let (outcome, status, cost) = self.world.answer(&line, now);
            now += cost;
            self.advance(now);
            self.kit.report(&Report {
                status,
                ..Report::new(&self.biz, &line, outcome, cost)
            });
            let mut report = json!({"at": now, "op": "report", "biz": self.biz, "line": line,
                "outcome": outcome.as_str(), "cost_ms": cost});
            if let Some(s) = status {
                report["status"] = json!(s);
            }
            self.steps.push(report);
            self.kit.run_due();
            self.take_started(now);
            exclude.push(line);
            if !outcome.is_line_fault(status) || exclude.len() > first.max_retries as usize {
                return Some(first.clone());
            }
        }
    }

    /// Runs to `end`, adds a `state` step there, and returns the scenario of what happened.
    pub fn finish(mut self, end: u64) -> Value {
        self.advance(end);
        self.steps.push(json!({"at": end, "op": "state"}));
        self.kit.close();
        json!({"config": self.config, "seed": self.seed, "steps": self.steps})
    }
}
