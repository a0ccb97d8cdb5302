//! The wire form of a trace event: [`TraceRecord`], one line of a trace file, every field
//! of every kind side by side (absent when not set), in the order trace files have always
//! had them. [`TraceEvent`] — the typed event the engine builds and tools read — is written
//! and read only through it: [`TraceRecord::of`] flattens an event, [`TraceRecord::typed`]
//! checks a record and types it, naming the first field that is missing or unknown.
//! `docs/trace.schema.json` is generated from this form, the one the files hold.

use super::event::{
    AttemptTrace, BreakerTrace, ConfigTrace, RouteTrace, TraceBody, TraceEvent, TraceKind,
    TraceLine, WouldTrace,
};
use super::Reason;
use crate::line::{BreakerState, Protocol, Timings};
use serde::{Deserialize, Serialize};

/// The network of a network event: no addresses, names or SSIDs.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TraceNetwork {
    /// Platform network handle.
    pub handle: u64,
    /// Whether the network is validated.
    pub validated: bool,
    /// VPN.
    #[serde(default)]
    pub vpn: bool,
    /// Private DNS mode: `off`, `opportunistic` or `strict`.
    #[serde(default = "off")]
    pub private_dns: String,
    /// HTTP proxy set.
    #[serde(default)]
    pub proxy: bool,
    /// Transport type (`wifi`, `cellular`, ...).
    pub transport: Option<String>,
}

fn off() -> String {
    "off".to_string()
}

impl From<&crate::net::NetworkState> for TraceNetwork {
    /// What a trace (and the engine's state) says about a network the platform reported.
    fn from(network: &crate::net::NetworkState) -> Self {
        TraceNetwork {
            handle: network.handle,
            validated: network.validated,
            vpn: network.vpn,
            private_dns: network.private_dns.as_str().to_string(),
            proxy: network.proxy,
            transport: network.transport.clone(),
        }
    }
}

/// One line of a trace file (see [`super::format`]): the fields of every kind of event, in
/// declaration order; a `None` field is absent. Hosts appear only as redacted groups (see
/// [`super::redact::host_group`]); URLs, paths, queries and tokens never appear.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(
        title = "Linekit trace event",
        description = "One line of a trace file."
    )
)]
pub struct TraceRecord {
    /// What the event describes.
    pub kind: TraceKind,
    /// Monotonic time of the event (ms; the origin is the recording device's).
    pub at_ms: u64,
    /// Business line.
    pub biz: Option<String>,
    /// Pool of the line: `http` or `ws`.
    pub protocol: Option<String>,
    /// Line id.
    pub line: Option<String>,
    /// Redacted group of the request's logical host (`*.example.com`, `ip`).
    pub logical_host: Option<String>,
    /// Redacted group of the host the request was sent to.
    pub final_host: Option<String>,
    /// Reason code of a routing decision (`sticky`, `ranked`, `guarded`, ...).
    pub reason: Option<String>,
    /// The routing decision reused the pool's current line.
    #[serde(default)]
    pub from_cache: bool,
    /// The kill switch was on (route events); the new kill switch state (downgrade events).
    #[serde(default)]
    pub downgrade: bool,
    /// A fixed host pinned the request.
    #[serde(default)]
    pub fixed_host: bool,
    /// Outcome of a report or probe, a name of the outcome vocabulary (`ok`, `http_5xx`,
    /// `connection_reset`, `truncated`, ...; see `docs/replay.md#outcomes`).
    pub outcome: Option<String>,
    /// HTTP status of a report or probe, when a response arrived.
    pub status: Option<u16>,
    /// Phase times of a report or probe: `dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`.
    #[serde(flatten)]
    pub timings: Timings,
    /// Total time of the attempt or probe (ms).
    pub total_ms: Option<u64>,
    /// Free-form detail without sensitive data (`closed -> open`, `applied version 3`).
    pub detail: Option<String>,
    /// The recording install (its seed, 16 hex digits).
    pub install: String,
    /// Position of the event in the install's trace, from 0, without gaps.
    pub seq: u64,
    /// HTTP method of a routed request.
    pub method: Option<String>,
    /// Attempt of a routed request within its call: 0, then one more per retry.
    pub attempt: Option<u32>,
    /// Line ids a retry excluded (the lines its call already tried).
    pub exclude: Option<Vec<String>>,
    /// Rollout mode a routed request went under: `off`, `observe` or `on`.
    pub mode: Option<String>,
    /// Under `observe`: the line `on` would have chosen (absent when it would have kept
    /// the URL as well).
    pub would_line: Option<String>,
    /// Under `observe`: the reason code `on` would have given.
    pub would_reason: Option<String>,
    /// Under `observe`: whether the line `on` would have chosen was known healthy then
    /// (breaker closed, latest outcome not a line fault, a success in the window).
    pub would_healthy: Option<bool>,
    /// New breaker state of a breaker event: `closed`, `open` or `half_open`.
    pub breaker: Option<String>,
    /// How long a breaker that just opened stays open before a trial (ms).
    pub cooldown_ms: Option<u64>,
    /// The network of a network event.
    pub network: Option<TraceNetwork>,
    /// Config version in force after a start or config event.
    pub config_version: Option<u64>,
}

