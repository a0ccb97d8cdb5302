//! `linekit replay`: drives the real engine with a virtual clock and a scripted world
//! (format: `docs/replay.md`), printing one JSON line per observable result.
//!
//! A scenario is `{ "config": {...}, "seed": N, "steps": [ {"at": ms, "op": ..}, .. ] }`.
//! Every step is parsed and checked before anything runs, so a bad scenario fails with the
//! index of the offending step and prints nothing. `at` is virtual monotonic time and must
//! not decrease. The output depends only on the scenario: running it twice gives
//! byte-identical output.

use linekit_core::clock::ManualClock;
use linekit_core::config::validate::parse_config;
use linekit_core::dns::ConnectError;
use linekit_core::engine::{LineKit, Report, RuntimeMode};
use linekit_core::line::rollout::RolloutMode;
use linekit_core::line::{Outcome, Protocol, Timings, WsEvent};
use linekit_core::net::{NetworkState, PrivateDnsMode};
use linekit_core::trace::event::NoopSink;
use linekit_core::transport::{
    Completion, Transport, TransportError, TransportRequest, TransportResult,
};
use linekit_core::{Error, Result};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::io::Write;
use std::net::IpAddr;
use std::sync::Arc;

/// Largest scenario accepted (bytes).
pub const MAX_SCENARIO_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    config: Value,
    #[serde(default)]
    seed: u64,
    /// Unix milliseconds of the wall clock at virtual time 0.
    #[serde(default = "default_wall_start_ms")]
    wall_start_ms: u64,
    /// The engine waits for a `consent` step before sending anything of its own.
    #[serde(default)]
    require_consent: bool,
    steps: Vec<Value>,
}

/// The wall clock at virtual time 0 when a scenario does not say.
pub const DEFAULT_WALL_START_MS: u64 = 1_700_000_000_000;

/// Latest `wall_start_ms`: 9999-12-31T23:59:59.999Z. Later values leave no room for the
/// scenario's own time before the wall clock would overflow.
pub const MAX_WALL_START_MS: u64 = 253_402_300_799_999;

/// Latest `at` of a step: 366 days of virtual time. A later step would have the engine fire
/// every timer of that span first (revive checks, refreshes, fetch rounds), for nothing.
pub const MAX_AT_MS: u64 = 366 * 86_400_000;

/// Most timers fired before one step (between two steps, or before the what-if driver's
/// next action). More means a timer that keeps rescheduling itself at once: the run stops
/// with an error instead of spinning.
pub const MAX_TIMERS_PER_STEP: usize = 100_000;

/// The error of a run that fired more than [`MAX_TIMERS_PER_STEP`] timers before `what`.
pub(crate) fn too_many_timers(what: &str) -> Error {
    Error::InvalidArgument(format!(
        "{what}: more than {MAX_TIMERS_PER_STEP} timers fired before it (a timer that \
         reschedules itself at once?)"
    ))
}

fn default_wall_start_ms() -> u64 {
    DEFAULT_WALL_START_MS
}

