//! The semantic rules of a configuration, written once over the typed [`Config`] and shared
//! by [`super::validate::parse_config`] (JSON documents) and [`super::validate::validate`]
//! (configs built in code).
//!
//! Errors are collected in [`Findings`]. When the decoder found a *structural* problem at a
//! path (wrong type, missing field, …) it *taints* that path and substitutes a placeholder
//! value; rules then stay silent at and below tainted paths, so one mistake is reported
//! once and placeholders never produce invented follow-up errors.

use super::limits::{self, above, MAX_PRIORITY, MAX_RETRIES, MAX_WEIGHT};
use super::model::{BizLine, Config, LineConfig, Rollout, Thresholds};
use crate::dns::providers::ProviderFormat;
use crate::error::FieldError;
use crate::line::endpoint::{is_valid_hostname, parse_authority};
use crate::line::Endpoint;
use crate::wire::WireEnum;
use std::collections::{HashMap, HashSet};

/// At most this many problems are listed; a config with more (a 1 MiB array of junk) gets
/// one final note instead, so validation stays fast and small on a phone.
pub const MAX_REPORTED_ERRORS: usize = 200;

/// Problems found so far, plus the paths whose values are placeholders.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    errors: Vec<FieldError>,
    /// Problems found after [`MAX_REPORTED_ERRORS`] was reached.
    omitted: bool,
    /// Paths with a structural error: rules at or below them are skipped.
    tainted: HashSet<String>,
    /// Tainted paths and all their ancestors: "is there an error at or below here?".
    dirty: HashSet<String>,
    /// Parts this build cannot use, dropped from the config with a warning.
    warnings: Vec<FieldError>,
}

impl Findings {
    /// Records a structural problem (the value at `path` was replaced by a placeholder).
    pub(crate) fn structural(&mut self, path: &str, error: impl Into<String>) {
        if self.errors.len() >= MAX_REPORTED_ERRORS {
            // Nothing more will be listed, so nothing more needs silencing either.
            self.omitted = true;
            return;
        }
        self.errors.push(FieldError::new(path, error));
        for a in ancestors(path) {
            self.dirty.insert(a.to_string());
        }
        self.tainted.insert(path.to_string());
    }

    /// Records a rule violation unless `path` lies at or below a tainted path.
    pub(crate) fn rule(&mut self, path: &str, error: impl Into<String>) {
        if self.covered(path) {
            return;
        }
        if self.errors.len() >= MAX_REPORTED_ERRORS {
            self.omitted = true;
        } else {
            self.errors.push(FieldError::new(path, error));
        }
    }

    /// Records that the part at `path` is dropped (this build cannot use it): a warning,
    /// not an error, and rules stay silent at and below `path`.
    pub(crate) fn warning(&mut self, path: &str, why: impl Into<String>) {
        self.warnings.push(FieldError::new(path, why));
        self.tainted.insert(path.to_string());
    }

    /// Whether nothing at all was recorded (no error, no warning).
    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty() && !self.omitted && self.warnings.is_empty()
    }

    /// The warnings recorded so far.
    pub(crate) fn warnings(&self) -> &[FieldError] {
        &self.warnings
    }

    /// Whether `path` or one of its ancestors holds a placeholder.
    pub(crate) fn covered(&self, path: &str) -> bool {
        !self.tainted.is_empty() && ancestors(path).any(|a| self.tainted.contains(a))
    }

    /// Whether a structural problem was found at or below `path`.
    pub(crate) fn dirty(&self, path: &str) -> bool {
        self.dirty.contains(path)
    }

    /// The problems found, ordered by path (names alphabetically, indices numerically —
    /// for JSON input this is document order, as object keys are sorted); problems at the
    /// same path keep the order they were found in.
    pub(crate) fn into_errors(mut self) -> Vec<FieldError> {
        self.errors
            .sort_by(|a, b| path_key(&a.path).cmp(path_key(&b.path)));
        if self.omitted {
            self.errors.push(FieldError::new(
                "",
                format!("more problems not listed (at most {MAX_REPORTED_ERRORS} are reported)"),
            ));
        }
        self.errors
    }
}

/// One step of a field path, ordered so that `http[2]` sorts before `http[10]`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step<'a> {
    Index(u64),
    Name(&'a str),
}

