//! The router: turns one request into a [`RouteDecision`].
//!
//! A [`Topology`] is built once per config: business lines with their pools, the
//! host → business line index and the convergence rules. It is immutable except for the
//! pools' own state behind short per-pool locks, and the engine swaps whole topologies
//! atomically on a config change (carrying line statistics over by line id).
//!
//! Order of rules for one request:
//! 1. `X-Line-Keep-Original-Host: true` → unchanged (`keep_original`).
//! 2. A URL that is not absolute http(s)/ws(s) → unchanged (`unmanaged`).
//! 3. `X-Line-Fixed-Host` → that origin (`fixed_host`) when the config knows it, or
//!    unchanged when the value is invalid (`fixed_host_invalid`). A valid value naming an
//!    origin the config does not know is ignored: the request is routed by rules 4 to 6
//!    as if the header were absent, and the decision's reason is `fixed_host_refused`.
//! 4. A converged legacy host → the unified business line's line plus the path prefix
//!    (`merged`), unless this install is outside the gray share (`merge_gray_out`) or every
//!    unified line is open (`merge_fallback_original`).
//! 5. Business line from `X-Line-Biz` when its `match` accepts the host, else from the
//!    host; none → `unmanaged`; no pool for the protocol → `unmanaged`. An `X-Line-Biz`
//!    naming a business line whose `match` does not accept the host is ignored, and the
//!    decision's reason is `biz_refused`.
//! 6. Kill switch → first line by priority (`downgrade`); else the pool's selection.
//!
//! The two refusals keep the app's credentials where the app's own URL and config send
//! them: a private header cannot pin a request to an origin no line and no `fixed_hosts`
//! entry names (an IP literal or `[::1]:22` included), nor move it onto the lines of a
//! business line that does not claim its host. A refused header's reason replaces the
//! reason of the routing that followed (the decision's `target` and `line` say where the
//! request went).
//!
//! Rules 4 to 6 obey the business line's rollout mode ([`super::rollout`]), the call's own
//! when a retry passes it back ([`RouteRequest::mode`]):
//! - `off`: the request is left alone (`rollout_off`); the pool is not consulted.
//! - `observe`: the pool's selection is made as under `on` (without taking a half-open
//!   line's trial, see [`LinePool::select_observed`]) and recorded in
//!   [`RouteDecision::would`], but the request keeps its URL (`observe`). Its outcome is
//!   the pool line's whose origin the URL names ([`LinePool::index_of_origin`]): that
//!   line is the decision's `line`, so real traffic measures the origin. A URL that names
//!   no line of the pool has no `line`: its outcome is measured nowhere.
//! - `on`: the rules above.
//!
//! A decision outside any business line (rules 1 to 3, `unmanaged`) carries mode `on`:
//! there is nothing of a business line's to roll out, only the app's own `X-Line-*`
//! directives.
//!
//! Only scheme, host and port change; the path, query and fragment are copied byte for
//! byte (see [`super::endpoint::SplitUrl`]).

use super::convergence::Convergence;
use super::endpoint::{Endpoint, Scheme, SplitUrl};
use super::outcome::Protocol;
use super::pool::{LinePool, Selection};
use super::rollout::{effective_mode, RolloutMode};
use crate::config::Config;
use crate::host_pattern::HostPatterns;
use crate::trace::Reason;
use crate::Result;
use parking_lot::Mutex;
use std::sync::Arc;

/// One request to route. Header values come from the app's `X-Line-*` headers.
#[derive(Debug, Clone, Copy)]
pub struct RouteRequest<'a> {
    /// The URL the app built (logical host).
    pub url: &'a str,
    /// HTTP method.
    pub method: &'a str,
    /// `X-Line-Biz`: business line named explicitly.
    pub biz: Option<&'a str>,
    /// `X-Line-Keep-Original-Host: true`.
    pub keep_original: bool,
    /// `X-Line-Fixed-Host` value.
    pub fixed_host: Option<&'a str>,
    /// Pool to use (`ws` for WebSocket upgrades).
    pub protocol: Protocol,
    /// Line ids already tried in this call.
    pub exclude: &'a [&'a str],
    /// The rollout mode of the call's first attempt, passed back by its retries so the
    /// call finishes under the mode it started with (`None`: the business line's mode now).
    pub mode: Option<RolloutMode>,
    /// The request is sent as routed and its outcome reported, so it counts as in flight
    /// on its line until then (see [`super::in_flight`]); `false` for a caller that only
    /// asks where a request would go and reports nothing.
    pub reported: bool,
}

