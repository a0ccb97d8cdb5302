//! The engine's side of a network diagnosis: building the [`DiagnosisPlan`] from the
//! topology, the DNS cache and the network monitor (taking probes from the global probe
//! budget), and rendering the report with the config's address policy. The measuring is
//! the platform's (see [`crate::diagnose`]).

use super::LineKit;
use crate::diagnose::{render, DiagnosisPlan, HostPlan, LinePlan, Observations, Rendered};
use crate::dns::Source;
use crate::line::{Protocol, Scheme};
use crate::{Error, Result};

impl LineKit {
    /// What a diagnosis of business line `biz` (every business line for `None`) should
    /// measure. Each planned probe takes a token of the global probe budget; lines past the
    /// budget get `probe_allowed: false`. Nothing is taken when the platform reported no
    /// network. Errors: an unknown business line, and [`Error::ConsentRequired`] before
    /// consent (a diagnosis resolves, connects and probes).
    pub fn diagnosis_plan(&self, biz: Option<&str>) -> Result<DiagnosisPlan> {
        let inner = &self.inner;
        if !inner.consented() {
            return Err(Error::ConsentRequired("a diagnosis".to_string()));
        }
        let state = inner.state.load();
        let topo = &state.topology;
        let chosen: Vec<_> = match biz {
            Some(name) => vec![topo.biz_entry(name).ok_or_else(|| {
                Error::InvalidArgument("unknown business line for a diagnosis".to_string())
            })?],
            None => topo.biz.iter().collect(),
        };
        let (network, reported, bypass) = {
            let monitor = inner.network.lock();
            let (key, bypass) = monitor.current();
            (
                monitor.state().clone(),
                key.generation() > 0,
                bypass.map(|b| b.as_str()),
            )
        };
        let now = inner.clock.now_ms();
        let mut lines = Vec::new();
        let mut hosts: Vec<HostPlan> = Vec::new();
        for entry in chosen {
            let config = topo.config.biz_lines.get(&*entry.name);
            let (path, method) = config
                .map(|b| (b.detect_path.as_str(), b.detect_method.as_str()))
                .unwrap_or(("/line/ping", "HEAD"));
            for protocol in [Protocol::Http, Protocol::Ws] {
                let Some(pool) = entry.pool(protocol) else {
                    continue;
                };
                let pool = pool.lock();
                for line in pool.lines() {
                    let ep = &line.endpoint;
                    let tls = !ep.scheme.is_cleartext();
                    let port = ep.port.unwrap_or(if tls { 443 } else { 80 });
                    let scheme = if tls { Scheme::Https } else { Scheme::Http };
                    let authority = ep.origin.split_once("://").map_or(&*ep.origin, |(_, a)| a);
                    if !hosts.iter().any(|h| h.host == *ep.host) {
                        hosts.push(host_plan(inner, &ep.host, now));
                    }
                    lines.push(LinePlan {
                        biz: entry.name.to_string(),
                        protocol,
                        id: line.id.to_string(),
                        host: ep.host.to_string(),
                        port,
                        tls,
                        probe_url: format!("{}://{authority}{path}", scheme.as_str()),
                        probe_method: method.to_string(),
                        probe_allowed: false,
                        probe_skipped: Some("probe_budget".to_string()),
                    });
                }
            }
        }
        let mut plan = DiagnosisPlan {
            biz: biz.map(str::to_string),
            network,
            network_reported: reported,
            httpdns_bypass: bypass,
            hosts,
            lines,
            probe_timeout_ms: topo.config.thresholds.timeout_ms,
        };
        if plan.network_available() && inner.transport.is_some() {
            let wanted = u32::try_from(plan.lines.len()).unwrap_or(u32::MAX);
            let granted = inner.detect.lock().take_budget(now, wanted) as usize;
            if granted < plan.lines.len() {
                log::info!(
                    "linekit: diagnosis probes limited by the probe budget: {granted} of {}",
                    plan.lines.len()
                );
            }
            for line in plan.lines.iter_mut().take(granted) {
                line.probe_allowed = true;
                line.probe_skipped = None;
            }
        } else {
            let why = if plan.network_available() {
                "no_transport"
            } else {
                "no_network"
            };
            for line in &mut plan.lines {
                line.probe_skipped = Some(why.to_string());
            }
        }
        Ok(plan)
    }

    /// The report of `plan` from what the platform measured.
    pub fn diagnosis_report(&self, plan: &DiagnosisPlan, observations: &Observations) -> Rendered {
        render(plan, observations, &self.config().httpdns.allow_private)
    }
}

fn host_plan(inner: &super::Inner, host: &str, now: u64) -> HostPlan {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return HostPlan {
            host: host.to_string(),
            httpdns: Vec::new(),
            httpdns_source: "literal",
        };
    }
    let answer = inner.dns.lookup(host, now);
    HostPlan {
        host: host.to_string(),
        httpdns: answer.addrs.to_vec(),
        httpdns_source: match answer.source {
            Source::HttpDns => "httpdns",
            Source::HttpDnsStale => "httpdns_stale",
            Source::System => "system",
        },
    }
}
