//! TEMPORARY, for one JMH run side by side: the packed-string route answer and the
//! string report of the previous JNI path, so the records path can be measured against
//! it in the same run. Removed again right after the measurement.

use crate::fast::{jni_export, read, required, text, Failure};
use jni::objects::JString;
use jni::sys::{jboolean, jint, jlong, jstring, JNI_TRUE};
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::headers::LineHeaders;
use linekit_core::line::router::Target;
use linekit_core::line::{replay, Outcome, Protocol, Timings};
use std::ptr::null_mut;

/// The per-call limits sent with every decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// `thresholds.max_retries`.
    pub max_retries: u32,
    /// `thresholds.buffer_body_max_bytes`.
    pub buffer_body_max_bytes: u64,
}

impl CallLimits {
    /// The limits of the config in force.
    pub fn of(engine: &LineKit) -> Self {
        let config = engine.config();
        CallLimits {
            max_retries: config.thresholds.max_retries,
            buffer_body_max_bytes: config.thresholds.buffer_body_max_bytes,
        }
    }
}

/// Appends `n` in decimal (the formatting machinery costs more than the rest of a route
/// answer).
fn push_decimal(s: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

/// Packs a decision for the request URL `url` as
/// `reason\nmax_retries\nbuffer_body_max_bytes\nline\nbiz\nversion_header\nversion_mismatch\nscheme\nhost\nport\nprefix\nrest_at`.
pub fn pack_decision(
    d: &linekit_core::engine::RouteDecision,
    url: &str,
    limits: CallLimits,
) -> String {
    let line = d.line.as_deref().unwrap_or("");
    let biz = d.biz.as_deref().unwrap_or("");
    let header = d.version_header.as_deref().unwrap_or("");
    let mut s = String::with_capacity(line.len() + biz.len() + header.len() + 96);
    push_decimal(&mut s, u64::from(d.reason.code()));
    s.push('\n');
    push_decimal(&mut s, u64::from(limits.max_retries));
    s.push('\n');
    push_decimal(&mut s, limits.buffer_body_max_bytes);
    s.push('\n');
    s.push_str(line);
    s.push('\n');
    s.push_str(biz);
    s.push('\n');
    s.push_str(header);
    s.push('\n');
    if d.version_mismatch {
        s.push('1');
    }
    s.push('\n');
    match &d.target {
        Some(t) => push_target(&mut s, t, url),
        None => s.push_str("\n\n\n\n"),
    }
    s
}

/// Appends `scheme\nhost\nport\nprefix\nrest_at`, `rest_at` counted in UTF-16 units
/// (Java string indices) of `url`.
fn push_target(s: &mut String, t: &Target, url: &str) {
    s.push_str(t.scheme.as_str());
    s.push('\n');
    s.push_str(&t.host);
    s.push('\n');
    if let Some(port) = t.port {
        push_decimal(s, u64::from(port));
    }
    s.push('\n');
    s.push_str(t.path_prefix.as_deref().unwrap_or(""));
    s.push('\n');
    let head = url.get(..t.rest_at).unwrap_or(url);
    let units = if head.is_ascii() {
        head.len()
    } else {
        head.encode_utf16().count()
    };
    push_decimal(s, units as u64);
}

/// Splits `name\nvalue\nname\nvalue…` into pairs (a trailing name without value is
/// dropped).
fn header_pairs(joined: Option<&str>) -> Vec<(&str, &str)> {
    let Some(joined) = joined.filter(|j| !j.is_empty()) else {
        return Vec::new();
    };
    let mut parts = joined.split('\n');
    let mut out = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        out.push((name, value));
    }
    out
}

/// Routes with already-decoded arguments and packs the answer (the JNI-free half of
/// `route`, shared with tests). `private_headers` holds the request's `X-Line-*` and
/// idempotency-key headers as `name\nvalue` pairs; `one_shot_body` says the request body
/// cannot be written twice.
pub fn route_packed(
    engine: &LineKit,
    url: &str,
    method: &str,
    private_headers: Option<&str>,
    ws: bool,
    one_shot_body: bool,
    exclude: Option<&str>,
) -> String {
    let ids: Vec<&str> = match exclude {
        Some(joined) if !joined.is_empty() => joined.split('\n').collect(),
        _ => Vec::new(),
    };
    let pairs = header_pairs(private_headers);
    let headers = LineHeaders::parse(&pairs);
    let req = RouteRequest {
        url,
        method,
        biz: headers.biz,
        keep_original: headers.keep_original,
        fixed_host: headers.fixed_host,
        protocol: if ws { Protocol::Ws } else { Protocol::Http },
        exclude: &ids,
    };
    let mut limits = CallLimits::of(engine);
    if !replay::replayable(method, headers.idempotency_key, one_shot_body) {
        limits.max_retries = 0;
    }
    pack_decision(&engine.route(&req), url, limits)
}

fn opt_ms(v: jlong) -> Option<u64> {
    u64::try_from(v).ok()
}

fn pack_verdict(outcome: Outcome, status: Option<u16>) -> jint {
    let fault = if outcome.is_line_fault(status) {
        0x100
    } else {
        0
    };
    jint::from(outcome.code()) | fault
}

jni_export! {
    /// The previous `route` (packed string answer).
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_routePacked(env, &engine = handle, url: JString<'l>,
        method: JString<'l>, private_headers: JString<'l>, ws: jboolean,
        one_shot_body: jboolean, exclude: JString<'l>) -> jstring, else null_mut() => {
        let (u, m) = (read(env, &url)?, read(env, &method)?);
        let (h, x) = (read(env, &private_headers)?, read(env, &exclude)?);
        const NULL: &str = "linekit: url and method must not be null";
        let packed = route_packed(
            engine,
            &required(&u, NULL)?,
            &required(&m, NULL)?,
            text(&h).as_deref(),
            ws == JNI_TRUE,
            one_shot_body == JNI_TRUE,
            text(&x).as_deref(),
        );
        Ok(env.new_string(packed)?.into_raw())
    }
}

jni_export! {
    /// The previous `report` (strings for the business line and the line).
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_reportStrings(env, &engine = handle, biz: JString<'l>,
        line: JString<'l>, ws: jboolean, outcome: jint, status: jint, cost_ms: jlong,
        dns_ms: jlong, connect_ms: jlong, tls_ms: jlong, ttfb_ms: jlong,
        version: JString<'l>) -> jint, else -1 => {
        let status = u16::try_from(status).ok();
        let outcome = match (outcome, status) {
            (-1, Some(s)) => Outcome::from_status(s),
            (code, _) => {
                Outcome::from_code(code).ok_or(Failure::Argument("linekit: unknown outcome"))?
            }
        };
        let (b, l, v) = (read(env, &biz)?, read(env, &line)?, read(env, &version)?);
        let (b, l, v) = (text(&b), text(&l), text(&v));
        engine.report(&Report {
            biz: b.as_deref().filter(|s| !s.is_empty()),
            protocol: if ws == JNI_TRUE {
                Protocol::Ws
            } else {
                Protocol::Http
            },
            line: l.as_deref().filter(|s| !s.is_empty()),
            host: None,
            outcome,
            status,
            cost_ms: opt_ms(cost_ms).unwrap_or(0),
            timings: Timings {
                dns_ms: opt_ms(dns_ms),
                connect_ms: opt_ms(connect_ms),
                tls_ms: opt_ms(tls_ms),
                ttfb_ms: opt_ms(ttfb_ms),
            },
            version: v.as_deref(),
        });
        Ok(pack_verdict(outcome, status))
    }
}