impl<'a> RouteRequest<'a> {
    /// A request steered by its private headers `private`, on the `protocol` pool, with
    /// the lines of `exclude` already tried (under the business line's rollout mode now).
    pub fn with_headers(
        url: &'a str,
        method: &'a str,
        private: &super::headers::LineHeaders<'a>,
        protocol: Protocol,
        exclude: &'a [&'a str],
    ) -> Self {
        RouteRequest {
            url,
            method,
            biz: private.biz,
            keep_original: private.keep_original,
            fixed_host: private.fixed_host,
            protocol,
            exclude,
            mode: None,
            reported: true,
        }
    }

    /// A plain request: no private headers, HTTP pool, nothing excluded.
    pub fn new(url: &'a str, method: &'a str) -> Self {
        RouteRequest {
            url,
            method,
            biz: None,
            keep_original: false,
            fixed_host: None,
            protocol: Protocol::Http,
            exclude: &[],
            mode: None,
            reported: true,
        }
    }
}

/// The answer to a [`RouteRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct RouteDecision {
    /// Business line, if one owns the request.
    pub biz: Option<Arc<str>>,
    /// Pool the line belongs to.
    pub protocol: Protocol,
    /// Chosen line id, if the request was put on a line.
    pub line: Option<Arc<str>>,
    /// Why.
    pub reason: Reason,
    /// The chosen line's known deployment fingerprint differs from the business line's
    /// reference (see [`super::version`]).
    pub version_mismatch: bool,
    /// The response header carrying the deployment fingerprint, when the business line
    /// has one: the caller reports its value with the attempt.
    pub version_header: Option<Arc<str>>,
    /// What changed, when the request is rewritten (`None`: the request URL is sent as
    /// it is). A caller holding the request's parsed URL applies these parts; the final
    /// URL string is built only when asked for ([`RouteDecision::url`]).
    pub target: Option<Target>,
    /// The rollout mode the request was routed under (see the module docs).
    pub mode: RolloutMode,
    /// In `observe`: what `on` would have done.
    pub would: Option<Would>,
    /// How many more lines the call may try after this attempt: the `max_retries` of the
    /// config that made the decision under `on`, 0 under `observe` and `off` (a caller
    /// that may not send the request twice tries none either way).
    pub max_retries: u32,
    /// The `buffer_body_max_bytes` of the config that made the decision: the largest
    /// request body a caller keeps so that a retry can send it again.
    pub buffer_body_max_bytes: u64,
}

/// What a request routed under `observe` would have got under `on`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Would {
    /// The line it would have gone to (`None`: it would have kept its URL, e.g.
    /// `merge_fallback_original`).
    pub line: Option<Arc<str>>,
    /// Why.
    pub reason: Reason,
    /// Whether that line was known healthy then ([`LinePool::known_healthy`]).
    pub healthy: bool,
}

impl RouteDecision {
    /// The final URL to send for `request_url`, the URL this decision was made for (equal
    /// to it when not rewritten).
    pub fn url(&self, request_url: &str) -> String {
        match &self.target {
            Some(t) => t.url(request_url),
            None => request_url.to_string(),
        }
    }
}

/// The parts of a rewritten URL that differ from the request's: scheme, authority and an
/// optional path prefix. Everything from `rest_at` in the request URL is copied after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Final scheme: the request's family (http/https or ws/wss), the line's security.
    pub scheme: Scheme,
    /// Host name or IP literal (IPv6 without brackets).
    pub host: Arc<str>,
    /// Explicit port, if the line's URL named one.
    pub port: Option<u16>,
    /// The converged host's path prefix (`/x`, never ending in `/`), if any.
    pub path_prefix: Option<Arc<str>>,
    /// Byte offset in the request URL where its path, query and fragment begin.
    pub rest_at: usize,
}

