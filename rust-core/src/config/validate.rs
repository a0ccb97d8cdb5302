//! Turning config text into a [`Config`], reporting *every* problem with a field path.
//!
//! [`parse_config`] works in three steps:
//! 1. a size check (over [`MAX_CONFIG_BYTES`] → one error, the text is not parsed) and a
//!    parse into a [`serde_json::Value`] (syntax errors give line and column, never content);
//! 2. a walk over the value that checks the *shape* of every known field (types, required
//!    fields, integer ranges, explicitly empty pools) while building a lenient typed copy in
//!    which malformed values are replaced by placeholders;
//! 3. the semantic rules (module `config::rules`) over that copy (URLs, ranges, uniqueness,
//!    cross references), silent wherever step 2 already reported a problem.
//!
//! Only when nothing was found is the value deserialized into [`Config`] with serde, so the
//! model's defaults stay the single source of truth. [`validate`] runs step 3 alone on a
//! config built in code. Unknown fields are ignored (forward compatibility).

use super::model::{BizLine, Config, LineConfig, MergeHost, ProviderConfig};
use super::rules::{self, biz_path, Findings};
use crate::error::{Error, FieldError, Result};
use serde_json::{Map, Value};

/// Largest config document accepted, in bytes (1 MiB).
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;

/// Parses and validates a config document; on failure every problem is listed in
/// [`Error::InvalidConfig`].
pub fn parse_config(text: &str) -> Result<Config> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(invalid(
            "",
            format!(
                "config is {} bytes; limit is {MAX_CONFIG_BYTES} bytes",
                text.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json's syntax messages are fixed phrases plus line/column: no content.
        invalid("", format!("not valid JSON: {e}"))
    })?;
    let mut findings = Findings::default();
    let lenient = document(&value, &mut findings);
    rules::check(&lenient, &mut findings);
    let errors = findings.into_errors();
    if !errors.is_empty() {
        return Err(Error::InvalidConfig(errors));
    }
    serde_json::from_value(value).map_err(|_| {
        // The walk mirrors the model, so this is a bug in the walk; never echo content.
        invalid("", "config does not match the model")
    })
}

/// Re-checks a typed config against the semantic rules (URLs, ranges, ids, cross
/// references). Document-only rules — `version` present, `biz_lines` present and
/// non-empty — do not apply: an empty config (every request left on its URL) is valid.
pub fn validate(config: &Config) -> Result<()> {
    let mut findings = Findings::default();
    rules::check(config, &mut findings);
    let errors = findings.into_errors();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidConfig(errors))
    }
}

fn invalid(path: &str, error: impl Into<String>) -> Error {
    Error::InvalidConfig(vec![FieldError::new(path, error)])
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() => "an unsigned integer",
        Value::Number(n) if n.is_i64() => "a negative integer",
        Value::Number(_) => "a floating-point number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Typed accessors: `Some` when `v` has the expected shape, else a structural finding.
struct Walk<'f> {
    f: &'f mut Findings,
}

impl Walk<'_> {
    fn expected(&mut self, path: &str, what: &str, v: &Value) {
        self.f
            .structural(path, format!("expected {what}, found {}", describe(v)));
    }

    fn object<'v>(&mut self, path: &str, v: &'v Value) -> Option<&'v Map<String, Value>> {
        let o = v.as_object();
        if o.is_none() {
            self.expected(path, "an object", v);
        }
        o
    }

    fn array<'v>(&mut self, path: &str, v: &'v Value) -> Option<&'v Vec<Value>> {
        let a = v.as_array();
        if a.is_none() {
            self.expected(path, "an array", v);
        }
        a
    }

    fn string(&mut self, path: &str, v: &Value) -> Option<String> {
        let s = v.as_str().map(str::to_string);
        if s.is_none() {
            self.expected(path, "a string", v);
        }
        s
    }

    fn boolean(&mut self, path: &str, v: &Value) -> Option<bool> {
        let b = v.as_bool();
        if b.is_none() {
            self.expected(path, "a boolean", v);
        }
        b
    }

    fn u64(&mut self, path: &str, v: &Value) -> Option<u64> {
        let n = v.as_u64();
        if n.is_none() {
            self.expected(path, "an unsigned integer", v);
        }
        n
    }

    fn u32(&mut self, path: &str, v: &Value) -> Option<u32> {
        let n = self.u64(path, v)?;
        let small = u32::try_from(n).ok();
        if small.is_none() {
            self.f
                .structural(path, format!("must be at most {}", u32::MAX));
        }
        small
    }

    fn number(&mut self, path: &str, v: &Value) -> Option<f64> {
        let n = v.as_f64();
        if n.is_none() {
            self.expected(path, "a number", v);
        }
        n
    }

    fn missing(&mut self, path: &str) {
        self.f.structural(path, "missing required field");
    }

    /// A list of strings; malformed items become `""` placeholders (indices are kept).
    fn strings(&mut self, path: &str, v: &Value) -> Option<Vec<String>> {
        let items = self.array(path, v)?;
        Some(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| match item.as_str() {
                    Some(s) => s.to_string(),
                    None => {
                        self.expected(&format!("{path}[{i}]"), "a string", item);
                        String::new()
                    }
                })
                .collect(),
        )
    }
}