/// One step of a scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Route a request and print the decision.
    Route {
        /// Virtual time.
        at: u64,
        /// Business line (same as an `X-Line-Biz` header).
        #[serde(default)]
        biz: Option<String>,
        /// Request URL.
        url: String,
        /// Method.
        #[serde(default = "get")]
        method: String,
        /// Request headers.
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// Line ids already tried in this call.
        #[serde(default)]
        exclude: Vec<String>,
        /// `http` (default) or `ws`.
        #[serde(default)]
        protocol: Option<String>,
        /// A retry's call mode: the `mode` its first attempt printed (`off`, `observe`,
        /// `on`).
        #[serde(default)]
        mode: Option<String>,
    },
    /// Report the outcome of an attempt.
    Report {
        /// Virtual time.
        at: u64,
        /// Business line.
        #[serde(default)]
        biz: Option<String>,
        /// Line id.
        #[serde(default)]
        line: Option<String>,
        /// Host, when the line id is not given.
        #[serde(default)]
        host: Option<String>,
        /// Outcome name.
        outcome: String,
        /// HTTP status.
        #[serde(default)]
        status: Option<u16>,
        /// Total cost.
        #[serde(default)]
        cost_ms: u64,
        /// DNS time.
        #[serde(default)]
        dns_ms: Option<u64>,
        /// Connect time.
        #[serde(default)]
        connect_ms: Option<u64>,
        /// TLS time.
        #[serde(default)]
        tls_ms: Option<u64>,
        /// Time to first byte.
        #[serde(default)]
        ttfb_ms: Option<u64>,
        /// `http` (default) or `ws`.
        #[serde(default)]
        protocol: Option<String>,
        /// `ws_closed`: close code.
        #[serde(default)]
        code: Option<u16>,
        /// `ws_closed`: open → close; `ws_first_message`: open → first message.
        #[serde(default)]
        duration_ms: Option<u64>,
        /// `ws_closed`: `remote` (default), `network_changed`, `background`, `local`.
        #[serde(default)]
        cause: Option<String>,
        /// `ws_handshake_failed` without a response: the failure kind (an outcome name).
        #[serde(default)]
        error: Option<String>,
        /// Value of the business line's `version_header` on the response.
        #[serde(default)]
        version: Option<String>,
    },
    /// The default network changed.
    Network {
        /// Virtual time.
        at: u64,
        /// Network handle.
        handle: u64,
        /// Whether the network is validated.
        validated: bool,
        /// VPN.
        #[serde(default)]
        vpn: bool,
        /// Private DNS mode.
        #[serde(default)]
        private_dns: Option<String>,
        /// HTTP proxy set.
        #[serde(default)]
        proxy: bool,
        /// Transport type.
        #[serde(default)]
        transport: Option<String>,
    },
    /// Offer a remote config.
    Config {
        /// Virtual time.
        at: u64,
        /// The config document.
        config: Value,
    },
    /// Kill switch.
    Downgrade {
        /// Virtual time.
        at: u64,
        /// On or off.
        on: bool,
    },
    /// Print every pool's ranked lines.
    State {
        /// Virtual time.
        at: u64,
    },
    /// Only move the clock.
    Tick {
        /// Virtual time.
        at: u64,
    },
    /// Answer a request the engine started (a `request` output line).
    Respond {
        /// Virtual time.
        at: u64,
        /// The request's id.
        id: u64,
        /// HTTP status (default 200 when no `error`).
        #[serde(default)]
        status: Option<u16>,
        /// Response body as text.
        #[serde(default)]
        body: Option<String>,
        /// Response body as hex.
        #[serde(default)]
        body_hex: Option<String>,
        /// Transport error instead of a response (`connect_refused`, `timeout`, …).
        #[serde(default)]
        error: Option<String>,
        /// Response headers, name → value (a probe's `version_header`, a config fetch's
        /// `ETag`, for example).
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// Resolve a host through the HTTPDNS cache; prints `addresses` and `source`.
    Lookup {
        /// Virtual time.
        at: u64,
        /// Host name.
        host: String,
    },
    /// A connect to `ip` for `host` failed (`error` is a `ConnectError` name).
    ConnectFailed {
        /// Virtual time.
        at: u64,
        /// Host name.
        host: String,
        /// The address that failed.
        ip: String,
        /// `connect_refused`, `connect_timeout`, `no_route`, `tls_failure`, `http_5xx`,
        /// `read_timeout`, `proxy_connect` or `cancelled`.
        error: String,
    },
    /// A connect to `ip` for `host` succeeded (clears its quarantine).
    ConnectSucceeded {
        /// Virtual time.
        at: u64,
        /// Host name.
        host: String,
        /// The address.
        ip: String,
        /// How long the connect took (feeds the per-address ranking).
        #[serde(default)]
        connect_ms: Option<u64>,
    },
    /// Ask for a detect of a business line.
    Detect {
        /// Virtual time.
        at: u64,
        /// Business line.
        biz: String,
    },
    /// The user granted (`true`) or withdrew (`false`) consent.
    Consent {
        /// Virtual time.
        at: u64,
        /// Granted or revoked.
        granted: bool,
    },
}

fn get() -> String {
    "GET".to_string()
}

impl Step {
    fn at(&self) -> u64 {
        match self {
            Step::Route { at, .. }
            | Step::Report { at, .. }
            | Step::Network { at, .. }
            | Step::Config { at, .. }
            | Step::Downgrade { at, .. }
            | Step::Respond { at, .. }
            | Step::Detect { at, .. }
            | Step::Consent { at, .. }
            | Step::Lookup { at, .. }
            | Step::ConnectFailed { at, .. }
            | Step::ConnectSucceeded { at, .. }
            | Step::State { at }
            | Step::Tick { at } => *at,
        }
    }
}

