//! Re-running recorded traffic under another policy: the real engine on a virtual clock,
//! driven the way the OkHttp interceptor drives it.
//!
//! Each recorded call arrives at its recorded time and is routed under the policy. The
//! attempt's outcome is the recorded one when the recording tried the same line for that
//! call (reported at the recorded time, or after the recorded cost when the attempt moved
//! in time); otherwise it comes from [`Evidence`] and the route line says `inferred: true`.
//! Each call's attempts are kept with what their outcome rests on ([`Basis`]), for the
//! [counterfactual](super::counterfactual) of requests recorded under `observe` (their one
//! recorded attempt is on the origin line, so every other line's outcome is inferred).
//! An attempt after which the recording retried, a line fault or a read timeout is retried
//! at once (or when the recording retried) on a line not tried yet, for retryable calls,
//! up to the policy's `max_retries`. Reports the recording holds without a routing
//! decision are replayed as they came. Probes the engine starts are answered the same way: a recorded
//! probe of that line started at that moment gives its recorded answer; otherwise the
//! evidence does. An answer that is a timeout at least as long as the policy's
//! `timeout_ms` is not given at all, so the engine's own deadline decides. Network changes
//! and the runtime kill switch are replayed as recorded; HTTPDNS and config fetches get
//! no answer. Nothing is answered after the trace's last event.

use super::evidence::{Basis, Evidence};
use super::rebuild::{Call, LineKey, Observed, Rebuilt, WorldStep};
use crate::replay::{execute, request_line, ScriptedTransport, Step};
use linekit_core::clock::ManualClock;
use linekit_core::config::validate::parse_config;
use linekit_core::engine::{LineKit, RuntimeMode};
use linekit_core::line::{Outcome, Protocol, Timings};
use linekit_core::trace::{MemorySink, TraceEvent};
use linekit_core::transport::{RequestKind, TransportError, TransportRequest, TransportResult};
use linekit_core::{Error, Result};
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::io::Write;
use std::sync::Arc;

/// Default distance (ms) within which evidence about a line stands in for an untried one.
pub const DEFAULT_EVIDENCE_WINDOW_MS: u64 = 30_000;

/// One attempt the replay made for a recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedAttempt {
    /// Time of the routing decision.
    pub at: u64,
    /// Line it went to.
    pub line: String,
    /// What its outcome rests on.
    pub basis: Basis,
    /// Its outcome as the replay reported it (`at` = the report's time); `None` when no
    /// report came before the trace ended.
    pub result: Option<Observed>,
}

/// What the replayed run did.
#[derive(Debug, Default)]
pub struct Replayed {
    /// The replayed engine's own trace (relative times, like the recorded run).
    pub records: Vec<TraceEvent>,
    /// Attempts whose outcome was inferred.
    pub inferred_attempts: usize,
    /// Where they were: (time, `biz/protocol/line`).
    pub inferred_at: Vec<(u64, String)>,
    /// Probes whose answer was inferred.
    pub inferred_probes: usize,
    /// Time of the last event.
    pub end_ms: u64,
    /// Per recorded call (same index as [`Rebuilt::calls`]), the attempts the replay put
    /// on a line; empty when the policy left the request on its original URL.
    pub calls: Vec<Vec<ReplayedAttempt>>,
}

enum Action {
    Arrive(usize),
    Retry(usize),
    Report(usize),
    Respond(u64, TransportResult),
    World(usize),
    Orphan(usize),
    End,
}

/// The planned outcome of a call's current attempt.
struct Planned {
    line: String,
    result: Option<Observed>,
    basis: Basis,
}

#[derive(Default)]
struct CallState {
    tried: Vec<String>,
    planned: Option<Planned>,
    attempts: Vec<ReplayedAttempt>,
}

/// Actions by time, then trace order, then insertion.
struct Queue {
    heap: BinaryHeap<Reverse<(u64, u64, u64)>>,
    actions: HashMap<u64, Action>,
    counter: u64,
}