fn path_key(path: &str) -> impl Iterator<Item = Step<'_>> {
    path.split(['.', '[']).filter(|s| !s.is_empty()).map(|s| {
        match s.strip_suffix(']').map(str::parse::<u64>) {
            Some(Ok(i)) => Step::Index(i),
            _ => Step::Name(s),
        }
    })
}

/// `""`, then every prefix of `path` ending before a `.` or `[`, then `path` itself.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let cuts = path
        .char_indices()
        .filter(|&(i, c)| i > 0 && (c == '.' || c == '['))
        .map(|(i, _)| i);
    std::iter::once("")
        .chain(cuts.map(move |i| &path[..i]))
        .chain((!path.is_empty()).then_some(path))
}

/// The path of business line `name`: `biz_lines.spot`, or `biz_lines["Odd Name"]` (JSON
/// quoted, truncated) for names that are not plain identifiers.
pub(crate) fn biz_path(name: &str) -> String {
    format!("biz_lines{}", biz_key(name))
}

/// The step of [`biz_path`] below `biz_lines`: `.spot`, or [`quoted_key`].
pub(crate) fn biz_key(name: &str) -> String {
    if is_valid_biz_name(name) {
        format!(".{name}")
    } else {
        quoted_key(name)
    }
}

/// The path step of a map entry: `["name"]`, the name JSON-quoted and cut to 64 characters.
/// The decoder and the rules both name entries with it, so a rule finds its entry covered.
pub(crate) fn quoted_key(name: &str) -> String {
    let shown: String = name.chars().take(64).collect();
    format!("[{}]", serde_json::Value::String(shown))
}

/// Business line names: non-empty `[a-z0-9_-]+`.
pub fn is_valid_biz_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Exact host names, IP literals, or `*.suffix` patterns.
pub fn is_valid_host_pattern(pattern: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => is_valid_hostname(suffix),
        None => is_valid_host(pattern),
    }
}

/// Exact host names or IP literals (no wildcard).
pub fn is_valid_host(host: &str) -> bool {
    is_valid_hostname(host) || host.parse::<std::net::IpAddr>().is_ok()
}

/// A host pattern in the form used to detect duplicates.
fn normalize_host(pattern: &str) -> String {
    pattern.trim_end_matches('.').to_ascii_lowercase()
}

/// Runs every semantic rule over `c`.
pub(crate) fn check(c: &Config, f: &mut Findings) {
    if c.version > limits::MAX_VERSION {
        f.rule("version", above(limits::MAX_VERSION));
    }
    if c.expires_at.is_some_and(|at| at > limits::MAX_EXPIRES_AT_S) {
        f.rule("expires_at", above(limits::MAX_EXPIRES_AT_S));
    }
    thresholds(&c.thresholds, f);
    // If `allow_cleartext` itself was malformed, do not pile cleartext errors on top.
    let allow_cleartext = c.allow_cleartext || f.covered("allow_cleartext");
    let mut owners: HashMap<String, &str> = HashMap::new();
    for (name, biz) in &c.biz_lines {
        biz_line(name, biz, allow_cleartext, &mut owners, f);
    }
    rollout("rollout", &c.rollout, f);
    merge_hosts(c, f);
    super::fixed_hosts::check(&c.fixed_hosts, f);
    httpdns(c, allow_cleartext, f);
    if !(0.0..=1.0).contains(&c.trace.sample_rate) {
        f.rule("trace.sample_rate", "must be a number in [0, 1]");
    }
    if c.trace.window_ms > limits::MAX_DELAY_MS {
        f.rule("trace.window_ms", above(limits::MAX_DELAY_MS));
    }
    if let Some(remote) = &c.remote {
        super::remote::check(remote, allow_cleartext, f);
    }
    if let Some(trust) = &c.trust {
        super::trust::check(trust, c.expires_at, f);
        for (i, key) in trust.keys.iter().enumerate() {
            if has_format_chars(&key.id) {
                f.rule(&format!("trust.keys[{i}].id"), INVISIBLE_CHARS);
            }
        }
    }
}

/// The finding of an id or path holding an invisible formatting character.
const INVISIBLE_CHARS: &str =
    "must not contain invisible formatting characters (bidi overrides, zero-width marks)";