fn parse_ip(ip: &str, path: &str) -> Result<IpAddr> {
    ip.parse()
        .map_err(|_| Error::InvalidArgument(format!("{path}.ip: not an IP address")))
}

/// How many extra lines the call of decision `d` may try: the decision's own
/// `max_retries`, and none for a request that may not be sent twice (the core's replay
/// rule; a scenario's request bodies are never one-shot).
fn call_retries(
    d: &linekit_core::engine::RouteDecision,
    method: &str,
    headers: &[(&str, &str)],
) -> u32 {
    let keyed = linekit_core::line::headers::LineHeaders::parse(headers).idempotency_key;
    if linekit_core::line::replay::replayable(method, keyed, false) {
        d.max_retries
    } else {
        0
    }
}

fn call_mode(m: &Option<String>, path: &str) -> Result<Option<RolloutMode>> {
    m.as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| Error::InvalidArgument(format!("{path}.mode: {e}")))
}

fn protocol(p: &Option<String>, path: &str) -> Result<Protocol> {
    match p.as_deref() {
        None => Ok(Protocol::Http),
        Some(s) => s
            .parse()
            .map_err(|e: String| Error::InvalidArgument(format!("{path}.protocol: {e}"))),
    }
}

/// Parses and checks a scenario: the config must validate, every step must parse, `at`
/// must not decrease and names (outcomes, protocols) must be known.
pub fn parse_scenario(text: &str) -> Result<(String, u64, Vec<Step>)> {
    parse_scenario_at(text).map(|(config, seed, _, steps)| (config, seed, steps))
}

/// [`parse_scenario`], also returning `wall_start_ms`.
pub fn parse_scenario_at(text: &str) -> Result<(String, u64, u64, Vec<Step>)> {
    parse_checked(text).map(|p| (p.config, p.seed, p.wall_start_ms, p.steps))
}

/// A scenario that parsed and passed its checks.
struct Parsed {
    config: String,
    seed: u64,
    wall_start_ms: u64,
    require_consent: bool,
    steps: Vec<Step>,
}

fn parse_checked(text: &str) -> Result<Parsed> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(Error::InvalidArgument(format!(
            "scenario is {} bytes; limit is {MAX_SCENARIO_BYTES}",
            text.len()
        )));
    }
    let scenario: Scenario =
        serde_json::from_str(text).map_err(|e| Error::InvalidArgument(format!("scenario: {e}")))?;
    if scenario.wall_start_ms > MAX_WALL_START_MS {
        return Err(Error::InvalidArgument(format!(
            "wall_start_ms: {} is later than {MAX_WALL_START_MS} (9999-12-31)",
            scenario.wall_start_ms
        )));
    }
    let config = scenario.config.to_string();
    let mut steps = Vec::with_capacity(scenario.steps.len());
    let mut last_at = 0;
    for (i, raw) in scenario.steps.into_iter().enumerate() {
        let path = format!("steps[{i}]");
        let step: Step = serde_json::from_value(raw)
            .map_err(|e| Error::InvalidArgument(format!("{path}: {e}")))?;
        if step.at() > MAX_AT_MS {
            return Err(Error::InvalidArgument(format!(
                "{path}.at: {} is later than {MAX_AT_MS} (366 days of virtual time)",
                step.at()
            )));
        }
        if step.at() < last_at {
            return Err(Error::InvalidArgument(format!(
                "{path}.at: {} is earlier than the previous step ({last_at})",
                step.at()
            )));
        }
        last_at = step.at();
        match &step {
            Step::Route {
                protocol: p, mode, ..
            } => {
                protocol(p, &path)?;
                call_mode(mode, &path)?;
            }
            Step::Report {
                outcome,
                protocol: p,
                line,
                host,
                ..
            } => {
                protocol(p, &path)?;
                if outcome.starts_with("ws_") {
                    ws_event(&step).map_err(|e| Error::InvalidArgument(format!("{path}: {e}")))?;
                } else {
                    outcome
                        .parse::<Outcome>()
                        .map_err(|e| Error::InvalidArgument(format!("{path}.outcome: {e}")))?;
                }
                if line.is_none() && host.is_none() {
                    return Err(Error::InvalidArgument(format!(
                        "{path}: a report needs `line` or `host`"
                    )));
                }
            }
            Step::Network {
                private_dns: Some(mode),
                ..
            } if !matches!(mode.as_str(), "off" | "opportunistic" | "strict") => {
                return Err(Error::InvalidArgument(format!(
                    "{path}.private_dns: expected off, opportunistic or strict"
                )));
            }
            Step::Respond {
                body,
                body_hex,
                error,
                status,
                headers,
                ..
            } => {
                if body.is_some() && body_hex.is_some() {
                    return Err(Error::InvalidArgument(format!(
                        "{path}: give `body` or `body_hex`, not both"
                    )));
                }
                if let Some(hex) = body_hex {
                    decode_hex(hex)
                        .map_err(|e| Error::InvalidArgument(format!("{path}.body_hex: {e}")))?;
                }
                if error.is_some()
                    && (status.is_some()
                        || body.is_some()
                        || body_hex.is_some()
                        || !headers.is_empty())
                {
                    return Err(Error::InvalidArgument(format!(
                        "{path}: an `error` has no status, body or headers"
                    )));
                }
            }
            Step::ConnectFailed { ip, error, .. } => {
                parse_ip(ip, &path)?;
                error
                    .parse::<ConnectError>()
                    .map_err(|e| Error::InvalidArgument(format!("{path}.error: {e}")))?;
            }
            Step::ConnectSucceeded { ip, .. } => {
                parse_ip(ip, &path)?;
            }
            _ => {}
        }
        steps.push(step);
    }
    Ok(Parsed {
        config,
        seed: scenario.seed,
        wall_start_ms: scenario.wall_start_ms,
        require_consent: scenario.require_consent,
        steps,
    })
}