impl Queue {
    fn push(&mut self, at: u64, order: u64, action: Action) {
        self.counter += 1;
        self.heap.push(Reverse((at, order, self.counter)));
        self.actions.insert(self.counter, action);
    }

    fn peek_at(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    fn pop(&mut self) -> Option<(u64, u64, Action)> {
        let Reverse((at, order, id)) = self.heap.pop()?;
        Some((at, order, self.actions.remove(&id)?))
    }
}

struct Driver<'a> {
    rebuilt: &'a Rebuilt,
    evidence: Evidence,
    window_ms: u64,
    max_retries: u32,
    timeout_ms: u64,
    end_ms: u64,
    engine: LineKit,
    transport: Arc<ScriptedTransport>,
    queue: Queue,
    calls: Vec<CallState>,
    /// Probe origins (`scheme://authority`) to their lines.
    probe_lines: HashMap<String, LineKey>,
    /// A host each business line of the policy claims (see [`claimed_host`]).
    hosts: HashMap<String, String>,
    /// Recorded probes by line and start time, unused ones first.
    recorded_probes: HashMap<(LineKey, u64), VecDeque<usize>>,
    inferred_attempts: usize,
    inferred_at: Vec<(u64, String)>,
    inferred_probes: usize,
}

/// Re-runs `rebuilt` under `policy_json`, writing the replay's JSON Lines to `out`.
pub fn drive(
    rebuilt: &Rebuilt,
    policy_json: &str,
    window_ms: u64,
    out: &mut dyn Write,
) -> Result<Replayed> {
    let policy = parse_config(policy_json)?;
    let clock = ManualClock::new(0, 1_700_000_000_000);
    let transport = Arc::new(ScriptedTransport::default());
    let sink = Arc::new(MemorySink::default());
    let engine = LineKit::builder()
        .config_json(policy_json)
        .clock(Arc::new(clock.clone()))
        .seed(rebuilt.seed)
        .transport(transport.clone())
        .runtime_mode(RuntimeMode::Manual)
        .trace_all(true)
        .trace_sink(sink.clone())
        .build()?;
    let mut probe_lines = HashMap::new();
    let hosts = policy
        .biz_lines
        .iter()
        .map(|(biz, b)| (biz.clone(), claimed_host(biz, &b.match_hosts)))
        .collect();
    for (biz, b) in &policy.biz_lines {
        for (protocol, lines) in [(Protocol::Ws, &b.ws), (Protocol::Http, &b.http)] {
            for l in lines {
                probe_lines.insert(probe_origin(&l.url), (biz.clone(), protocol, l.id.clone()));
            }
        }
    }
    let mut recorded_probes: HashMap<(LineKey, u64), VecDeque<usize>> = HashMap::new();
    for (i, p) in rebuilt.probes.iter().enumerate() {
        recorded_probes
            .entry((p.key.clone(), p.started))
            .or_default()
            .push_back(i);
    }
    let mut queue = Queue {
        heap: BinaryHeap::new(),
        actions: HashMap::new(),
        counter: 0,
    };
    for (i, c) in rebuilt.calls.iter().enumerate() {
        queue.push(c.at(), c.attempts[0].seq, Action::Arrive(i));
    }
    for (i, (at, seq, _)) in rebuilt.world.iter().enumerate() {
        queue.push(*at, *seq, Action::World(i));
    }
    for (i, (_, r)) in rebuilt.orphan_reports.iter().enumerate() {
        queue.push(r.at, r.seq, Action::Orphan(i));
    }
    let end_ms = rebuilt.records.last().map_or(0, |r| r.at_ms);
    queue.push(end_ms, u64::MAX, Action::End);
    let mut d = Driver {
        rebuilt,
        evidence: Evidence::of(rebuilt),
        window_ms,
        max_retries: policy.thresholds.max_retries,
        timeout_ms: policy.thresholds.timeout_ms,
        end_ms,
        engine,
        transport,
        queue,
        calls: (0..rebuilt.calls.len())
            .map(|_| CallState::default())
            .collect(),
        probe_lines,
        hosts,
        recorded_probes,
        inferred_attempts: 0,
        inferred_at: Vec::new(),
        inferred_probes: 0,
    };
    d.run(&clock, out)?;
    d.engine.close();
    let records = sink.take();
    let calls = d
        .calls
        .iter_mut()
        .map(|c| std::mem::take(&mut c.attempts))
        .collect();
    Ok(Replayed {
        records,
        calls,
        inferred_attempts: d.inferred_attempts,
        inferred_at: std::mem::take(&mut d.inferred_at),
        inferred_probes: d.inferred_probes,
        end_ms,
    })
}

