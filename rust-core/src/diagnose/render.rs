//! Turns a [`DiagnosisPlan`] and its [`Observations`] into the report: JSON and text.
//!
//! JSON shape (one document):
//! `{"biz", "elapsed_ms", "timed_out", "network": {reported, available, handle, validated,
//! vpn, private_dns, proxy, transport, httpdns_bypass}, "hosts": [{host, system: {addresses,
//! ms} | {error}, httpdns: {source, addresses}, rejected: [{addr, why, source}]}],
//! "lines": {"biz/id": {biz, protocol, host, port, tls, result, addresses: [{addr, tcp_ms |
//! tcp_error, tls_ms | tls_error}], probe: {status, ms} | {error, ms} | {skipped}}}}`.
//! `host` is always the redacted host group; `result` names the first failure
//! (`ok`, `no_network`, `dns_failed`, `tcp_failed`, `tls_failed`, `probe_failed`,
//! `not_measured`).

use super::{DiagnosisPlan, HostPlan, LinePlan, Observations};
use crate::dns::policy::{AddressPolicy, HostMatcher};
use crate::trace::redact::host_group;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::net::IpAddr;

/// Longest free-text detail kept from the platform side.
const MAX_DETAIL: usize = 80;

/// The rendered report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Rendered {
    /// One JSON document.
    pub json: String,
    /// The same, readable.
    pub text: String,
}

/// Keeps a platform-side detail loggable: a code such as `connect_refused` or
/// `tls_failure (SSLHandshakeException)`. Everything from the first `:` on (where exception
/// messages, which may name hosts, URLs or tokens, begin) is dropped, then only letters,
/// digits and `_ .()-` are kept, at most [`MAX_DETAIL`] characters.
fn clean(detail: &str) -> String {
    let head = detail.split(':').next().unwrap_or("");
    let mut kept: String = head
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || " _.()-".contains(*c))
        .take(MAX_DETAIL)
        .collect();
    if kept.matches('(').count() > kept.matches(')').count() {
        kept.push(')');
    }
    let kept = kept.trim();
    if kept.is_empty() {
        "error".to_string()
    } else {
        kept.to_string()
    }
}

fn addrs(list: &[IpAddr]) -> Vec<String> {
    list.iter().map(ToString::to_string).collect()
}

struct LineResult {
    json: Value,
    summary: String,
}

/// What one phase (`tcp` or `tls`) of a line's addresses showed.
#[derive(Default)]
struct Phase {
    /// Some address got through it.
    ok: bool,
    /// The first failure, as the summary tells it.
    first_error: Option<String>,
}

impl Phase {
    /// Records the phase `name` of address `addr` in its JSON `m`: `{name}_ms`, or
    /// `{name}_error` (`not_measured` when neither came).
    fn record(
        &mut self,
        m: &mut Map<String, Value>,
        name: &str,
        addr: IpAddr,
        (ms, error): (Option<u64>, &Option<String>),
    ) {
        match (ms, error) {
            (_, Some(e)) => {
                let e = clean(e);
                self.first_error
                    .get_or_insert_with(|| format!("{name} {e} ({addr})"));
                m.insert(format!("{name}_error"), json!(e));
            }
            (Some(ms), None) => {
                self.ok = true;
                m.insert(format!("{name}_ms"), json!(ms));
            }
            (None, None) => {
                m.insert(format!("{name}_error"), json!("not_measured"));
            }
        }
    }
}