impl Target {
    /// The target of `url` (which is `request_url` split) on `endpoint` with `prefix`.
    pub fn new(
        request_url: &str,
        url: &SplitUrl<'_>,
        endpoint: &Endpoint,
        prefix: Option<&Arc<str>>,
    ) -> Target {
        Target {
            scheme: final_scheme(url.scheme, endpoint),
            host: endpoint.host.clone(),
            port: endpoint.port,
            path_prefix: prefix.filter(|p| !p.is_empty()).cloned(),
            rest_at: request_url.len() - url.rest.len(),
        }
    }

    /// The final URL for `request_url`, the URL this target was made from:
    /// `scheme://host[:port]` (an IPv6 host in brackets), the prefix, then the request's
    /// path, query and fragment (with a `/` between a prefix and a rest without one).
    pub fn url(&self, request_url: &str) -> String {
        let (scheme, host) = (self.scheme.as_str(), &*self.host);
        let prefix = self.path_prefix.as_deref().unwrap_or("");
        let rest = request_url.get(self.rest_at..).unwrap_or("");
        let mut out =
            String::with_capacity(scheme.len() + host.len() + prefix.len() + rest.len() + 11);
        out.push_str(scheme);
        out.push_str("://");
        if host.contains(':') {
            out.push('[');
            out.push_str(host);
            out.push(']');
        } else {
            out.push_str(host);
        }
        if let Some(port) = self.port {
            out.push(':');
            out.push_str(&port.to_string());
        }
        out.push_str(prefix);
        if !prefix.is_empty() && !rest.starts_with('/') {
            out.push('/');
        }
        out.push_str(rest);
        out
    }
}

/// A business line and its pools.
#[derive(Debug)]
pub struct BizEntry {
    /// Name.
    pub name: Arc<str>,
    /// HTTP pool.
    pub http: Option<Mutex<LinePool>>,
    /// WebSocket pool.
    pub ws: Option<Mutex<LinePool>>,
    /// Response header carrying the deployment fingerprint (`version_header`).
    pub version_header: Option<Arc<str>>,
    /// This install's rollout mode for the business line.
    pub mode: RolloutMode,
    /// The business line's `match` patterns: the hosts `X-Line-Biz` may name it for (each
    /// mapped to the business line's index, the value type the topology's own host map
    /// uses, so the library carries one copy of the pattern code).
    claims: HostPatterns<usize>,
}

impl BizEntry {
    /// Whether the business line's `match` accepts `host`.
    pub fn claims(&self, host: &str) -> bool {
        self.claims.get(host).is_some()
    }

    /// The pool serving `protocol`.
    pub fn pool(&self, protocol: Protocol) -> Option<&Mutex<LinePool>> {
        match protocol {
            Protocol::Http => self.http.as_ref(),
            Protocol::Ws => self.ws.as_ref(),
        }
    }
}

/// Everything derived from one config that routing needs.
#[derive(Debug)]
pub struct Topology {
    /// The config this topology was built from.
    pub config: Arc<Config>,
    /// Business lines, in config (name) order.
    pub biz: Vec<BizEntry>,
    hosts: HostPatterns<usize>,
    convergence: Convergence,
    fixed: FixedOrigins,
}

/// The origins `X-Line-Fixed-Host` may pin a request to: every line's (of every pool of
/// every business line) and the config's `fixed_hosts`. Host names compare lower-case
/// without a trailing dot; ports compare as the port connections go to.
#[derive(Debug, Default)]
struct FixedOrigins {
    /// `(host, port)` of every line (the port `Some`) and every `fixed_hosts` entry (the
    /// port `None` when the entry names none: the fixed host's scheme's default port
    /// then). A few dozen at most, searched only for requests that carry the header.
    origins: Vec<(String, Option<u16>)>,
}