/// Whether `s` holds a Unicode formatting character that changes how text around it is
/// shown without being seen itself: bidi embeddings, overrides and isolates
/// (U+202A..U+202E, U+2066..U+2069), directional marks (U+200E, U+200F, U+061C),
/// zero-width characters (U+200B..U+200D, U+2060..U+2064, U+FEFF), line and paragraph
/// separators (U+2028, U+2029), the soft hyphen and the interlinear annotation marks. An
/// id with one reads as another id in a report, a log or a review tool.
pub(crate) fn has_format_chars(s: &str) -> bool {
    s.chars().any(|c| {
        matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
    })
}

/// Whether `s` is safe to show as an identifier: no control character and no invisible
/// formatting character ([`has_format_chars`]).
pub(crate) fn is_plain_text(s: &str) -> bool {
    !s.chars().any(char::is_control) && !has_format_chars(s)
}

/// Every threshold with its bounds. The destructuring names every field, so a new one
/// does not compile until it has its bounds here.
fn thresholds(t: &Thresholds, f: &mut Findings) {
    use limits::{
        MAX_BUFFER_BODY_BYTES, MAX_DEADLINE_MS, MAX_DELAY_MS, MAX_FAILURE_THRESHOLD, MAX_PERIOD_MS,
        MAX_PROBE_BUDGET_PER_MIN, MAX_SLOW_SWITCH_COUNT,
    };
    let Thresholds {
        timeout_ms,
        slow_request_ms,
        detect_cooldown_ms,
        switch_interval_ms,
        window_ms,
        failure_threshold,
        open_cooldown_ms,
        revive_interval_ms,
        max_retries,
        detect_jitter_ms,
        startup_detect_delay_ms,
        probe_budget_per_min,
        ws_stable_ms,
        buffer_body_max_bytes,
        slow_switch_count,
        slow_switch_ms,
        urgent_jitter_ms,
        read_fault_hold_ms,
    } = *t;
    // (field, value, least value, largest value)
    let fields: [(&str, u64, u64, u64); 18] = [
        ("timeout_ms", timeout_ms, 1, MAX_DEADLINE_MS),
        ("slow_request_ms", slow_request_ms, 1, MAX_DEADLINE_MS),
        ("slow_switch_ms", slow_switch_ms, 0, MAX_DEADLINE_MS),
        ("detect_jitter_ms", detect_jitter_ms, 0, MAX_DELAY_MS),
        ("urgent_jitter_ms", urgent_jitter_ms, 0, MAX_DELAY_MS),
        ("ws_stable_ms", ws_stable_ms, 1, MAX_DELAY_MS),
        ("detect_cooldown_ms", detect_cooldown_ms, 1, MAX_PERIOD_MS),
        ("switch_interval_ms", switch_interval_ms, 0, MAX_PERIOD_MS),
        ("window_ms", window_ms, 1, MAX_PERIOD_MS),
        ("open_cooldown_ms", open_cooldown_ms, 1, MAX_PERIOD_MS),
        ("revive_interval_ms", revive_interval_ms, 1, MAX_PERIOD_MS),
        (
            "startup_detect_delay_ms",
            startup_detect_delay_ms,
            0,
            MAX_PERIOD_MS,
        ),
        ("read_fault_hold_ms", read_fault_hold_ms, 0, MAX_PERIOD_MS),
        (
            "buffer_body_max_bytes",
            buffer_body_max_bytes,
            0,
            MAX_BUFFER_BODY_BYTES,
        ),
        (
            "failure_threshold",
            failure_threshold.into(),
            1,
            MAX_FAILURE_THRESHOLD.into(),
        ),
        ("max_retries", max_retries.into(), 0, MAX_RETRIES.into()),
        (
            "probe_budget_per_min",
            probe_budget_per_min.into(),
            1,
            MAX_PROBE_BUDGET_PER_MIN.into(),
        ),
        (
            "slow_switch_count",
            slow_switch_count.into(),
            0,
            MAX_SLOW_SWITCH_COUNT.into(),
        ),
    ];
    for (name, value, least, most) in fields {
        let path = format!("thresholds.{name}");
        if value < least {
            f.rule(
                &path,
                if name.ends_with("_ms") {
                    "must be greater than 0"
                } else {
                    "must be at least 1"
                },
            );
        } else if value > most {
            f.rule(
                &path,
                if least == 0 {
                    format!("must be in 0..={most}")
                } else {
                    above(most)
                },
            );
        }
    }
}