fn line_result(plan: &DiagnosisPlan, line: &LinePlan, obs: &Observations) -> LineResult {
    let key = line.key();
    let mut addresses = Vec::new();
    let mut tcp = Phase::default();
    let mut tls = Phase::default();
    for a in obs.addresses.iter().filter(|a| a.line == key) {
        let mut m = Map::new();
        m.insert("addr".into(), json!(a.addr.to_string()));
        tcp.record(&mut m, "tcp", a.addr, (a.tcp_ms, &a.tcp_error));
        if line.tls && a.tcp_error.is_none() && a.tcp_ms.is_some() {
            tls.record(&mut m, "tls", a.addr, (a.tls_ms, &a.tls_error));
        }
        addresses.push(Value::Object(m));
    }
    let probe_obs = obs.probes.iter().find(|p| p.line == key);
    let (probe, probe_ok, probe_summary) = if !plan.network_available() {
        (
            json!({"skipped": "no_network"}),
            false,
            "no network".to_string(),
        )
    } else if !line.probe_allowed {
        let why = line.probe_skipped.as_deref().unwrap_or("probe_budget");
        (
            json!({ "skipped": why }),
            false,
            format!("probe skipped ({why})"),
        )
    } else {
        match probe_obs {
            Some(p) => match (p.status, &p.error) {
                (Some(status), _) => {
                    let ok = (200..400).contains(&status);
                    (
                        json!({"status": status, "ms": p.ms}),
                        ok,
                        format!("probe HTTP {status} in {} ms", p.ms.unwrap_or(0)),
                    )
                }
                (None, Some(e)) => {
                    let e = clean(e);
                    (json!({"error": e, "ms": p.ms}), false, format!("probe {e}"))
                }
                (None, None) => (
                    json!({"error": "not_measured"}),
                    false,
                    "probe not measured".into(),
                ),
            },
            None => (
                json!({"error": "not_measured"}),
                false,
                "probe not measured".into(),
            ),
        }
    };
    let host_resolved = !addresses.is_empty();
    let (result, summary) = if !plan.network_available() {
        ("no_network", "not measured: no network".to_string())
    } else if !host_resolved {
        let why = obs
            .hosts
            .iter()
            .find(|h| h.host == line.host)
            .and_then(|h| h.error.as_deref())
            .map(clean)
            .unwrap_or_else(|| "no address".into());
        (
            "dns_failed",
            format!("FAILED: no address to connect to ({why})"),
        )
    } else if !tcp.ok {
        (
            "tcp_failed",
            format!(
                "FAILED: {}",
                tcp.first_error.unwrap_or_else(|| "tcp not measured".into())
            ),
        )
    } else if line.tls && !tls.ok {
        (
            "tls_failed",
            format!(
                "FAILED: {}",
                tls.first_error.unwrap_or_else(|| "tls not measured".into())
            ),
        )
    } else if line.probe_allowed && !probe_ok {
        ("probe_failed", format!("FAILED: {probe_summary}"))
    } else if !line.probe_allowed {
        ("ok", format!("reachable; {probe_summary}"))
    } else {
        ("ok", format!("ok: {probe_summary}"))
    };
    let result = if result == "probe_failed" && probe_obs.is_none() {
        "not_measured"
    } else {
        result
    };
    LineResult {
        summary,
        json: json!({
            "biz": line.biz,
            "protocol": line.protocol.as_str(),
            "host": host_group(&line.host),
            "port": line.port,
            "tls": line.tls,
            "result": result,
            "addresses": addresses,
            "probe": probe,
        }),
    }
}

fn host_json(h: &HostPlan, obs: &Observations, allow_private: &AddressPolicy) -> (Value, String) {
    let seen = obs.hosts.iter().find(|o| o.host == h.host);
    let literal = h.httpdns_source == "literal";
    let system = match seen {
        _ if literal => json!({"addresses": [h.host.clone()]}),
        Some(o) => match &o.error {
            Some(e) => json!({"error": clean(e), "ms": o.ms}),
            None => json!({"addresses": addrs(&o.addresses), "ms": o.ms}),
        },
        None => json!({"error": "not_measured"}),
    };
    let mut rejected = Vec::new();
    if !literal {
        for (source, list) in [
            (
                "system",
                seen.map(|o| o.addresses.as_slice()).unwrap_or(&[]),
            ),
            ("httpdns", h.httpdns.as_slice()),
        ] {
            for ip in list {
                if let Err(why) = allow_private.accepts(&h.host, *ip) {
                    rejected.push(json!({"addr": ip.to_string(), "why": why, "source": source}));
                }
            }
        }
    }
    let group = host_group(&h.host);
    let mut text = format!("  {group}: ");
    match (literal, seen) {
        (true, _) => text.push_str("IP literal"),
        (false, Some(o)) => match &o.error {
            Some(e) => {
                let _ = write!(text, "system resolver failed ({})", clean(e));
            }
            None => {
                let _ = write!(
                    text,
                    "system {} ({} ms)",
                    addrs(&o.addresses).join(" "),
                    o.ms.unwrap_or(0)
                );
            }
        },
        (false, None) => text.push_str("system resolver not measured"),
    }
    if !literal {
        if h.httpdns.is_empty() {
            text.push_str("; HTTPDNS: no record");
        } else {
            let _ = write!(text, "; HTTPDNS {}", addrs(&h.httpdns).join(" "));
        }
    }
    for r in &rejected {
        let _ = write!(
            text,
            "\n    rejected {} from {}: {}",
            r["addr"].as_str().unwrap_or(""),
            r["source"].as_str().unwrap_or(""),
            r["why"].as_str().unwrap_or("")
        );
    }
    (
        json!({
            "host": group,
            "system": system,
            "httpdns": {"source": h.httpdns_source, "addresses": addrs(&h.httpdns)},
            "rejected": rejected,
        }),
        text,
    )
}