/// The host a replayed call of business line `biz` is sent to: one its `match` accepts,
/// so the call's `X-Line-Biz` is honoured (a trace names hosts only by group). A business
/// line that claims no host gets a name no one claims: like the app's requests, its calls
/// are refused there and left alone.
fn claimed_host(biz: &str, patterns: &[String]) -> String {
    match patterns.first() {
        Some(p) => match p.strip_prefix("*.") {
            Some(suffix) => format!("trace.{suffix}"),
            None => p.clone(),
        },
        None => format!("{biz}.trace.invalid"),
    }
}

/// `scheme://authority` of a line URL in the HTTP family (how probes address a line).
fn probe_origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "ws" | "http" => "http",
        _ => "https",
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{}", authority.to_ascii_lowercase())
}

fn emit(out: &mut dyn Write, v: &Value) -> Result<()> {
    writeln!(out, "{v}").map_err(|e| Error::InvalidArgument(format!("output: {e}")))
}

/// The transport's answer standing for a recorded outcome.
fn transport_result(o: &Observed) -> TransportResult {
    let response = |default: u16| TransportResult::Response {
        status: o.status.unwrap_or(default),
        body: Vec::new(),
        headers: Vec::new(),
    };
    match o.outcome {
        Outcome::Ok => response(200),
        Outcome::Http4xx => response(404),
        Outcome::Http5xx => response(503),
        other => TransportResult::Failed(TransportError::from_name(other.as_str())),
    }
}

/// The `report` step of result `r` on a line.
fn report_step(at: u64, biz: &str, protocol: Protocol, line: &str, r: &Observed) -> Step {
    Step::Report {
        at,
        biz: Some(biz.to_string()),
        line: Some(line.to_string()),
        host: None,
        outcome: r.outcome.as_str().to_string(),
        status: r.status,
        cost_ms: r.cost_ms,
        dns_ms: r.timings.dns_ms,
        connect_ms: r.timings.connect_ms,
        tls_ms: r.timings.tls_ms,
        ttfb_ms: r.timings.ttfb_ms,
        protocol: Some(protocol.as_str().to_string()),
        code: None,
        duration_ms: None,
        cause: None,
        error: None,
        version: None,
    }
}

fn is_timeout(o: &Observed) -> bool {
    o.status.is_none() && matches!(o.outcome, Outcome::ConnectTimeout | Outcome::ReadTimeout)
}