/// Runs a scenario, writing JSON Lines to `out`.
pub fn run(text: &str, out: &mut dyn Write) -> Result<()> {
    run_traced(text, out, None)
}

/// Runs a scenario like [`run`]; with a sink, every trace event of the run goes to it
/// (every window recorded, whatever the config's `trace.sample_rate`).
pub fn run_traced(
    text: &str,
    out: &mut dyn Write,
    trace: Option<Arc<dyn linekit_core::trace::TraceSink>>,
) -> Result<()> {
    let Parsed {
        config: config_text,
        seed,
        wall_start_ms,
        require_consent,
        steps,
    } = parse_checked(text)?;
    parse_config(&config_text)?;
    let clock = ManualClock::new(0, wall_start_ms);
    let transport = Arc::new(ScriptedTransport::default());
    let engine = LineKit::builder()
        .config_json(config_text)
        .clock(Arc::new(clock.clone()))
        .seed(seed)
        .transport(transport.clone())
        .runtime_mode(RuntimeMode::Manual)
        .trace_all(trace.is_some())
        .require_consent(require_consent)
        .trace_sink(trace.unwrap_or_else(|| Arc::new(NoopSink)))
        .build()?;
    let mut emit =
        |v: Value| writeln!(out, "{v}").map_err(|e| Error::InvalidArgument(format!("output: {e}")));
    for (i, step) in steps.iter().enumerate() {
        // Fire every timer due before this step, each at its own time.
        let mut fired = 0;
        while let Some(deadline) = engine.next_deadline().filter(|d| *d <= step.at()) {
            fired += 1;
            if fired > MAX_TIMERS_PER_STEP {
                engine.close();
                return Err(too_many_timers(&format!("steps[{i}]")));
            }
            clock.set_now(deadline);
            engine.run_due();
            for r in transport.drain_started() {
                emit(request_line(deadline, &r))?;
            }
        }
        clock.set_now(step.at());
        engine.run_due();
        if let Some(line) = execute(&engine, step, &transport)? {
            emit(line)?;
        }
        engine.run_due();
        for r in transport.drain_started() {
            emit(request_line(step.at(), &r))?;
        }
    }
    engine.close();
    Ok(())
}

/// The replay's transport: requests are printed and answered by `respond` steps.
#[derive(Default)]
pub(crate) struct ScriptedTransport {
    started: Mutex<Vec<TransportRequest>>,
    waiting: Mutex<HashMap<u64, Completion>>,
}

impl ScriptedTransport {
    pub(crate) fn drain_started(&self) -> Vec<TransportRequest> {
        std::mem::take(&mut *self.started.lock())
    }