/// The rollout at `path`: `percent` is a share of installs.
fn rollout(path: &str, r: &Rollout, f: &mut Findings) {
    if r.percent > 100 {
        f.rule(&format!("{path}.percent"), "must be in 0..=100");
    }
}

fn biz_line<'c>(
    name: &'c str,
    biz: &BizLine,
    allow_cleartext: bool,
    owners: &mut HashMap<String, &'c str>,
    f: &mut Findings,
) {
    let path = biz_path(name);
    if !is_valid_biz_name(name) {
        f.rule(
            &path,
            "business line name must be non-empty and use only a-z, 0-9, _ and -",
        );
    }
    // A malformed or explicitly empty pool was already reported at the pool's path.
    let pool_reported = f.dirty(&format!("{path}.http")) || f.dirty(&format!("{path}.ws"));
    if biz.http.is_empty() && biz.ws.is_empty() && !pool_reported {
        f.rule(
            &path,
            "empty pool: a business line needs at least one http or ws line",
        );
    }
    for (i, host) in biz.match_hosts.iter().enumerate() {
        let p = format!("{path}.match[{i}]");
        if !is_valid_host_pattern(host) {
            f.rule(&p, "not a valid host name or *.suffix pattern");
            continue;
        }
        if f.covered(&p) {
            continue;
        }
        match owners.get(&normalize_host(host)) {
            Some(other) if *other != name => {
                let other = biz_path(other);
                let other = other.trim_start_matches("biz_lines.");
                f.rule(
                    &p,
                    format!("host is already matched by business line {other}"),
                );
            }
            Some(_) => f.rule(&p, "host is listed twice"),
            None => {
                owners.insert(normalize_host(host), name);
            }
        }
    }
    if !matches!(biz.detect_method.as_str(), "HEAD" | "GET" | "OPTIONS") {
        f.rule(
            &format!("{path}.detect_method"),
            "must be HEAD, GET or OPTIONS",
        );
    }
    if let Some(status) = biz.detect_expect_status {
        if !(100..=599).contains(&status) {
            f.rule(
                &format!("{path}.detect_expect_status"),
                "must be an HTTP status (100-599)",
            );
        }
    }
    if let Some(length) = biz.detect_expect_length {
        if biz.detect_method != "GET" {
            f.rule(
                &format!("{path}.detect_expect_length"),
                "needs detect_method GET (other probes carry no body)",
            );
        }
        if length > crate::transport::MAX_BODY_BYTES as u64 {
            f.rule(
                &format!("{path}.detect_expect_length"),
                format!(
                    "at most {} bytes (a probe body is read whole)",
                    crate::transport::MAX_BODY_BYTES
                ),
            );
        }
    }
    if !biz.detect_path.starts_with('/') {
        f.rule(&format!("{path}.detect_path"), "must start with /");
    } else if biz
        .detect_path
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
        || has_format_chars(&biz.detect_path)
    {
        f.rule(
            &format!("{path}.detect_path"),
            "must not contain spaces, control characters (CR, LF, …) or invisible formatting \
             characters",
        );
    }
    if let Some(header) = &biz.version_header {
        if let Err(why) = crate::line::version::check_header_name(header) {
            f.rule(&format!("{path}.version_header"), why);
        }
    }
    if let Some(r) = &biz.rollout {
        rollout(&format!("{path}.rollout"), r, f);
    }
    let mut ids: HashMap<&str, String> = HashMap::new();
    for (pool, lines) in [("http", &biz.http), ("ws", &biz.ws)] {
        for (i, line) in lines.iter().enumerate() {
            let p = format!("{path}.{pool}[{i}]");
            line_config(&p, pool == "ws", line, allow_cleartext, f);
            if line.id.is_empty() || f.covered(&format!("{p}.id")) {
                continue;
            }
            match ids.get(line.id.as_str()) {
                Some(first) => f.rule(
                    &format!("{p}.id"),
                    format!("duplicate line id (already used by {first})"),
                ),
                None => {
                    ids.insert(&line.id, format!("{pool}[{i}]"));
                }
            }
        }
    }
}