impl FixedOrigins {
    fn new(config: &Config) -> FixedOrigins {
        let mut origins = Vec::new();
        for biz in config.biz_lines.values() {
            for line in biz.http.iter().chain(&biz.ws) {
                // Lines that do not parse are refused by validation; skipping one here
                // only narrows what may be pinned.
                if let Ok(ep) = Endpoint::parse(&line.url, true) {
                    origins.push((fixed_key(&ep.host), Some(ep.effective_port())));
                }
            }
        }
        for entry in &config.fixed_hosts {
            if let Ok((host, port)) = crate::config::fixed_host_entry(entry) {
                origins.push((fixed_key(&host), port));
            }
        }
        FixedOrigins { origins }
    }

    /// Whether `ep` is an origin the config knows.
    fn knows(&self, ep: &Endpoint) -> bool {
        let host = fixed_key(&ep.host);
        let port = ep.effective_port();
        let default_port = port == ep.scheme.default_port();
        self.origins
            .iter()
            .any(|(h, p)| *h == host && (*p == Some(port) || (p.is_none() && default_port)))
    }
}

/// A host as [`FixedOrigins`] compares it.
fn fixed_key(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

impl Topology {
    /// Builds pools for every business line; statistics of lines that still exist (same
    /// id and origin) are carried over from `previous`.
    pub fn new(config: Arc<Config>, seed: u64, previous: Option<&Topology>) -> Result<Topology> {
        let mut biz = Vec::with_capacity(config.biz_lines.len());
        for (name, line) in &config.biz_lines {
            let make = |protocol: Protocol,
                        lines: &[crate::config::LineConfig]|
             -> Result<Option<Mutex<LinePool>>> {
                if lines.is_empty() {
                    return Ok(None);
                }
                let mut pool =
                    LinePool::new(protocol, lines, &config.thresholds, config.allow_cleartext)?;
                pool.set_version_policy(line.version_header.as_ref().map(|_| line.version_policy));
                if let Some(old) = previous
                    .and_then(|p| p.biz_entry(name))
                    .and_then(|b| b.pool(protocol))
                {
                    pool.carry_over(&old.lock());
                }
                Ok(Some(Mutex::new(pool)))
            };
            biz.push(BizEntry {
                name: Arc::from(name.as_str()),
                http: make(Protocol::Http, &line.http)?,
                ws: make(Protocol::Ws, &line.ws)?,
                version_header: line.version_header.as_deref().map(Arc::from),
                mode: effective_mode(line.rollout.as_ref().unwrap_or(&config.rollout), seed),
                claims: HostPatterns::new(line.match_hosts.iter().map(|h| (h.as_str(), biz.len()))),
            });
        }
        let hosts = HostPatterns::new(
            config
                .biz_lines
                .values()
                .enumerate()
                .flat_map(|(i, b)| b.match_hosts.iter().map(move |h| (h.as_str(), i))),
        );
        let names: Vec<&str> = config.biz_lines.keys().map(String::as_str).collect();
        let convergence = Convergence::new(&config.merge_hosts, seed, |b| {
            names.iter().position(|n| *n == b)
        });
        let fixed = FixedOrigins::new(&config);
        Ok(Topology {
            config,
            biz,
            hosts,
            convergence,
            fixed,
        })
    }

    /// The business line named `name`.
    pub fn biz_entry(&self, name: &str) -> Option<&BizEntry> {
        self.biz.iter().find(|b| &*b.name == name)
    }

    /// The business line owning a request host (by `match` patterns).
    pub fn biz_for_host(&self, host: &str) -> Option<&BizEntry> {
        self.hosts.get(host).map(|i| &self.biz[*i])
    }

    /// Routes one request at monotonic time `now_ms`; the decision carries the call's
    /// limits from this topology's config, so they always match the rules that made it.
    pub fn route(&self, req: &RouteRequest<'_>, now_ms: u64, downgrade: bool) -> RouteDecision {
        let limits = &self.config.thresholds;
        let decision = self.decide(req, now_ms, downgrade);
        RouteDecision {
            max_retries: decision.mode.max_retries(limits.max_retries),
            buffer_body_max_bytes: limits.buffer_body_max_bytes,
            ..decision
        }
    }

    /// The routing rules for one request, before its limits are added.
    fn decide(&self, req: &RouteRequest<'_>, now_ms: u64, downgrade: bool) -> RouteDecision {
        if req.keep_original {
            return unchanged(req, None, Reason::KeepOriginal, RolloutMode::On);
        }
        let Some(url) = SplitUrl::parse(req.url) else {
            return unchanged(req, None, Reason::Unmanaged, RolloutMode::On);
        };
        let mut refused = None;
        if let Some(fixed) = req.fixed_host {
            match parse_fixed_host(fixed, self.config.allow_cleartext) {
                Ok(ep) if self.fixed.knows(&ep) => {
                    return RouteDecision {
                        target: Some(Target::new(req.url, &url, &ep, None)),
                        ..unchanged(req, None, Reason::FixedHost, RolloutMode::On)
                    };
                }
                Ok(_) => refused = Some(Reason::FixedHostRefused),
                Err(_) => return unchanged(req, None, Reason::FixedHostInvalid, RolloutMode::On),
            }
        }
        let mut decision = self.route_by_host(req, &url, now_ms, downgrade, &mut refused);
        if let Some(reason) = refused {
            decision.reason = reason;
        }
        decision
    }

    /// Rules 4 to 6 for `req` (split as `url`); a refused `X-Line-Biz` is recorded in
    /// `refused` unless a refusal is already there.
    fn route_by_host(
        &self,
        req: &RouteRequest<'_>,
        url: &SplitUrl<'_>,
        now_ms: u64,
        downgrade: bool,
        refused: &mut Option<Reason>,
    ) -> RouteDecision {
        if let Some(rule) = self.convergence.rule(url.host) {
            let converged = Converged {
                prefix: &rule.path_prefix,
                released: rule.released,
            };
            let biz = &self.biz[rule.biz];
            return self.route_in_biz(req, url, biz, Some(converged), now_ms, downgrade);
        }
        let named = req.biz.and_then(|name| self.biz_entry(name));
        let named = match named {
            Some(b) if !b.claims(url.host) => {
                refused.get_or_insert(Reason::BizRefused);
                None
            }
            other => other,
        };
        let Some(biz) = named.or_else(|| self.biz_for_host(url.host)) else {
            return unchanged(req, None, Reason::Unmanaged, RolloutMode::On);
        };
        self.route_in_biz(req, url, biz, None, now_ms, downgrade)
    }

    /// The decision for `req` in business line `biz` (on a host converged as `converged`,
    /// when it is): left alone under `off` or while the convergence is grayed out, else
    /// routed on the pool of its protocol.
    fn route_in_biz(
        &self,
        req: &RouteRequest<'_>,
        url: &SplitUrl<'_>,
        biz: &BizEntry,
        converged: Option<Converged<'_>>,
        now_ms: u64,
        downgrade: bool,
    ) -> RouteDecision {
        let mode = req.mode.unwrap_or(biz.mode);
        if mode == RolloutMode::Off {
            return unchanged(req, Some(biz), Reason::RolloutOff, mode);
        }
        if converged.as_ref().is_some_and(|c| !c.released) {
            return unchanged(req, Some(biz), Reason::MergeGrayOut, mode);
        }
        let Some(pool) = biz.pool(req.protocol) else {
            return unchanged(req, Some(biz), Reason::Unmanaged, mode);
        };
        let route = OnPool {
            req,
            url,
            prefix: converged.map(|c| c.prefix),
            biz,
            mode,
        };
        self.route_on(&route, pool, now_ms, downgrade)
    }

    /// The decision for a request of `route.biz` on `pool` under `observe` or `on`.
    fn route_on(
        &self,
        route: &OnPool<'_, '_>,
        pool: &Mutex<LinePool>,
        now_ms: u64,
        downgrade: bool,
    ) -> RouteDecision {
        let OnPool {
            req,
            url,
            prefix,
            biz,
            mode,
        } = *route;
        let observe = mode == RolloutMode::Observe;
        let mut pool = pool.lock();
        let sel = self.select(&mut pool, now_ms, req.exclude, downgrade, observe);
        let sel = match prefix {
            None => Some(sel),
            // A converged host keeps its original URL rather than go to an open line.
            Some(_) => match sel.reason {
                Reason::AllOpenFallback => None,
                Reason::Downgrade => Some(sel),
                _ => Some(Selection {
                    reason: Reason::Merged,
                    ..sel
                }),
            },
        };
        let on = match sel {
            Some(sel) => on_line(req, url, prefix, biz, &pool, sel),
            None => unchanged(req, Some(biz), Reason::MergeFallbackOriginal, mode),
        };
        if !observe {
            if let (Some(sel), Some(_), true) = (sel, &on.line, req.reported) {
                pool.start_request(sel.index, now_ms);
            }
            return on;
        }
        let origin = pool.index_of_origin(url);
        let would_index = sel.filter(|_| on.line.is_some()).map(|s| s.index);
        RouteDecision {
            line: origin.map(|i| pool.lines()[i].id.clone()),
            reason: Reason::Observe,
            version_mismatch: origin.is_some_and(|i| pool.version_mismatch(i)),
            version_header: biz.version_header.clone(),
            target: None,
            mode,
            would: Some(Would {
                healthy: would_index.is_some_and(|i| pool.known_healthy(i, now_ms)),
                line: on.line,
                reason: on.reason,
            }),
            ..on
        }
    }

    /// The line of `pool` a request gets now: the first by priority under the kill switch
    /// (the config's or the caller's), else the pool's own selection (which leaves a
    /// half-open line's trial alone when the request is only `observed`).
    fn select(
        &self,
        pool: &mut LinePool,
        now_ms: u64,
        exclude: &[&str],
        downgrade: bool,
        observed: bool,
    ) -> Selection {
        if downgrade || self.config.downgrade {
            Selection {
                index: pool.first_by_priority(),
                reason: Reason::Downgrade,
            }
        } else if observed {
            pool.select_observed(now_ms, exclude)
        } else {
            pool.select(now_ms, exclude)
        }
    }
}

/// A host's convergence rule, as routing needs it.
struct Converged<'r> {
    /// The path prefix requests to the converged host get.
    prefix: &'r Arc<str>,
    /// Whether this install is inside the convergence's gray release.
    released: bool,
}