impl TraceRecord {
    /// The wire form of `e`.
    pub fn of(e: &TraceEvent) -> Self {
        let mut r = TraceRecord {
            kind: e.kind(),
            at_ms: e.at_ms,
            install: e.install.clone(),
            seq: e.seq,
            ..TraceRecord::default()
        };
        match &e.body {
            TraceBody::Route(t) => {
                r.biz = t.biz.clone();
                r.protocol = Some(t.protocol.as_str().to_string());
                r.line = t.line.clone();
                r.logical_host = t.logical_host.clone();
                r.final_host = t.final_host.clone();
                r.reason = Some(t.reason.as_str().to_string());
                r.from_cache = t.reason == Reason::Sticky;
                r.downgrade = t.downgrade;
                r.fixed_host = t.reason == Reason::FixedHost;
                r.method = t.method.clone();
                r.attempt = t.attempt;
                r.exclude = t.exclude.clone();
                r.mode = t.mode.map(|m| m.as_str().to_string());
                if let Some(w) = &t.would {
                    r.would_line = w.line.clone();
                    r.would_reason = Some(w.reason.as_str().to_string());
                    r.would_healthy = Some(w.healthy);
                }
            }
            TraceBody::Report(t) | TraceBody::Probe(t) | TraceBody::Warm(t) => {
                r.set_line(&t.on);
                r.outcome = Some(t.outcome.as_str().to_string());
                r.status = t.status;
                r.timings = t.timings;
                r.total_ms = t.total_ms;
            }
            TraceBody::Config(t) => {
                r.reason = t.reason.clone();
                r.detail = t.detail.clone();
                r.config_version = t.config_version;
            }
            TraceBody::Breaker(t) => {
                r.set_line(&t.on);
                r.breaker = Some(t.state.as_str().to_string());
                r.cooldown_ms = t.cooldown_ms;
                r.detail = t.detail.clone();
            }
            TraceBody::Network(n) => r.network = Some(n.clone()),
            TraceBody::Downgrade(on) => r.downgrade = *on,
            TraceBody::Start { config_version } => r.config_version = *config_version,
        }
        r
    }

    fn set_line(&mut self, on: &TraceLine) {
        self.biz = Some(on.biz.clone());
        self.protocol = Some(on.protocol.as_str().to_string());
        self.line = Some(on.line.clone());
    }

