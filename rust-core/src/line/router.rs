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
//! 3. `X-Line-Fixed-Host` → that origin (`fixed_host`), or unchanged when invalid
//!    (`fixed_host_invalid`).
//! 4. A converged legacy host → the unified business line's line plus the path prefix
//!    (`merged`), unless this install is outside the gray share (`merge_gray_out`) or every
//!    unified line is open (`merge_fallback_original`).
//! 5. Business line from `X-Line-Biz`, else from the host; none → `unmanaged`; no pool for
//!    the protocol → `unmanaged`.
//! 6. Kill switch → first line by priority (`downgrade`); else the pool's selection.
//!
//! Only scheme, host and port change; the path, query and fragment are copied byte for
//! byte (see [`super::endpoint::SplitUrl`]).

use super::convergence::Convergence;
use super::endpoint::{Endpoint, Scheme, SplitUrl};
use super::outcome::Protocol;
use super::pool::LinePool;
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
}

impl<'a> RouteRequest<'a> {
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
        }
    }
}

/// The answer to a [`RouteRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct RouteDecision {
    /// Final URL to send (equal to the input when not rewritten).
    pub url: String,
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
    /// What changed when [`RouteDecision::url`] differs from the request URL: a caller
    /// holding the request's parsed URL applies these parts instead of parsing `url`.
    pub target: Option<Target>,
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
}