/// Builds the lenient copy of the whole document.
fn document(v: &Value, f: &mut Findings) -> Config {
    let mut w = Walk { f };
    let mut c = Config::default();
    let Some(root) = v.as_object() else {
        w.f.structural(
            "",
            format!("config must be a JSON object, found {}", describe(v)),
        );
        return c;
    };
    match root.get("version") {
        None => w.missing("version"),
        Some(v) => c.version = w.u64("version", v).unwrap_or_default(),
    }
    if let Some(v) = root.get("downgrade") {
        c.downgrade = w.boolean("downgrade", v).unwrap_or_default();
    }
    if let Some(v) = root.get("allow_cleartext") {
        c.allow_cleartext = w.boolean("allow_cleartext", v).unwrap_or_default();
    }
    if let Some(t) = root
        .get("thresholds")
        .and_then(|v| w.object("thresholds", v))
    {
        let th = &mut c.thresholds;
        for (key, slot) in [
            ("timeout_ms", &mut th.timeout_ms),
            ("slow_request_ms", &mut th.slow_request_ms),
            ("detect_cooldown_ms", &mut th.detect_cooldown_ms),
            ("switch_interval_ms", &mut th.switch_interval_ms),
            ("window_ms", &mut th.window_ms),
            ("open_cooldown_ms", &mut th.open_cooldown_ms),
            ("revive_interval_ms", &mut th.revive_interval_ms),
            ("detect_jitter_ms", &mut th.detect_jitter_ms),
            ("startup_detect_delay_ms", &mut th.startup_detect_delay_ms),
            ("ws_stable_ms", &mut th.ws_stable_ms),
            ("slow_switch_ms", &mut th.slow_switch_ms),
            ("urgent_jitter_ms", &mut th.urgent_jitter_ms),
        ] {
            if let Some(n) = t.get(key).and_then(|v| w.u64(&join("thresholds", key), v)) {
                *slot = n;
            }
        }
        for (key, slot) in [
            ("failure_threshold", &mut th.failure_threshold),
            ("max_retries", &mut th.max_retries),
            ("probe_budget_per_min", &mut th.probe_budget_per_min),
            ("slow_switch_count", &mut th.slow_switch_count),
        ] {
            if let Some(n) = t.get(key).and_then(|v| w.u32(&join("thresholds", key), v)) {
                *slot = n;
            }
        }
    }
    match root.get("biz_lines") {
        None => w.missing("biz_lines"),
        Some(v) => {
            if let Some(lines) = w.object("biz_lines", v) {
                if lines.is_empty() {
                    w.f.structural("biz_lines", "must name at least one business line");
                }
                for (name, v) in lines {
                    let biz = biz_line(&mut w, &biz_path(name), v);
                    c.biz_lines.insert(name.clone(), biz);
                }
            }
        }
    }
    if let Some(items) = root
        .get("merge_hosts")
        .and_then(|v| w.array("merge_hosts", v))
    {
        c.merge_hosts = items
            .iter()
            .enumerate()
            .map(|(i, v)| merge_host(&mut w, &format!("merge_hosts[{i}]"), v))
            .collect();
    }
    if let Some(h) = root.get("httpdns").and_then(|v| w.object("httpdns", v)) {
        let d = &mut c.httpdns;
        if let Some(items) = h
            .get("providers")
            .and_then(|v| w.array("httpdns.providers", v))
        {
            d.providers = items
                .iter()
                .enumerate()
                .map(|(i, v)| provider(&mut w, &format!("httpdns.providers[{i}]"), v))
                .collect();
        }
        if let Some(list) = h.get("hosts").and_then(|v| w.strings("httpdns.hosts", v)) {
            d.hosts = list;
        }
        if let Some(list) = h
            .get("pre_resolve")
            .and_then(|v| w.strings("httpdns.pre_resolve", v))
        {
            d.pre_resolve = list;
        }
        if let Some(list) = h
            .get("allow_private")
            .and_then(|v| w.strings("httpdns.allow_private", v))
        {
            d.allow_private = list;
        }
        for (key, slot) in [
            ("refresh_ratio", &mut d.refresh_ratio),
            ("jitter_ratio", &mut d.jitter_ratio),
        ] {
            if let Some(n) = h.get(key).and_then(|v| w.number(&join("httpdns", key), v)) {
                *slot = n;
            }
        }
        for (key, slot) in [
            ("min_ttl_s", &mut d.min_ttl_s),
            ("max_ttl_s", &mut d.max_ttl_s),
        ] {
            if let Some(n) = h.get(key).and_then(|v| w.u64(&join("httpdns", key), v)) {
                *slot = n;
            }
        }
    }
    if let Some(t) = root.get("trace").and_then(|v| w.object("trace", v)) {
        if let Some(n) = t
            .get("sample_rate")
            .and_then(|v| w.number("trace.sample_rate", v))
        {
            c.trace.sample_rate = n;
        }
    }
    c
}