/// A request of a business line about to be routed on one of its pools.
#[derive(Clone, Copy)]
struct OnPool<'r, 'a> {
    req: &'r RouteRequest<'a>,
    url: &'r SplitUrl<'a>,
    /// The converged host's path prefix, when the host is converged.
    prefix: Option<&'r Arc<str>>,
    biz: &'r BizEntry,
    mode: RolloutMode,
}

/// The decision that leaves `req` on its URL, for `reason`, under `mode`.
fn unchanged(
    req: &RouteRequest<'_>,
    biz: Option<&BizEntry>,
    reason: Reason,
    mode: RolloutMode,
) -> RouteDecision {
    RouteDecision {
        biz: biz.map(|b| b.name.clone()),
        protocol: req.protocol,
        line: None,
        reason,
        version_mismatch: false,
        version_header: None,
        target: None,
        mode,
        would: None,
        // Set by [`Topology::route`] from the config.
        max_retries: 0,
        buffer_body_max_bytes: 0,
    }
}

/// The decision that sends `req` (split as `url`, behind `prefix`) to the line `sel` chose
/// in `biz`'s `pool`.
fn on_line(
    req: &RouteRequest<'_>,
    url: &SplitUrl<'_>,
    prefix: Option<&Arc<str>>,
    biz: &BizEntry,
    pool: &LinePool,
    sel: Selection,
) -> RouteDecision {
    let line = &pool.lines()[sel.index];
    RouteDecision {
        biz: Some(biz.name.clone()),
        protocol: req.protocol,
        line: Some(line.id.clone()),
        reason: sel.reason,
        version_mismatch: pool.version_mismatch(sel.index),
        version_header: biz.version_header.clone(),
        target: Some(Target::new(req.url, url, &line.endpoint, prefix)),
        mode: RolloutMode::On,
        would: None,
        // Set by [`Topology::route`] from the config.
        max_retries: 0,
        buffer_body_max_bytes: 0,
    }
}