    /// The typed event of this record: the fields its kind needs must be there, and every
    /// name from a vocabulary (protocol, outcome, reason, mode, breaker state) known.
    pub fn typed(self) -> Result<TraceEvent, String> {
        let kind = self.kind;
        let need = |field: &str| format!("a {} event needs `{field}`", kind.as_str());
        let protocol = match self.protocol.as_deref() {
            None | Some("http") => Protocol::Http,
            Some("ws") => Protocol::Ws,
            Some(p) => return Err(format!("protocol {p:?} is not http or ws")),
        };
        let outcome = self
            .outcome
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("outcome: {e}"))?;
        let body = match kind {
            TraceKind::Route => {
                let reason = self.reason.as_deref().ok_or_else(|| need("reason"))?;
                TraceBody::Route(RouteTrace {
                    biz: self.biz,
                    protocol,
                    line: self.line,
                    logical_host: self.logical_host,
                    final_host: self.final_host,
                    reason: reason.parse().map_err(|e| format!("reason: {e}"))?,
                    downgrade: self.downgrade,
                    method: self.method,
                    attempt: self.attempt,
                    exclude: self.exclude,
                    mode: self
                        .mode
                        .as_deref()
                        .map(str::parse)
                        .transpose()
                        .map_err(|e| format!("mode: {e}"))?,
                    would: match self.would_reason.as_deref() {
                        None => None,
                        Some(w) => Some(WouldTrace {
                            line: self.would_line,
                            reason: w.parse().map_err(|e| format!("would_reason: {e}"))?,
                            healthy: self.would_healthy.unwrap_or(false),
                        }),
                    },
                })
            }
            TraceKind::Report | TraceKind::Probe | TraceKind::Warm => {
                let attempt = AttemptTrace {
                    on: TraceLine {
                        biz: self.biz.ok_or_else(|| need("biz"))?,
                        protocol,
                        line: self.line.ok_or_else(|| need("line"))?,
                    },
                    outcome: outcome.ok_or_else(|| need("outcome"))?,
                    status: self.status,
                    timings: self.timings,
                    total_ms: self.total_ms,
                };
                match kind {
                    TraceKind::Report => TraceBody::Report(attempt),
                    TraceKind::Probe => TraceBody::Probe(attempt),
                    _ => TraceBody::Warm(attempt),
                }
            }
            TraceKind::Breaker => {
                let on = TraceLine {
                    biz: self.biz.ok_or_else(|| need("biz"))?,
                    protocol,
                    line: self.line.ok_or_else(|| need("line"))?,
                };
                let state = match self.breaker.as_deref() {
                    Some(name) => name.parse::<BreakerState>().map_err(|_| {
                        format!("breaker {name:?} is not closed, open or half_open")
                    })?,
                    None => return Err(need("breaker")),
                };
                TraceBody::Breaker(BreakerTrace {
                    on,
                    state,
                    cooldown_ms: self.cooldown_ms,
                    detail: self.detail,
                })
            }
            TraceKind::Network => TraceBody::Network(self.network.ok_or_else(|| need("network"))?),
            TraceKind::Config => TraceBody::Config(ConfigTrace {
                reason: self.reason,
                detail: self.detail,
                config_version: self.config_version,
            }),
            TraceKind::Downgrade => TraceBody::Downgrade(self.downgrade),
            TraceKind::Start => TraceBody::Start {
                config_version: self.config_version,
            },
        };
        Ok(TraceEvent {
            at_ms: self.at_ms,
            install: self.install,
            seq: self.seq,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RolloutMode;
    use crate::line::Outcome;
    use crate::trace::Reason;

    fn stamped(at_ms: u64, body: TraceBody) -> TraceEvent {
        TraceEvent {
            at_ms,
            install: "00000000000000aa".into(),
            seq: 7,
            body,
        }
    }

    /// One event of every kind with every field its kind has, and the JSON trace files
    /// held for it before events were typed.
    fn every_kind() -> Vec<(TraceEvent, &'static str)> {
        let attempt = |protocol, outcome, status, timings| AttemptTrace {
            on: TraceLine::new("spot", protocol, "ali"),
            outcome,
            status: Some(status),
            timings,
            total_ms: Some(9),
        };
        let timings = Timings {
            dns_ms: Some(1),
            connect_ms: Some(2),
            tls_ms: Some(3),
            ttfb_ms: Some(4),
        };
        vec![
            (
                stamped(
                    5,
                    TraceBody::Route(RouteTrace {
                        biz: Some("spot".into()),
                        protocol: Protocol::Http,
                        line: Some("ali".into()),
                        logical_host: Some("*.example.com".into()),
                        final_host: Some("*.cdn.example.com".into()),
                        reason: Reason::Sticky,
                        downgrade: true,
                        method: Some("GET".into()),
                        attempt: Some(1),
                        exclude: Some(vec!["tx".into()]),
                        mode: Some(RolloutMode::Observe),
                        would: Some(WouldTrace {
                            line: Some("tx".into()),
                            reason: Reason::Ranked,
                            healthy: true,
                        }),
                    }),
                ),
                r#"{"kind":"route","at_ms":5,"biz":"spot","protocol":"http","line":"ali","logical_host":"*.example.com","final_host":"*.cdn.example.com","reason":"sticky","from_cache":true,"downgrade":true,"fixed_host":false,"install":"00000000000000aa","seq":7,"method":"GET","attempt":1,"exclude":["tx"],"mode":"observe","would_line":"tx","would_reason":"ranked","would_healthy":true}"#,
            ),
            (
                stamped(
                    6,
                    TraceBody::Report(attempt(Protocol::Ws, Outcome::Http5xx, 503, timings)),
                ),
                r#"{"kind":"report","at_ms":6,"biz":"spot","protocol":"ws","line":"ali","from_cache":false,"downgrade":false,"fixed_host":false,"outcome":"http_5xx","status":503,"dns_ms":1,"connect_ms":2,"tls_ms":3,"ttfb_ms":4,"total_ms":9,"install":"00000000000000aa","seq":7}"#,
            ),
            (
                stamped(
                    6,
                    TraceBody::Probe(attempt(
                        Protocol::Http,
                        Outcome::Ok,
                        200,
                        Timings::default(),
                    )),
                ),
                r#"{"kind":"probe","at_ms":6,"biz":"spot","protocol":"http","line":"ali","from_cache":false,"downgrade":false,"fixed_host":false,"outcome":"ok","status":200,"total_ms":9,"install":"00000000000000aa","seq":7}"#,
            ),
            (
                stamped(
                    6,
                    TraceBody::Config(ConfigTrace {
                        reason: Some("not_newer".into()),
                        detail: Some("rejected: x".into()),
                        config_version: None,
                    }),
                ),
                r#"{"kind":"config","at_ms":6,"reason":"not_newer","from_cache":false,"downgrade":false,"fixed_host":false,"detail":"rejected: x","install":"00000000000000aa","seq":7}"#,
            ),
            (
                stamped(
                    6,
                    TraceBody::Breaker(BreakerTrace {
                        on: TraceLine::new("spot", Protocol::Http, "ali"),
                        state: BreakerState::Open,
                        cooldown_ms: Some(30_000),
                        detail: Some("closed -> open".into()),
                    }),
                ),
                r#"{"kind":"breaker","at_ms":6,"biz":"spot","protocol":"http","line":"ali","from_cache":false,"downgrade":false,"fixed_host":false,"detail":"closed -> open","install":"00000000000000aa","seq":7,"breaker":"open","cooldown_ms":30000}"#,
            ),
            (
                stamped(
                    6,
                    TraceBody::Network(TraceNetwork {
                        handle: 42,
                        validated: true,
                        vpn: true,
                        private_dns: "strict".into(),
                        proxy: true,
                        transport: Some("wifi".into()),
                    }),
                ),
                r#"{"kind":"network","at_ms":6,"from_cache":false,"downgrade":false,"fixed_host":false,"install":"00000000000000aa","seq":7,"network":{"handle":42,"validated":true,"vpn":true,"private_dns":"strict","proxy":true,"transport":"wifi"}}"#,
            ),
            (
                stamped(6, TraceBody::Downgrade(true)),
                r#"{"kind":"downgrade","at_ms":6,"from_cache":false,"downgrade":true,"fixed_host":false,"install":"00000000000000aa","seq":7}"#,
            ),
            (
                stamped(
                    0,
                    TraceBody::Start {
                        config_version: Some(3),
                    },
                ),
                r#"{"kind":"start","at_ms":0,"from_cache":false,"downgrade":false,"fixed_host":false,"install":"00000000000000aa","seq":7,"config_version":3}"#,
            ),
        ]
    }

    #[test]
    fn every_kind_writes_the_json_trace_files_hold_and_reads_back_the_same() {
        for (event, json) in every_kind() {
            assert_eq!(event.to_json(), json);
            let back: TraceRecord = serde_json::from_str(json).unwrap();
            assert_eq!(back.typed().unwrap(), event, "{json}");
        }
    }

    #[test]
    fn a_record_without_what_its_kind_needs_names_the_field() {
        let record = |json: &str| -> TraceRecord { serde_json::from_str(json).unwrap() };
        let cases = [
            (
                r#"{"kind":"route","at_ms":0,"install":"1","seq":0}"#,
                "a route event needs `reason`",
            ),
            (
                r#"{"kind":"report","at_ms":0,"install":"1","seq":0,"line":"a","outcome":"ok"}"#,
                "a report event needs `biz`",
            ),
            (
                r#"{"kind":"probe","at_ms":0,"install":"1","seq":0,"biz":"s","line":"a"}"#,
                "a probe event needs `outcome`",
            ),
            (
                r#"{"kind":"breaker","at_ms":0,"install":"1","seq":0,"biz":"s","line":"a"}"#,
                "a breaker event needs `breaker`",
            ),
            (
                r#"{"kind":"breaker","at_ms":0,"install":"1","seq":0,"biz":"s","line":"a","breaker":"ajar"}"#,
                "breaker \"ajar\" is not closed, open or half_open",
            ),
            (
                r#"{"kind":"network","at_ms":0,"install":"1","seq":0}"#,
                "a network event needs `network`",
            ),
            (
                r#"{"kind":"route","at_ms":0,"install":"1","seq":0,"reason":"sticky","protocol":"udp"}"#,
                "protocol \"udp\" is not http or ws",
            ),
            (
                r#"{"kind":"route","at_ms":0,"install":"1","seq":0,"reason":"guessed"}"#,
                "reason: unknown reason",
            ),
            (
                r#"{"kind":"report","at_ms":0,"install":"1","seq":0,"biz":"s","line":"a","outcome":"meh"}"#,
                "outcome: unknown outcome",
            ),
        ];
        for (json, why) in cases {
            let err = record(json).typed().unwrap_err();
            assert!(err.starts_with(why), "{json}: {err}");
        }
    }
}
