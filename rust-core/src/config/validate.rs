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
//! When nothing was found, that typed copy *is* the config (providers this build cannot
//! use removed): one decoder per document. The walk starts every record from the model's
//! own defaults (`Default` impls and the serde default functions), and a test round-trips a
//! config with every field set through serde's `Serialize` and back through the walk, so the
//! walk reads every field the model has. (A second, serde-derived decode of the same value
//! used to run here; dropping it keeps its code out of the shipped library.) [`validate`]
//! runs step 3 alone on a config built in code. Unknown fields are ignored (forward
//! compatibility).

use super::model::{
    default_rate, default_weight, BizLine, Config, LineConfig, MergeHost, ProviderConfig, Rollout,
    RolloutMode, ServeStaleConfig, VersionPolicy,
};
use super::provider_auth::{AuthKind, ProviderAuth, Secret, DEFAULT_SIGN_VALIDITY_S};
use super::rules::{self, biz_path, Findings};
use crate::dns::providers::ProviderFormat;
use crate::error::{Error, FieldError, Result};
use crate::wire::WireEnum;
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
    let (config, warnings) = parse_config_with_warnings_value(value)?;
    for w in &warnings {
        log::warn!("linekit: config: {w}");
    }
    Ok(config)
}

/// [`parse_config`] that also returns the warnings: parts this build cannot use (a
/// provider with an unknown `format` or `auth.kind`, or `doh-wire` without its feature)
/// are dropped, each with a warning naming its path, and the rest of the config applies.
pub fn parse_config_with_warnings(text: &str) -> Result<(Config, Vec<FieldError>)> {
    if text.len() > MAX_CONFIG_BYTES {
        return parse_config(text).map(|c| (c, Vec::new()));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| invalid("", format!("not valid JSON: {e}")))?;
    parse_config_with_warnings_value(value)
}

fn parse_config_with_warnings_value(value: Value) -> Result<(Config, Vec<FieldError>)> {
    let mut findings = Findings::default();
    let mut config = document(&value, &mut findings);
    rules::check(&config, &mut findings);
    let warnings = findings.warnings().to_vec();
    let errors = findings.into_errors();
    if !errors.is_empty() {
        return Err(Error::InvalidConfig(errors));
    }
    drop_unsupported_providers(&value, &mut config);
    Ok((config, warnings))
}

/// Why this build cannot use the provider `v`, if it cannot (it is then dropped).
fn unsupported_provider(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    if let Some(format) = o.get("format").and_then(Value::as_str) {
        if format.parse::<ProviderFormat>().is_err() {
            return Some(format!(
                "provider dropped: unknown format (this build knows {})",
                ProviderFormat::names().join(", ")
            ));
        }
        if format == "doh-wire" && !cfg!(feature = "doh-wire") {
            return Some(
                "provider dropped: this build lacks the `doh-wire` cargo feature".to_string(),
            );
        }
    }
    let kind = o.get("auth")?.as_object()?.get("kind")?.as_str()?;
    if kind.parse::<AuthKind>().is_err() {
        return Some(format!(
            "provider dropped: unknown auth kind (this build knows {})",
            AuthKind::names().join(", ")
        ));
    }
    None
}