/// Renders the report of `plan` from `obs`; `allow_private` are the config's
/// `httpdns.allow_private` patterns.
pub fn render<S: AsRef<str>>(
    plan: &DiagnosisPlan,
    obs: &Observations,
    allow_private: &[S],
) -> Rendered {
    let policy = AddressPolicy::new(HostMatcher::new(allow_private).0);
    let n = &plan.network;
    let available = plan.network_available();
    let network = json!({
        "reported": plan.network_reported,
        "available": available,
        "handle": n.handle,
        "validated": n.validated,
        "vpn": n.vpn,
        "private_dns": n.private_dns.as_str(),
        "proxy": n.proxy,
        "transport": n.transport,
        "httpdns_bypass": plan.httpdns_bypass,
    });
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Linekit diagnosis ({}) in {} ms{}",
        plan.biz
            .as_deref()
            .map_or("all business lines".to_string(), |b| format!(
                "business line {b}"
            )),
        obs.elapsed_ms,
        if obs.timed_out {
            " (timed out: unfinished measurements are marked)"
        } else {
            ""
        }
    );
    if !plan.network_reported {
        text.push_str("Network: not reported by the platform\n");
    } else if !available {
        text.push_str("Network: NONE, the device reported no network; nothing was measured\n");
    } else {
        let _ = writeln!(
            text,
            "Network: handle {}, {}, {}{}, private DNS {}{}, HTTPDNS {}",
            n.handle,
            if n.validated {
                "validated"
            } else {
                "NOT validated"
            },
            n.transport
                .as_deref()
                .map(clean)
                .unwrap_or_else(|| "unknown transport".into()),
            if n.vpn { ", VPN" } else { "" },
            n.private_dns.as_str(),
            if n.proxy { ", proxy" } else { "" },
            plan.httpdns_bypass
                .map_or("in use".to_string(), |b| format!("bypassed ({b})")),
        );
    }
    let mut hosts = Vec::new();
    if !plan.hosts.is_empty() {
        text.push_str("Hosts:\n");
    }
    for h in &plan.hosts {
        let (j, t) = host_json(h, obs, &policy);
        hosts.push(j);
        text.push_str(&t);
        text.push('\n');
    }
    let mut lines = Map::new();
    if !plan.lines.is_empty() {
        text.push_str("Lines:\n");
    }
    for line in &plan.lines {
        let r = line_result(plan, line, obs);
        let _ = writeln!(
            text,
            "  {} [{}] {}:{}{}: {}",
            line.key(),
            line.protocol.as_str(),
            host_group(&line.host),
            line.port,
            if line.tls { " tls" } else { "" },
            r.summary
        );
        lines.insert(line.key(), r.json);
    }
    let json = json!({
        "biz": plan.biz,
        "elapsed_ms": obs.elapsed_ms,
        "timed_out": obs.timed_out,
        "network": network,
        "hosts": hosts,
        "lines": lines,
    })
    .to_string();
    Rendered { json, text }
}