impl Driver<'_> {
    /// The host calls of `biz` are sent to.
    fn host_of(&self, biz: &str) -> String {
        self.hosts
            .get(biz)
            .cloned()
            .unwrap_or_else(|| claimed_host(biz, &[]))
    }

    fn run(&mut self, clock: &ManualClock, out: &mut dyn Write) -> Result<()> {
        let mut fired = 0;
        while let Some(at) = self.queue.peek_at() {
            // Timers first, one at a time: a probe they start may be answered before `at`.
            if let Some(deadline) = self.engine.next_deadline().filter(|d| *d <= at) {
                fired += 1;
                if fired > crate::replay::MAX_TIMERS_PER_STEP {
                    return Err(crate::replay::too_many_timers(&format!(
                        "the action at {at} ms"
                    )));
                }
                clock.set_now(deadline);
                self.engine.run_due();
                self.started(deadline, out)?;
                continue;
            }
            fired = 0;
            clock.set_now(at);
            self.engine.run_due();
            let Some((at, order, action)) = self.queue.pop() else {
                break;
            };
            if matches!(action, Action::End) {
                break;
            }
            self.perform(at, order, action, out)?;
            self.engine.run_due();
            self.started(at, out)?;
        }
        Ok(())
    }

    fn perform(&mut self, at: u64, order: u64, action: Action, out: &mut dyn Write) -> Result<()> {
        match action {
            Action::Arrive(c) | Action::Retry(c) => self.attempt(c, at, order, out),
            Action::Report(c) => self.report(c, at, order),
            Action::Orphan(i) => {
                let ((biz, protocol, line), r) = &self.rebuilt.orphan_reports[i];
                execute(
                    &self.engine,
                    &report_step(at, biz, *protocol, line, r),
                    &self.transport,
                )?;
                Ok(())
            }
            Action::Respond(id, result) => {
                self.transport.respond(id, result);
                Ok(())
            }
            Action::World(i) => {
                let step = match &self.rebuilt.world[i].2 {
                    WorldStep::Network(n) => Step::Network {
                        at,
                        handle: n.handle,
                        validated: n.validated,
                        vpn: n.vpn,
                        private_dns: Some(n.private_dns.clone()),
                        proxy: n.proxy,
                        transport: n.transport.clone(),
                    },
                    WorldStep::Downgrade(on) => Step::Downgrade { at, on: *on },
                };
                execute(&self.engine, &step, &self.transport)?;
                Ok(())
            }
            Action::End => Ok(()),
        }
    }

    /// Routes the next attempt of call `c` and plans its outcome.
    fn attempt(&mut self, c: usize, at: u64, order: u64, out: &mut dyn Write) -> Result<()> {
        let call: &Call = &self.rebuilt.calls[c];
        let scheme = match call.protocol {
            Protocol::Ws => "wss",
            Protocol::Http => "https",
        };
        let step = Step::Route {
            at,
            biz: Some(call.biz.clone()),
            url: format!("{scheme}://{}/", self.host_of(&call.biz)),
            method: call.method.clone(),
            headers: BTreeMap::new(),
            exclude: self.calls[c].tried.clone(),
            protocol: Some(call.protocol.as_str().to_string()),
            mode: None,
        };
        let Some(mut line) = execute(&self.engine, &step, &self.transport)? else {
            return Ok(());
        };
        let chosen = line["line"].as_str().map(str::to_string);
        match chosen {
            Some(id) if !self.calls[c].tried.contains(&id) => {
                let attempt_no = self.calls[c].tried.len();
                let (planned, report_at, report_order) = self.plan(c, &id, at, order, attempt_no);
                if planned.basis.is_inferred() {
                    line["inferred"] = json!(true);
                    self.inferred_attempts += 1;
                    self.inferred_at
                        .push((at, format!("{}/{}/{id}", call.biz, call.protocol)));
                }
                self.calls[c].attempts.push(ReplayedAttempt {
                    at,
                    line: id.clone(),
                    basis: planned.basis,
                    result: None,
                });
                self.calls[c].tried.push(id);
                if planned.result.is_some() {
                    self.queue.push(report_at, report_order, Action::Report(c));
                }
                self.calls[c].planned = Some(planned);
            }
            // No line, or only lines already tried: the call ends here.
            _ => {}
        }
        emit(out, &line)
    }

    /// The outcome of call `c`'s attempt on `line` routed at `at`, with the report's time
    /// and order.
    fn plan(
        &self,
        c: usize,
        line: &str,
        at: u64,
        order: u64,
        attempt_no: usize,
    ) -> (Planned, u64, u64) {
        let call = &self.rebuilt.calls[c];
        if let Some((i, a)) = call
            .attempts
            .iter()
            .enumerate()
            .find(|(_, a)| a.line == line)
        {
            let (report_at, report_order) = match &a.result {
                Some(r) if i == attempt_no && a.at == at => (r.at, r.seq),
                Some(r) => (at.saturating_add(r.at.saturating_sub(a.at)), order),
                None => (at, order),
            };
            let planned = Planned {
                line: line.to_string(),
                result: a.result.clone(),
                basis: Basis::Recorded,
            };
            return (planned, report_at, report_order);
        }
        let key = (call.biz.clone(), call.protocol, line.to_string());
        let (result, basis) = match self.evidence.nearest(&key, at, self.window_ms) {
            Some((e, basis)) => (e.clone(), basis),
            None => (
                Observed {
                    at,
                    seq: order,
                    outcome: Outcome::Ok,
                    status: None,
                    cost_ms: call.attempts[0].result.as_ref().map_or(0, |r| r.cost_ms),
                    timings: Timings::default(),
                },
                Basis::Assumed,
            ),
        };
        let report_at = at.saturating_add(result.cost_ms);
        (
            Planned {
                line: line.to_string(),
                result: Some(result),
                basis,
            },
            report_at,
            order,
        )
    }

    /// Reports call `c`'s planned outcome; a line fault is retried when allowed.
    fn report(&mut self, c: usize, at: u64, order: u64) -> Result<()> {
        let call = &self.rebuilt.calls[c];
        let Some(planned) = self.calls[c].planned.take() else {
            return Ok(());
        };
        let Some(r) = planned.result else {
            return Ok(());
        };
        let step = report_step(at, &call.biz, call.protocol, &planned.line, &r);
        execute(&self.engine, &step, &self.transport)?;
        if let Some(a) = self.calls[c].attempts.last_mut() {
            a.result = Some(Observed { at, ..r.clone() });
        }
        let tried = self.calls[c].tried.len();
        // The recording retried after this same attempt: retry when it did.
        let recorded_retry = match (call.attempts.get(tried - 1), call.attempts.get(tried)) {
            (Some(prev), Some(next)) if prev.line == planned.line && next.at >= at => {
                Some((next.at, next.seq))
            }
            _ => None,
        };
        let worth_retrying = recorded_retry.is_some()
            || (!planned.basis.is_inferred() && call.attempts.len() > tried)
            || r.outcome.is_line_fault(r.status)
            || r.outcome == Outcome::ReadTimeout;
        if worth_retrying && call.retryable() && tried <= self.max_retries as usize {
            let (retry_at, retry_order) = recorded_retry.unwrap_or((at, order));
            self.queue.push(retry_at, retry_order, Action::Retry(c));
        }
        Ok(())
    }

    /// Prints and plans the answers of requests the engine started at `at`.
    fn started(&mut self, at: u64, out: &mut dyn Write) -> Result<()> {
        for r in self.transport.drain_started() {
            emit(out, &request_line(at, &r))?;
            if r.kind == RequestKind::Probe {
                self.answer_probe(&r, at);
            }
        }
        Ok(())
    }

    fn answer_probe(&mut self, r: &TransportRequest, at: u64) {
        let origin = probe_origin(&r.url);
        let Some(key) = self.probe_lines.get(&origin).cloned() else {
            return;
        };
        let recorded = self
            .recorded_probes
            .get_mut(&(key.clone(), at))
            .and_then(VecDeque::pop_front);
        let (result, answer_at, order) = match recorded {
            Some(i) => {
                let p = &self.rebuilt.probes[i];
                (p.result.clone(), p.result.at, p.result.seq)
            }
            None => {
                self.inferred_probes += 1;
                match self.evidence.nearest(&key, at, self.window_ms) {
                    Some((e, _)) => (e.clone(), at.saturating_add(e.cost_ms), e.seq),
                    None => (
                        Observed {
                            at,
                            seq: 0,
                            outcome: Outcome::Ok,
                            status: Some(200),
                            cost_ms: 0,
                            timings: Timings::default(),
                        },
                        at,
                        0,
                    ),
                }
            }
        };
        if (is_timeout(&result) && result.cost_ms >= self.timeout_ms) || answer_at > self.end_ms {
            return;
        }
        self.queue.push(
            answer_at,
            order,
            Action::Respond(r.id, transport_result(&result)),
        );
    }
}