fn line_config(path: &str, ws: bool, line: &LineConfig, allow_cleartext: bool, f: &mut Findings) {
    if line.id.is_empty() {
        f.rule(&format!("{path}.id"), "must not be empty");
    } else if line.id.len() > 128 || line.id.chars().any(char::is_control) {
        f.rule(
            &format!("{path}.id"),
            "must be at most 128 bytes without control characters",
        );
    } else if has_format_chars(&line.id) {
        f.rule(&format!("{path}.id"), INVISIBLE_CHARS);
    }
    if line.priority.is_some_and(|p| p > MAX_PRIORITY) {
        f.rule(&format!("{path}.priority"), above(MAX_PRIORITY));
    }
    let url_path = format!("{path}.url");
    match Endpoint::parse(&line.url, true) {
        Err(why) => f.rule(&url_path, why),
        Ok(e) if e.scheme.is_ws() != ws => f.rule(
            &url_path,
            if ws {
                "a ws pool line must use ws or wss"
            } else {
                "an http pool line must use http or https"
            },
        ),
        Ok(_) => {
            if let Err(why) = Endpoint::parse(&line.url, allow_cleartext) {
                f.rule(&url_path, why);
            }
        }
    }
    if !(1..=MAX_WEIGHT).contains(&line.weight) {
        f.rule(
            &format!("{path}.weight"),
            format!("must be in 1..={MAX_WEIGHT}"),
        );
    }
}

fn merge_hosts(c: &Config, f: &mut Findings) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, m) in c.merge_hosts.iter().enumerate() {
        let p = format!("merge_hosts[{i}]");
        let host_path = format!("{p}.host");
        if !is_valid_host(&m.host) {
            f.rule(&host_path, "not a valid host name");
        } else if !f.covered(&host_path) {
            match seen.get(&normalize_host(&m.host)) {
                Some(first) => f.rule(
                    &host_path,
                    format!("host is already listed at merge_hosts[{first}]"),
                ),
                None => {
                    seen.insert(normalize_host(&m.host), i);
                }
            }
        }
        // When biz_lines itself is malformed, every reference would look unknown.
        if !c.biz_lines.contains_key(&m.biz) && !f.covered("biz_lines") {
            f.rule(&format!("{p}.biz"), "unknown business line");
        }
        let prefix = &m.path_prefix;
        if !prefix.is_empty()
            && (!prefix.starts_with('/')
                || prefix.ends_with('/')
                || prefix.contains(['?', '#'])
                || prefix
                    .chars()
                    .any(|ch| ch.is_whitespace() || ch.is_control()))
        {
            f.rule(
                &format!("{p}.path_prefix"),
                "must be empty or start with / and not end with / (no ?, # or spaces)",
            );
        }
        if !(0.0..=1.0).contains(&m.rate) {
            f.rule(&format!("{p}.rate"), "must be a number in [0, 1]");
        }
    }
}

fn httpdns(c: &Config, allow_cleartext: bool, f: &mut Findings) {
    let h = &c.httpdns;
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, p) in h.providers.iter().enumerate() {
        let path = format!("httpdns.providers[{i}]");
        let id_path = format!("{path}.id");
        if p.id.is_empty() {
            f.rule(&id_path, "must not be empty");
        } else if !is_plain_text(&p.id) {
            f.rule(
                &id_path,
                "must not contain control or invisible formatting characters",
            );
        } else if !f.covered(&id_path) {
            match ids.get(p.id.as_str()) {
                Some(first) => f.rule(
                    &id_path,
                    format!("duplicate provider id (already used by providers[{first}])"),
                ),
                None => {
                    ids.insert(&p.id, i);
                }
            }
        }
        if p.format.parse::<ProviderFormat>().is_err() {
            f.rule(
                &format!("{path}.format"),
                format!("must be one of {}", ProviderFormat::names().join(", ")),
            );
        }
        super::httpdns_rules::provider_auth(p, &path, f);
        super::httpdns_rules::provider_endpoint(p, &path, allow_cleartext, f);
    }
    for (field, list) in [
        ("hosts", &h.hosts),
        ("allow_private", &h.allow_private),
        ("pre_resolve", &h.pre_resolve),
    ] {
        for (i, host) in list.iter().enumerate() {
            if !is_valid_host_pattern(host) {
                f.rule(
                    &format!("httpdns.{field}[{i}]"),
                    "not a valid host name or *.suffix pattern",
                );
            }
        }
    }
    super::httpdns_rules::serve_stale_and_bootstrap(h, f);
    if !(h.refresh_ratio > 0.0 && h.refresh_ratio <= 1.0) {
        f.rule("httpdns.refresh_ratio", "must be a number in (0, 1]");
    }
    if !(0.0..1.0).contains(&h.jitter_ratio) {
        f.rule("httpdns.jitter_ratio", "must be a number in [0, 1)");
    }
    if h.max_ttl_s > limits::MAX_TTL_S {
        f.rule("httpdns.max_ttl_s", above(limits::MAX_TTL_S));
    }
    if h.min_ttl_s < 1 {
        f.rule("httpdns.min_ttl_s", "must be at least 1");
    } else if h.min_ttl_s > h.max_ttl_s && !f.covered("httpdns.max_ttl_s") {
        f.rule("httpdns.min_ttl_s", "must not exceed httpdns.max_ttl_s");
    }
}