    /// Delivers a scripted answer; unknown or already finished ids are ignored (the
    /// engine's deadline may have fired first).
    pub(crate) fn respond(&self, id: u64, result: TransportResult) {
        let done = self.waiting.lock().remove(&id);
        if let Some(done) = done {
            done.complete(result);
        }
    }
}

impl Transport for ScriptedTransport {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.waiting.lock().insert(request.id, done);
        self.started.lock().push(request);
    }

    fn cancel(&self, id: u64) {
        self.waiting.lock().remove(&id);
    }
}

/// The WebSocket event of a `report` step whose outcome is `ws_*`.
fn ws_event(step: &Step) -> std::result::Result<WsEvent, String> {
    let Step::Report {
        outcome,
        status,
        cost_ms,
        code,
        duration_ms,
        cause,
        error,
        ..
    } = step
    else {
        return Err("not a report".to_string());
    };
    Ok(match outcome.as_str() {
        "ws_open" => WsEvent::Open {
            handshake_ms: *cost_ms,
        },
        "ws_handshake_failed" => WsEvent::HandshakeFailed {
            status: *status,
            error: error
                .as_deref()
                .map(str::parse::<Outcome>)
                .transpose()
                .map_err(|e| format!("error: {e}"))?,
            cost_ms: *cost_ms,
        },
        "ws_first_message" => WsEvent::FirstMessage {
            after_open_ms: duration_ms.unwrap_or(*cost_ms),
        },
        "ws_closed" => WsEvent::Closed {
            code: code.ok_or("ws_closed needs `code`")?,
            duration_ms: duration_ms.ok_or("ws_closed needs `duration_ms`")?,
            cause: cause
                .as_deref()
                .map(str::parse)
                .transpose()?
                .unwrap_or_default(),
        },
        other => return Err(format!("unknown WebSocket outcome {other:?}")),
    })
}

/// The `request` line of `r`: its URL redacted (the query as a digest, see
/// [`linekit_core::trace::redact_url`]), since it may carry a provider's token or ids.
pub(crate) fn request_line(at: u64, r: &TransportRequest) -> Value {
    let url = linekit_core::trace::redact_url(&r.url);
    line(
        at,
        "request",
        json!({ "id": r.id, "kind": r.kind.as_str(), "method": r.method, "url": url }),
    )
}