impl BizEntry {
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
        Ok(Topology {
            config,
            biz,
            hosts,
            convergence,
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

    /// Routes one request at monotonic time `now_ms`.
    pub fn route(&self, req: &RouteRequest<'_>, now_ms: u64, downgrade: bool) -> RouteDecision {
        let unchanged = |biz: Option<&BizEntry>, reason| RouteDecision {
            url: req.url.to_string(),
            biz: biz.map(|b| b.name.clone()),
            protocol: req.protocol,
            line: None,
            reason,
            version_mismatch: false,
            version_header: None,
            target: None,
        };
        if req.keep_original {
            return unchanged(None, Reason::KeepOriginal);
        }
        let Some(url) = SplitUrl::parse(req.url) else {
            return unchanged(None, Reason::Unmanaged);
        };
        if let Some(fixed) = req.fixed_host {
            return match parse_fixed_host(fixed, self.config.allow_cleartext) {
                Ok(ep) => RouteDecision {
                    url: rewrite(&url, &ep, ""),
                    biz: None,
                    protocol: req.protocol,
                    line: None,
                    reason: Reason::FixedHost,
                    version_mismatch: false,
                    version_header: None,
                    target: Some(Target::new(req.url, &url, &ep, None)),
                },
                Err(_) => unchanged(None, Reason::FixedHostInvalid),
            };
        }
        if let Some(rule) = self.convergence.rule(url.host) {
            let biz = &self.biz[rule.biz];
            if !rule.released {
                return unchanged(Some(biz), Reason::MergeGrayOut);
            }
            let Some(pool) = biz.pool(req.protocol) else {
                return unchanged(Some(biz), Reason::Unmanaged);
            };
            let mut pool = pool.lock();
            let (index, reason) = if downgrade || self.config.downgrade {
                (pool.first_by_priority(), Reason::Downgrade)
            } else {
                let sel = pool.select(now_ms, req.exclude);
                if sel.reason == Reason::AllOpenFallback {
                    return unchanged(Some(biz), Reason::MergeFallbackOriginal);
                }
                (sel.index, Reason::Merged)
            };
            let line = &pool.lines()[index];
            return RouteDecision {
                url: rewrite(&url, &line.endpoint, &rule.path_prefix),
                biz: Some(biz.name.clone()),
                protocol: req.protocol,
                line: Some(line.id.clone()),
                reason,
                version_mismatch: pool.version_mismatch(index),
                version_header: biz.version_header.clone(),
                target: Some(Target::new(
                    req.url,
                    &url,
                    &line.endpoint,
                    Some(&rule.path_prefix),
                )),
            };
        }
        let biz = req
            .biz
            .and_then(|name| self.biz_entry(name))
            .or_else(|| self.biz_for_host(url.host));
        let Some(biz) = biz else {
            return unchanged(None, Reason::Unmanaged);
        };
        let Some(pool) = biz.pool(req.protocol) else {
            return unchanged(Some(biz), Reason::Unmanaged);
        };
        let mut pool = pool.lock();
        let (index, reason) = if downgrade || self.config.downgrade {
            (pool.first_by_priority(), Reason::Downgrade)
        } else {
            let sel = pool.select(now_ms, req.exclude);
            (sel.index, sel.reason)
        };
        let line = &pool.lines()[index];
        RouteDecision {
            url: rewrite(&url, &line.endpoint, ""),
            biz: Some(biz.name.clone()),
            protocol: req.protocol,
            line: Some(line.id.clone()),
            reason,
            version_mismatch: pool.version_mismatch(index),
            version_header: biz.version_header.clone(),
            target: Some(Target::new(req.url, &url, &line.endpoint, None)),
        }
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

/// Builds `scheme://authority` + `prefix` + the original rest. The scheme keeps the
/// request's family (http/https or ws/wss) and takes the endpoint's security.
pub fn rewrite(url: &SplitUrl<'_>, endpoint: &Endpoint, prefix: &str) -> String {
    let scheme = final_scheme(url.scheme, endpoint).as_str();
    let origin: &str = &endpoint.origin;
    let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
    let mut out = String::with_capacity(
        scheme.len() + 3 + authority.len() + prefix.len() + url.rest.len() + 1,
    );
    out.push_str(scheme);
    out.push_str("://");
    out.push_str(authority);
    out.push_str(prefix);
    if !prefix.is_empty() && !url.rest.starts_with('/') {
        out.push('/');
    }
    out.push_str(url.rest);
    out
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

    fn ep(s: &str) -> Endpoint {
        Endpoint::parse(s, true).unwrap()
    }

    #[test]
    fn rewrite_changes_only_scheme_and_authority() {
        let u = SplitUrl::parse("https://api.example.com/a%2Fb/ü?q=a+b&e=#frag").unwrap();
        assert_eq!(
            rewrite(&u, &ep("https://spot-tx.example.com:8443"), ""),
            "https://spot-tx.example.com:8443/a%2Fb/ü?q=a+b&e=#frag"
        );
        let ws = SplitUrl::parse("wss://api.example.com/stream").unwrap();
        assert_eq!(
            rewrite(&ws, &ep("wss://ws.example.com"), ""),
            "wss://ws.example.com/stream"
        );
        let http_for_ws_line = SplitUrl::parse("https://api.example.com/stream").unwrap();
        assert_eq!(
            rewrite(&http_for_ws_line, &ep("wss://ws.example.com"), ""),
            "https://ws.example.com/stream"
        );
    }

    #[test]
    fn rewrite_inserts_path_prefix() {
        let u = SplitUrl::parse("https://image.example.com/a.png?w=1").unwrap();
        assert_eq!(
            rewrite(&u, &ep("https://cdn.example.com"), "/image"),
            "https://cdn.example.com/image/a.png?w=1"
        );
        let bare = SplitUrl::parse("https://image.example.com?w=1").unwrap();
        assert_eq!(
            rewrite(&bare, &ep("https://cdn.example.com"), "/image"),
            "https://cdn.example.com/image/?w=1"
        );
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
        assert_eq!(
            rewrite(&u, &ep("ws://[::1]:8080"), "/image"),
            "ws://[::1]:8080/image/?w=1"
        );
        let empty: Arc<str> = "".into();
        let t = Target::new(request, &u, &ep("https://cdn.example.com"), Some(&empty));
        assert_eq!((t.scheme, t.port, t.path_prefix), (Scheme::Wss, None, None));
    }

    #[test]
    fn fixed_host_validation() {
        assert!(parse_fixed_host("https://pin.example.com:443", false).is_ok());
        assert!(parse_fixed_host("http://pin.example.com", false).is_err());
        assert!(parse_fixed_host("http://pin.example.com", true).is_ok());
        assert!(parse_fixed_host("wss://pin.example.com", true).is_err());
        assert!(parse_fixed_host("https://pin.example.com:0", false).is_err());
        assert!(parse_fixed_host("pin.example.com", false).is_err());
    }
}