/// A provider endpoint: `https://host[:port][/path][?query]` (`http` only with
/// `allow_cleartext`). The reason never echoes the URL.
pub(crate) fn provider_url(url: &str, allow_cleartext: bool) -> Result<(), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| "not a URL: expected https://host[:port]/path".to_string())?;
    if scheme.eq_ignore_ascii_case("http") {
        if !allow_cleartext {
            return Err("cleartext http is not allowed (set allow_cleartext)".to_string());
        }
    } else if !scheme.eq_ignore_ascii_case("https") {
        return Err("unsupported scheme: expected https".to_string());
    }
    // A fragment never leaves the client: a query or path after `#` would silently not
    // be sent (a signed query dropped), so `#` is refused wherever it appears.
    if rest.contains('#') {
        return Err("the URL may not have a fragment".to_string());
    }
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    if rest.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("the URL may not contain spaces or control characters".to_string());
    }
    parse_authority(&rest[..end]).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_cover_dots_and_brackets() {
        let got: Vec<&str> = ancestors("biz_lines.spot.http[1].url").collect();
        assert_eq!(
            got,
            [
                "",
                "biz_lines",
                "biz_lines.spot",
                "biz_lines.spot.http",
                "biz_lines.spot.http[1]",
                "biz_lines.spot.http[1].url"
            ]
        );
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn tainted_paths_silence_rules_below_them() {
        let mut f = Findings::default();
        f.structural("biz_lines.spot.http[1]", "expected an object");
        f.rule("biz_lines.spot.http[1].url", "hidden");
        f.rule("biz_lines.spot.http[10].url", "shown");
        assert!(f.dirty("biz_lines.spot"));
        assert!(!f.dirty("biz_lines.cdn"));
        let paths: Vec<String> = f.into_errors().into_iter().map(|e| e.path).collect();
        assert_eq!(
            paths,
            ["biz_lines.spot.http[1]", "biz_lines.spot.http[10].url"]
        );
    }

    #[test]
    fn the_number_of_listed_problems_is_capped() {
        let mut f = Findings::default();
        for i in 0..MAX_REPORTED_ERRORS + 5 {
            f.structural(&format!("match[{i}]"), "expected a string");
        }
        f.rule("version", "also over the cap");
        let errors = f.into_errors();
        assert_eq!(errors.len(), MAX_REPORTED_ERRORS + 1);
        assert_eq!(errors[0].path, "match[0]");
        let last = &errors[MAX_REPORTED_ERRORS];
        assert_eq!(last.path, "");
        assert!(last.error.contains("more problems"));
    }

    #[test]
    fn provider_urls() {
        assert!(provider_url("https://203.0.113.7/100000/d?x=1", false).is_ok());
        assert!(provider_url("https://dns.example", false).is_ok());
        assert!(provider_url("http://dns.example/q", false).is_err());
        assert!(provider_url("http://dns.example/q", true).is_ok());
        for bad in [
            "dns.example",
            "ftp://dns.example",
            "https:///x",
            "https://a b/",
            "https://h#f",
        ] {
            assert!(provider_url(bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn host_patterns() {
        for ok in [
            "api.example.com",
            "*.example.com",
            "10.0.0.1",
            "::1",
            "localhost",
        ] {
            assert!(is_valid_host_pattern(ok), "{ok}");
        }
        for bad in [
            "",
            "*",
            "*.",
            "a..b",
            "a b",
            "*.*.example.com",
            "ex*ample.com",
        ] {
            assert!(!is_valid_host_pattern(bad), "{bad}");
        }
        assert!(!is_valid_host("*.example.com"));
    }
}