fn decode_hex(hex: &str) -> std::result::Result<Vec<u8>, String> {
    let clean: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if clean.len() % 2 != 0 {
        return Err("odd number of hex digits".to_string());
    }
    clean
        .chunks(2)
        .map(|pair| {
            let digit = |b: u8| {
                (b as char)
                    .to_digit(16)
                    .ok_or_else(|| "not a hex digit".to_string())
            };
            Ok((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect()
}

fn line(at: u64, op: &str, fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("at".into(), json!(at));
    m.insert("op".into(), json!(op));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    Value::Object(m)
}

pub(crate) fn execute(
    engine: &LineKit,
    step: &Step,
    transport: &ScriptedTransport,
) -> Result<Option<Value>> {
    Ok(match step {
        Step::Route {
            at,
            biz,
            url,
            method,
            headers,
            exclude,
            protocol: p,
            mode,
        } => {
            let mut pairs: Vec<(&str, &str)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            if let Some(b) = biz {
                pairs.push((linekit_core::line::headers::BIZ, b));
            }
            let exclude: Vec<&str> = exclude.iter().map(String::as_str).collect();
            let explicit = match p {
                Some(_) => Some(protocol(p, "route")?),
                None => None,
            };
            let mode = call_mode(mode, "route")?;
            let (d, sent) =
                engine.route_with_headers(url, method, &pairs, explicit, &exclude, mode);
            let sent: Map<String, Value> = sent
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect();
            let mut fields = json!({
                "url": d.url(url),
                "line": d.line.as_deref(),
                "reason": d.reason.as_str(),
                "headers": sent,
                "protocol": d.protocol.as_str(),
                "version_mismatch": d.version_mismatch,
                "mode": d.mode.as_str(),
                "max_retries": call_retries(&d, method, &pairs),
            });
            if let Some(would) = &d.would {
                fields["would_line"] = json!(would.line.as_deref());
                fields["would_reason"] = json!(would.reason.as_str());
                fields["would_healthy"] = json!(would.healthy);
            }
            Some(line(*at, "route", fields))
        }
        Step::Report {
            biz,
            line: id,
            host,
            outcome,
            status,
            cost_ms,
            dns_ms,
            connect_ms,
            tls_ms,
            ttfb_ms,
            protocol: p,
            version,
            ..
        } => {
            if outcome.starts_with("ws_") {
                let event = ws_event(step).map_err(Error::InvalidArgument)?;
                let (Some(biz), Some(id)) = (biz, id) else {
                    return Err(Error::InvalidArgument(
                        "a ws_* report needs `biz` and `line`".into(),
                    ));
                };
                engine.report_ws(biz, id, event);
                return Ok(None);
            }
            let outcome: Outcome = outcome.parse().map_err(Error::InvalidArgument)?;
            engine.report(&Report {
                biz: biz.as_deref(),
                protocol: protocol(p, "report")?,
                line: id.as_deref(),
                host: host.as_deref(),
                outcome,
                status: *status,
                cost_ms: *cost_ms,
                timings: Timings {
                    dns_ms: *dns_ms,
                    connect_ms: *connect_ms,
                    tls_ms: *tls_ms,
                    ttfb_ms: *ttfb_ms,
                },
                version: version.as_deref(),
            });
            None
        }
        Step::Network {
            handle,
            validated,
            vpn,
            private_dns,
            proxy,
            transport: kind,
            ..
        } => {
            let private_dns = match private_dns.as_deref() {
                Some("strict") => PrivateDnsMode::Strict,
                Some("opportunistic") => PrivateDnsMode::Opportunistic,
                _ => PrivateDnsMode::Off,
            };
            engine.on_network_changed(NetworkState {
                handle: *handle,
                validated: *validated,
                vpn: *vpn,
                private_dns,
                proxy: *proxy,
                transport: kind.clone(),
            });
            None
        }
        Step::Respond {
            id,
            status,
            body,
            body_hex,
            error,
            headers,
            ..
        } => {
            let result = match error {
                Some(e) => TransportResult::Failed(TransportError::from_name(e)),
                None => {
                    let body = match (body, body_hex) {
                        (_, Some(hex)) => decode_hex(hex).map_err(Error::InvalidArgument)?,
                        (Some(text), None) => text.as_bytes().to_vec(),
                        (None, None) => Vec::new(),
                    };
                    TransportResult::Response {
                        status: status.unwrap_or(200),
                        body,
                        headers: headers
                            .iter()
                            .map(|(n, v)| (n.clone(), v.clone()))
                            .collect(),
                    }
                }
            };
            transport.respond(*id, result);
            None
        }
        Step::Detect { biz, .. } => {
            engine.detect(biz);
            None
        }
        Step::Consent { granted, .. } => {
            if *granted {
                engine.grant_consent();
            } else {
                engine.revoke_consent();
            }
            None
        }
        Step::Lookup { at, host } => {
            let l = engine.lookup(host);
            let addrs: Vec<String> = l.addrs.iter().map(ToString::to_string).collect();
            let mut fields =
                json!({ "host": host, "addresses": addrs, "source": l.source.as_str() });
            if let Some(fallback) = &l.fallback {
                let list: Vec<String> = fallback.iter().map(ToString::to_string).collect();
                fields["fallback"] = json!(list);
            }
            Some(line(*at, "lookup", fields))
        }
        Step::ConnectFailed {
            host, ip, error, ..
        } => {
            let error: ConnectError = error.parse().map_err(Error::InvalidArgument)?;
            engine.connect_failed(host, parse_ip(ip, "connect_failed")?, error);
            None
        }
        Step::ConnectSucceeded {
            host,
            ip,
            connect_ms,
            ..
        } => {
            let ip = parse_ip(ip, "connect_succeeded")?;
            match connect_ms {
                Some(ms) => engine.connect_succeeded_ms(host, ip, *ms),
                None => engine.connect_succeeded(host, ip),
            }
            None
        }
        Step::Config { at, config } => {
            let u = engine.update_config(&config.to_string());
            let mut fields = json!({ "applied": u.applied, "version": u.version });
            if let Some(e) = u.error {
                fields["error"] = json!(e);
            }
            Some(line(*at, "config", fields))
        }
        Step::Downgrade { on, .. } => {
            engine.set_downgrade(*on);
            None
        }
        Step::State { at } => Some(line(
            *at,
            "state",
            json!({
                "pools": engine.pools(),
                "config": engine.config_status(),
                "rollout": engine.rollout_modes(),
            }),
        )),
        Step::Tick { .. } => None,
    })
}