/// Removes the placeholders the walk kept (one per item of `httpdns.providers`, so rule
/// findings name the document's own indices) for providers this build cannot use.
fn drop_unsupported_providers(value: &Value, config: &mut Config) {
    if let Some(items) = value
        .get("httpdns")
        .and_then(|h| h.get("providers"))
        .and_then(Value::as_array)
    {
        let mut usable = items.iter().map(|p| unsupported_provider(p).is_none());
        config
            .httpdns
            .providers
            .retain(|_| usable.next().unwrap_or(true));
    }
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

/// A config field [`Walk::fields`] fills, by the JSON type it takes.
enum Slot<'c> {
    U64(&'c mut u64),
    U32(&'c mut u32),
    Number(&'c mut f64),
    Text(&'c mut String),
    Texts(&'c mut Vec<String>),
}

impl Slot<'_> {
    /// Reads `v` (at `path`) into the slot; a malformed value is a finding and leaves the
    /// slot as it was.
    fn fill(self, w: &mut Walk<'_>, path: &str, v: &Value) {
        fn put<T>(slot: &mut T, v: Option<T>) {
            if let Some(v) = v {
                *slot = v;
            }
        }
        match self {
            Slot::U64(s) => put(s, w.u64(path, v)),
            Slot::U32(s) => put(s, w.u32(path, v)),
            Slot::Number(s) => put(s, w.number(path, v)),
            Slot::Text(s) => put(s, w.string(path, v)),
            Slot::Texts(s) => put(s, w.strings(path, v)),
        }
    }
}

/// The slots of fields of `$s` whose JSON key is their Rust name, grouped by [`Slot`] kind:
/// `slots!(th => U64 { timeout_ms, window_ms }, U32 { max_retries })`.
macro_rules! slots {
    ($s:ident => $($kind:ident { $($field:ident),+ $(,)? }),+ $(,)?) => {
        [$($((stringify!($field), Slot::$kind(&mut $s.$field))),+),+]
    };
}

/// Whether a group of fields must be present.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Presence {
    Optional,
    Required,
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

    /// Fields of the object `o` at `path`: each key present sets its slot (see
    /// [`Slot::fill`]); an absent key keeps the slot's default, and is a finding when the
    /// fields are [`Presence::Required`].
    fn fields<const N: usize>(
        &mut self,
        o: &Map<String, Value>,
        path: &str,
        presence: Presence,
        slots: [(&str, Slot<'_>); N],
    ) {
        for (key, slot) in slots {
            let p = join(path, key);
            match o.get(key) {
                Some(v) => slot.fill(self, &p, v),
                None if presence == Presence::Required => self.missing(&p),
                None => {}
            }
        }
    }

    /// A list of strings; malformed items become `""` placeholders (indices are kept).
    fn strings(&mut self, path: &str, v: &Value) -> Option<Vec<String>> {
        self.each(path, v, |w, item_path, item| match item.as_str() {
            Some(s) => s.to_string(),
            None => {
                w.expected(item_path, "a string", item);
                String::new()
            }
        })
    }

    /// The array `v` at `path`, each item turned into a `T` by `item`, which gets the
    /// item's own path (`path[i]`).
    fn each<T>(
        &mut self,
        path: &str,
        v: &Value,
        mut item: impl FnMut(&mut Self, &str, &Value) -> T,
    ) -> Option<Vec<T>> {
        let items = self.array(path, v)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            out.push(item(self, &format!("{path}[{i}]"), v));
        }
        Some(out)
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
        let fields = slots!(th =>
            U64 {
                timeout_ms, slow_request_ms, detect_cooldown_ms, switch_interval_ms, window_ms,
                open_cooldown_ms, revive_interval_ms, detect_jitter_ms, startup_detect_delay_ms,
                ws_stable_ms, buffer_body_max_bytes, slow_switch_ms, urgent_jitter_ms,
                read_fault_hold_ms,
            },
            U32 { failure_threshold, max_retries, probe_budget_per_min, slow_switch_count },
        );
        w.fields(t, "thresholds", Presence::Optional, fields);
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
    if let Some(list) = root
        .get("merge_hosts")
        .and_then(|v| w.each("merge_hosts", v, merge_host))
    {
        c.merge_hosts = list;
    }
    if let Some(h) = root.get("httpdns").and_then(|v| w.object("httpdns", v)) {
        let d = &mut c.httpdns;
        let providers = h.get("providers").and_then(|v| {
            w.each(
                "httpdns.providers",
                v,
                |w, path, v| match unsupported_provider(v) {
                    Some(why) => {
                        w.f.warning(path, why);
                        placeholder_provider()
                    }
                    None => provider(w, path, v),
                },
            )
        });
        if let Some(list) = providers {
            d.providers = list;
        }
        let lists = slots!(d => Texts { hosts, pre_resolve, allow_private });
        w.fields(h, "httpdns", Presence::Optional, lists);
        if let Some(v) = h.get("serve_stale") {
            d.serve_stale = serve_stale(&mut w, v);
        }
        if let Some(o) = h
            .get("bootstrap")
            .and_then(|v| w.object("httpdns.bootstrap", v))
        {
            for (host, v) in o {
                let path = format!("httpdns.bootstrap[{}]", Value::String(host.clone()));
                if let Some(list) = w.strings(&path, v) {
                    d.bootstrap.insert(host.clone(), list);
                }
            }
        }
        let numbers = slots!(d =>
            Number { refresh_ratio, jitter_ratio },
            U64 { min_ttl_s, max_ttl_s },
        );
        w.fields(h, "httpdns", Presence::Optional, numbers);
    }
    if let Some(t) = root.get("trace").and_then(|v| w.object("trace", v)) {
        let trace = &mut c.trace;
        let fields = slots!(trace => Number { sample_rate }, U64 { window_ms });
        w.fields(t, "trace", Presence::Optional, fields);
    }
    if let Some(r) = root
        .get("rollout")
        .and_then(|v| rollout(&mut w, "rollout", v))
    {
        c.rollout = r;
    }
    remote_and_trust(&mut w, root, &mut c);
    c
}

/// A `rollout` object at `path`: `mode` and `others` (`off`, `observe` or `on`) and
/// `percent`; absent fields keep [`Rollout`]'s defaults.
fn rollout(w: &mut Walk<'_>, path: &str, v: &Value) -> Option<Rollout> {
    let o = w.object(path, v)?;
    let mut r = Rollout::default();
    for (key, slot) in [("mode", &mut r.mode), ("others", &mut r.others)] {
        let p = join(path, key);
        if let Some(s) = o.get(key).and_then(|v| w.string(&p, v)) {
            match s.parse::<RolloutMode>() {
                Ok(mode) => *slot = mode,
                Err(_) => w.f.structural(&p, "must be off, observe or on"),
            }
        }
    }
    w.fields(o, path, Presence::Optional, slots!(r => U32 { percent }));
    Some(r)
}

fn biz_line(w: &mut Walk<'_>, path: &str, v: &Value) -> BizLine {
    let mut b = BizLine::default();
    let Some(o) = w.object(path, v) else {
        return b;
    };
    w.fields(
        o,
        path,
        Presence::Optional,
        [("match", Slot::Texts(&mut b.match_hosts))],
    );
    w.fields(
        o,
        path,
        Presence::Optional,
        slots!(b => Text { detect_path, detect_method }),
    );
    version_guard(w, path, o, &mut b);
    if let Some(v) = o.get("rollout") {
        b.rollout = rollout(w, &join(path, "rollout"), v);
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
        if let Some(lines) = o.get(pool).and_then(|v| w.each(&pool_path, v, line)) {
            if lines.is_empty() {
                w.f.structural(
                    &pool_path,
                    "empty pool: list at least one line or omit the field",
                );
            }
            *slot = lines;
        }
    }
    b
}

/// The version guard fields of a business line: `version_header` (a string) and
/// `version_policy` (`strict` or `report`).
fn version_guard(w: &mut Walk<'_>, path: &str, o: &Map<String, Value>, b: &mut BizLine) {
    if let Some(s) = o
        .get("version_header")
        .and_then(|v| w.string(&join(path, "version_header"), v))
    {
        b.version_header = Some(s);
    }
    let policy_path = join(path, "version_policy");
    if let Some(s) = o
        .get("version_policy")
        .and_then(|v| w.string(&policy_path, v))
    {
        match s.as_str() {
            "strict" => b.version_policy = VersionPolicy::Strict,
            "report" => b.version_policy = VersionPolicy::Report,
            _ => w.f.structural(&policy_path, "must be strict or report"),
        }
    }
}

fn line(w: &mut Walk<'_>, path: &str, v: &Value) -> LineConfig {
    let mut l = LineConfig {
        id: String::new(),
        url: String::new(),
        priority: None,
        weight: default_weight(),
    };
    let Some(o) = w.object(path, v) else {
        return l;
    };
    w.fields(o, path, Presence::Required, slots!(l => Text { id, url }));
    match o.get("priority") {
        None | Some(Value::Null) => {}
        Some(v) => l.priority = w.u32(&join(path, "priority"), v),
    }
    w.fields(o, path, Presence::Optional, slots!(l => U32 { weight }));
    l
}

fn merge_host(w: &mut Walk<'_>, path: &str, v: &Value) -> MergeHost {
    let mut m = MergeHost {
        host: String::new(),
        biz: String::new(),
        path_prefix: String::new(),
        rate: default_rate(),
    };
    let Some(o) = w.object(path, v) else {
        return m;
    };
    w.fields(o, path, Presence::Required, slots!(m => Text { host, biz }));
    w.fields(
        o,
        path,
        Presence::Optional,
        slots!(m => Text { path_prefix }, Number { rate }),
    );
    m
}

fn placeholder_provider() -> ProviderConfig {
    ProviderConfig {
        id: String::new(),
        format: String::new(),
        url: String::new(),
        auth: None,
    }
}

fn serve_stale(w: &mut Walk<'_>, v: &Value) -> Option<ServeStaleConfig> {
    let path = "httpdns.serve_stale";
    let o = w.object(path, v)?;
    let mut s = ServeStaleConfig::default();
    match o.get("hosts") {
        None => w.missing(&join(path, "hosts")),
        Some(v) => s.hosts = w.strings(&join(path, "hosts"), v).unwrap_or_default(),
    }
    match o.get("max_stale_s") {
        None => w.missing(&join(path, "max_stale_s")),
        Some(v) => s.max_stale_s = w.u64(&join(path, "max_stale_s"), v).unwrap_or(1),
    }
    Some(s)
}

/// The lenient copy of a known `auth` kind (unknown kinds never get here).
fn provider_auth(w: &mut Walk<'_>, path: &str, v: &Value) -> Option<ProviderAuth> {
    let o = w.object(path, v)?;
    let kind_path = join(path, "kind");
    let kind = match o.get("kind") {
        None => {
            w.missing(&kind_path);
            return None;
        }
        Some(v) => w.string(&kind_path, v)?,
    };
    let text = |w: &mut Walk<'_>, key: &str| -> String {
        let p = join(path, key);
        match o.get(key) {
            None => {
                w.missing(&p);
                String::new()
            }
            Some(v) => w.string(&p, v).unwrap_or_default(),
        }
    };
    Some(match kind.parse::<AuthKind>().ok()? {
        AuthKind::AliyunSign => {
            let secret = Secret::new(text(w, "secret"));
            let validity_s = match o.get("validity_s") {
                None => DEFAULT_SIGN_VALIDITY_S,
                Some(v) => w
                    .u64(&join(path, "validity_s"), v)
                    .unwrap_or(DEFAULT_SIGN_VALIDITY_S),
            };
            ProviderAuth::AliyunSign { secret, validity_s }
        }
        AuthKind::DnspodDes => ProviderAuth::DnspodDes {
            id: text(w, "id"),
            key: Secret::new(text(w, "key")),
        },
        AuthKind::DnspodAes => ProviderAuth::DnspodAes {
            id: text(w, "id"),
            key: Secret::new(text(w, "key")),
        },
        AuthKind::DnspodHttps => ProviderAuth::DnspodHttps {
            token: Secret::new(text(w, "token")),
        },
    })
}

fn provider(w: &mut Walk<'_>, path: &str, v: &Value) -> ProviderConfig {
    let mut p = placeholder_provider();
    let Some(o) = w.object(path, v) else {
        return p;
    };
    w.fields(
        o,
        path,
        Presence::Required,
        slots!(p => Text { id, format, url }),
    );
    if let Some(v) = o.get("auth") {
        p.auth = provider_auth(w, &join(path, "auth"), v);
    }
    p
}

/// The remote-channel fields: `remote`, `trust` and `expires_at`.
fn remote_and_trust(w: &mut Walk<'_>, root: &Map<String, Value>, c: &mut Config) {
    use super::remote::RemoteConfig;
    use super::trust::{TrustConfig, TrustKey};
    if let Some(v) = root.get("expires_at") {
        c.expires_at = w.u64("expires_at", v);
    }
    if let Some(r) = root.get("remote").and_then(|v| w.object("remote", v)) {
        let mut remote = RemoteConfig::default();
        let fields = slots!(remote =>
            Texts { urls },
            U64 { interval_s, jitter_s, timeout_ms },
        );
        w.fields(r, "remote", Presence::Optional, fields);
        c.remote = Some(remote);
    }
    if let Some(t) = root.get("trust").and_then(|v| w.object("trust", v)) {
        let mut trust = TrustConfig::default();
        w.fields(
            t,
            "trust",
            Presence::Optional,
            slots!(trust => U32 { threshold }),
        );
        let keys = t.get("keys").and_then(|v| {
            w.each("trust.keys", v, |w, path, v| {
                let mut key = TrustKey {
                    id: String::new(),
                    ed25519: String::new(),
                };
                if let Some(o) = w.object(path, v) {
                    w.fields(
                        o,
                        path,
                        Presence::Required,
                        slots!(key => Text { id, ed25519 }),
                    );
                }
                key
            })
        });
        if let Some(keys) = keys {
            trust.keys = keys;
        }
        c.trust = Some(trust);
    }
}