/// Validates an `X-Line-Fixed-Host` value: `http(s)://host[:port]`, cleartext only when
/// allowed, port 1–65535.
pub fn parse_fixed_host(
    value: &str,
    allow_cleartext: bool,
) -> std::result::Result<Endpoint, String> {
    let ep = Endpoint::parse(value, allow_cleartext)?;
    if ep.scheme.is_ws() {
        return Err("a fixed host must be http or https".to_string());
    }
    Ok(ep)
}

/// The scheme a request of scheme `request` gets on `endpoint`: the request's family
/// (http/https or ws/wss) with the endpoint's security.
fn final_scheme(request: Scheme, endpoint: &Endpoint) -> Scheme {
    match (request.is_ws(), !endpoint.scheme.is_cleartext()) {
        (false, true) => Scheme::Https,
        (false, false) => Scheme::Http,
        (true, true) => Scheme::Wss,
        (true, false) => Scheme::Ws,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The final URL of `url` on the line `line` behind `prefix`.
    fn rewritten(url: &str, line: &str, prefix: &str) -> String {
        let u = SplitUrl::parse(url).unwrap();
        let prefix: Arc<str> = prefix.into();
        Target::new(url, &u, &ep(line), Some(&prefix)).url(url)
    }

    fn ep(s: &str) -> Endpoint {
        Endpoint::parse(s, true).unwrap()
    }

    #[test]
    fn rewrite_changes_only_scheme_and_authority_and_inserts_the_prefix() {
        // (request URL, line, path prefix, rewritten URL)
        for (url, line, prefix, want) in [
            (
                "https://api.example.com/a%2Fb/ü?q=a+b&e=#frag",
                "https://spot-tx.example.com:8443",
                "",
                "https://spot-tx.example.com:8443/a%2Fb/ü?q=a+b&e=#frag",
            ),
            (
                "wss://api.example.com/stream",
                "wss://ws.example.com",
                "",
                "wss://ws.example.com/stream",
            ),
            // An http(s) request on a ws line keeps its own scheme.
            (
                "https://api.example.com/stream",
                "wss://ws.example.com",
                "",
                "https://ws.example.com/stream",
            ),
            (
                "https://image.example.com/a.png?w=1",
                "https://cdn.example.com",
                "/image",
                "https://cdn.example.com/image/a.png?w=1",
            ),
            (
                "https://image.example.com?w=1",
                "https://cdn.example.com",
                "/image",
                "https://cdn.example.com/image/?w=1",
            ),
        ] {
            assert_eq!(rewritten(url, line, prefix), want, "{url} on {line}");
        }
    }

    #[test]
    fn a_target_holds_the_parts_that_rewrite_changes() {
        let request = "wss://image.example.com:9443?w=1";
        let u = SplitUrl::parse(request).unwrap();
        let prefix: Arc<str> = "/image".into();
        let t = Target::new(request, &u, &ep("ws://[::1]:8080"), Some(&prefix));
        assert_eq!(
            (t.scheme, &*t.host, t.port, t.path_prefix.as_deref()),
            (Scheme::Ws, "::1", Some(8080), Some("/image"))
        );
        assert_eq!(&request[t.rest_at..], "?w=1");
        assert_eq!(t.url(request), "ws://[::1]:8080/image/?w=1");
        let empty: Arc<str> = "".into();
        let t = Target::new(request, &u, &ep("https://cdn.example.com"), Some(&empty));
        assert_eq!((t.scheme, t.port, t.path_prefix), (Scheme::Wss, None, None));
    }

    #[test]
    fn fixed_host_validation() {
        // (value, cleartext allowed, valid)
        for (value, cleartext, valid) in [
            ("https://pin.example.com:443", false, true),
            ("http://pin.example.com", false, false),
            ("http://pin.example.com", true, true),
            ("wss://pin.example.com", true, false),
            ("https://pin.example.com:0", false, false),
            ("pin.example.com", false, false),
        ] {
            let got = parse_fixed_host(value, cleartext).is_ok();
            assert_eq!(got, valid, "{value} (cleartext allowed: {cleartext})");
        }
    }
}