fn biz_line(w: &mut Walk<'_>, path: &str, v: &Value) -> BizLine {
    let mut b = BizLine::default();
    let Some(o) = w.object(path, v) else {
        return b;
    };
    if let Some(list) = o
        .get("match")
        .and_then(|v| w.strings(&join(path, "match"), v))
    {
        b.match_hosts = list;
    }
    if let Some(s) = o
        .get("detect_path")
        .and_then(|v| w.string(&join(path, "detect_path"), v))
    {
        b.detect_path = s;
    }
    if let Some(s) = o
        .get("detect_method")
        .and_then(|v| w.string(&join(path, "detect_method"), v))
    {
        b.detect_method = s;
    }
    if let Some(n) = o
        .get("detect_expect_status")
        .and_then(|v| w.u32(&join(path, "detect_expect_status"), v))
    {
        b.detect_expect_status = Some(u16::try_from(n).unwrap_or(u16::MAX));
    }
    if let Some(n) = o
        .get("detect_expect_length")
        .and_then(|v| w.u64(&join(path, "detect_expect_length"), v))
    {
        b.detect_expect_length = Some(n);
    }
    for (pool, slot) in [("http", &mut b.http), ("ws", &mut b.ws)] {
        let pool_path = join(path, pool);
        if let Some(items) = o.get(pool).and_then(|v| w.array(&pool_path, v)) {
            if items.is_empty() {
                w.f.structural(
                    &pool_path,
                    "empty pool: list at least one line or omit the field",
                );
            }
            *slot = items
                .iter()
                .enumerate()
                .map(|(i, v)| line(w, &format!("{pool_path}[{i}]"), v))
                .collect();
        }
    }
    b
}

fn line(w: &mut Walk<'_>, path: &str, v: &Value) -> LineConfig {
    let mut l = LineConfig {
        id: String::new(),
        url: String::new(),
        priority: None,
        weight: 100,
    };
    let Some(o) = w.object(path, v) else {
        return l;
    };
    for (key, slot) in [("id", &mut l.id), ("url", &mut l.url)] {
        let p = join(path, key);
        match o.get(key) {
            None => w.missing(&p),
            Some(v) => *slot = w.string(&p, v).unwrap_or_default(),
        }
    }
    match o.get("priority") {
        None | Some(Value::Null) => {}
        Some(v) => l.priority = w.u32(&join(path, "priority"), v),
    }
    if let Some(n) = o
        .get("weight")
        .and_then(|v| w.u32(&join(path, "weight"), v))
    {
        l.weight = n;
    }
    l
}

fn merge_host(w: &mut Walk<'_>, path: &str, v: &Value) -> MergeHost {
    let mut m = MergeHost {
        host: String::new(),
        biz: String::new(),
        path_prefix: String::new(),
        rate: 1.0,
    };
    let Some(o) = w.object(path, v) else {
        return m;
    };
    for (key, slot) in [("host", &mut m.host), ("biz", &mut m.biz)] {
        let p = join(path, key);
        match o.get(key) {
            None => w.missing(&p),
            Some(v) => *slot = w.string(&p, v).unwrap_or_default(),
        }
    }
    if let Some(s) = o
        .get("path_prefix")
        .and_then(|v| w.string(&join(path, "path_prefix"), v))
    {
        m.path_prefix = s;
    }
    if let Some(n) = o.get("rate").and_then(|v| w.number(&join(path, "rate"), v)) {
        m.rate = n;
    }
    m
}

fn provider(w: &mut Walk<'_>, path: &str, v: &Value) -> ProviderConfig {
    let mut p = ProviderConfig {
        id: String::new(),
        format: String::new(),
        url: String::new(),
    };
    let Some(o) = w.object(path, v) else {
        return p;
    };
    for (key, slot) in [
        ("id", &mut p.id),
        ("format", &mut p.format),
        ("url", &mut p.url),
    ] {
        let fp = join(path, key);
        match o.get(key) {
            None => w.missing(&fp),
            Some(v) => *slot = w.string(&fp, v).unwrap_or_default(),
        }
    }
    p
}
