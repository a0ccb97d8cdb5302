//! The JNI path: `dev.linekit.internal.NativeFast.{route, report, release, vocabulary}`,
//! the only door for the calls made on every request.
//!
//! Per-request calls skip UniFFI/JNA: arguments are primitives and `String`s, and the
//! routing answer comes back as ONE Java string
//! `"reason\nmax_retries\nbuffer_body_max_bytes\nline\nbiz\nversion_header\nversion_mismatch\nscheme\nhost\nport\nprefix\nrest_at"`
//! (reason as its code, empty fields for none, `version_mismatch` `1` or empty), which
//! costs a single allocation on each side — cheaper than an object array, and a URL built
//! by OkHttp never contains a raw newline. The limits that govern the call ride along, so
//! the call obeys the same config as its route; `max_retries` is 0 when the core's replay
//! rule ([`linekit_core::line::replay`]) forbids sending the request again. A rewritten
//! request comes back as its parts ([`linekit_core::line::router::Target`]: final scheme,
//! host, explicit port, path prefix, and where the request URL's path starts in UTF-16
//! units), so the caller applies them to the URL it already parsed instead of parsing a
//! whole final URL; all five are empty when the URL stays as it is. Excluded line ids
//! arrive joined by `\n`; the request's `X-Line-*` and idempotency-key headers arrive as
//! `name\nvalue` pairs joined by `\n` and are read by the core's one header rule
//! ([`linekit_core::line::headers::LineHeaders::parse`], first occurrence wins).
//!
//! `report` answers whether the outcome is a line fault (the core's rule), which is what
//! the interceptor's in-call failover asks. Outcome codes are positions in the core's
//! `Outcome::ALL`; `vocabulary` ([`vocabulary_text`]) hands every wire enum's names to
//! the JVM so a test can prove the generated Kotlin enums match this library.
//!
//! `handle` is a pointer from `NativeLineKit::native_handle` (`Arc::into_raw`). The Kotlin
//! wrapper guarantees no call uses it after `release` (a call counter, like UniFFI's own).
//! Every export (here and in [`crate::fast_dns`]) is declared through `jni_export!`, which
//! writes the JNI signature and runs the body under one guard: a panic is caught and
//! rethrown as `java.lang.IllegalStateException`, a zero handle throws
//! `IllegalArgumentException`.

use jni::objects::JString;
use jni::sys::{jboolean, jint, jlong, jstring, JNI_TRUE};
use jni::JNIEnv;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::headers::LineHeaders;
use linekit_core::line::router::Target;
use linekit_core::line::{replay, Outcome, Protocol, Timings};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::Arc;

/// Why a fast call failed (turned into a Java exception).
pub(crate) enum Failure {
    /// The JNI layer failed (an exception may already be pending).
    Jni(jni::errors::Error),
    /// Bad argument from the caller.
    Argument(&'static str),
}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

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
        mode: None,
    };
    let mut limits = CallLimits::of(engine);
    if !replay::replayable(method, headers.idempotency_key, one_shot_body) {
        limits.max_retries = 0;
    }
    pack_decision(&engine.route(&req), url, limits)
}

/// Maps the wire outcome code (index in [`Outcome::ALL`]) back to an outcome.
pub fn outcome_from_code(code: i32) -> Option<Outcome> {
    Outcome::from_code(code)
}

/// Bit 8 set for a line fault ([`Outcome::is_line_fault`]), the outcome's code below.
pub fn pack_verdict(outcome: Outcome, status: Option<u16>) -> jint {
    let fault = if outcome.is_line_fault(status) {
        0x100
    } else {
        0
    };
    jint::from(outcome.code()) | fault
}

/// `kind\tRustName\twire_name` lines, one per variant of every wire enum that crosses
/// into Kotlin, in code order.
pub fn vocabulary_text() -> String {
    let mut out = String::new();
    for (kind, table) in linekit_core::wire::kotlin_vocabularies() {
        for (rust, wire, _) in table {
            out.push_str(kind);
            out.push('\t');
            out.push_str(rust);
            out.push('\t');
            out.push_str(wire);
            out.push('\n');
        }
    }
    out
}

fn opt_ms(v: jlong) -> Option<u64> {
    u64::try_from(v).ok()
}

/// Releases a handle from `native_handle`.
///
/// # Safety
/// `handle` must come from `NativeLineKit::native_handle` and must not be used (nor
/// released) again afterwards.
pub unsafe fn release_handle(handle: jlong) {
    if handle != 0 {
        drop(Arc::from_raw(handle as usize as *const LineKit));
    }
}

/// Borrows the engine behind a handle.
///
/// # Safety
/// `handle` must be live (not yet released) for the duration of the borrow.
pub(crate) unsafe fn engine<'a>(handle: jlong) -> Result<&'a LineKit, Failure> {
    if handle == 0 {
        return Err(Failure::Argument("linekit: null native handle"));
    }
    Ok(&*(handle as usize as *const LineKit))
}

/// Reads a Java string; `None` for a Java null.
pub(crate) fn read<'l, 'o: 'r, 'r>(
    env: &JNIEnv<'l>,
    s: &'r JString<'o>,
) -> Result<Option<jni::strings::JavaStr<'l, 'o, 'r>>, Failure> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: the Java signature declares `String`, so the object is a java.lang.String.
    Ok(Some(unsafe { env.get_string_unchecked(s) }?))
}

pub(crate) fn text<'a>(s: &'a Option<jni::strings::JavaStr<'_, '_, '_>>) -> Option<Cow<'a, str>> {
    s.as_ref().map(|j| Cow::from(&**j))
}

/// The text of a Java string that must not be null (`what` names it in the error).
pub(crate) fn required<'a>(
    s: &'a Option<jni::strings::JavaStr<'_, '_, '_>>,
    what: &'static str,
) -> Result<Cow<'a, str>, Failure> {
    text(s).ok_or(Failure::Argument(what))
}

/// [`guarded`] with the engine behind `handle` borrowed for `f`.
pub(crate) fn with_engine<'l, R>(
    env: &mut JNIEnv<'l>,
    handle: jlong,
    default: R,
    f: impl FnOnce(&mut JNIEnv<'l>, &LineKit) -> Result<R, Failure>,
) -> R {
    guarded(env, default, |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        f(env, engine)
    })
}

/// Runs `f`, turning failures and panics into a pending Java exception plus `default`.
pub(crate) fn guarded<'l, R>(
    env: &mut JNIEnv<'l>,
    default: R,
    f: impl FnOnce(&mut JNIEnv<'l>) -> Result<R, Failure>,
) -> R {
    match catch_unwind(AssertUnwindSafe(|| f(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(failure)) => {
            raise(env, Some(failure));
            default
        }
        Err(_) => {
            raise(env, None);
            default
        }
    }
}

/// Leaves the Java exception for a failed call pending (`None`: the call panicked),
/// unless one is pending already. Not generic: one copy serves every export.
fn raise(env: &mut JNIEnv<'_>, failure: Option<Failure>) {
    let (class, msg): (&str, Cow<'_, str>) = match failure {
        Some(Failure::Argument(m)) => ("java/lang/IllegalArgumentException", m.into()),
        Some(Failure::Jni(e)) => {
            if env.exception_check().unwrap_or(false) {
                return;
            }
            (
                "java/lang/IllegalStateException",
                format!("linekit: JNI failure: {e}").into(),
            )
        }
        None => (
            "java/lang/IllegalStateException",
            "linekit: native panic in a fast-path call".into(),
        ),
    };
    if !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new(class, msg.as_ref());
    }
}

/// Declares the JNI export of a `static native` method: the `extern "system"` signature
/// (the `JNIEnv`, the unused `JClass`, then the Java arguments, whose object types borrow
/// the call's lifetime `'l`) around a body that runs under [`guarded`], or under
/// [`with_engine`] when the first Java argument is written `&engine = handle` (the
/// `long handle`, with the engine behind it borrowed as `engine`). The body answers
/// `Result<R, Failure>`; a failure or a panic leaves a Java exception pending and the
/// export returns the value after `else` (nothing for a `void` method).
macro_rules! jni_export {
    (
        $(#[$attr:meta])*
        fn $name:ident($env:ident $(, &$engine:ident = $handle:ident)? $(, $arg:ident: $ty:ty)*)
            $(-> $ret:ty, else $failed:expr)? => $body:block
    ) => {
        $(#[$attr])*
        #[no_mangle]
        pub extern "system" fn $name<'l>(
            mut env: jni::JNIEnv<'l>,
            _class: jni::objects::JClass<'l>,
            $($handle: jni::sys::jlong,)?
            $($arg: $ty),*
        ) $(-> $ret)? {
            let failed = $crate::fast::jni_export!(@failed $($failed)?);
            $crate::fast::jni_export!(@run env, failed, $env $(, $engine = $handle)?, $body)
        }
    };
    (@failed) => { () };
    (@failed $failed:expr) => { $failed };
    (@run $jni:ident, $failed:ident, $env:ident, $body:block) => {
        $crate::fast::guarded(&mut $jni, $failed, |$env| $body)
    };
    (@run $jni:ident, $failed:ident, $env:ident, $engine:ident = $handle:ident, $body:block) => {
        $crate::fast::with_engine(&mut $jni, $handle, $failed, |$env, $engine| $body)
    };
}
pub(crate) use jni_export;

jni_export! {
    /// `static native String route(long handle, String url, String method,
    /// String privateHeaders, boolean ws, boolean oneShotBody, String exclude)`.
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_route(env, &engine = handle, url: JString<'l>,
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
    /// `static native int report(long handle, String biz, String line, boolean ws,
    /// int outcome, int status, long costMs, long dnsMs, long connectMs, long tlsMs,
    /// long ttfbMs, String version)`; negative numbers mean "none", `version` is the
    /// response's `version_header` value (or null). `outcome` is the outcome's code, or -1
    /// for "a response arrived with `status`" (the core maps the status). Answers
    /// [`pack_verdict`]: the outcome recorded and whether it is a line fault.
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_report(env, &engine = handle, biz: JString<'l>,
        line: JString<'l>, ws: jboolean, outcome: jint, status: jint, cost_ms: jlong,
        dns_ms: jlong, connect_ms: jlong, tls_ms: jlong, ttfb_ms: jlong,
        version: JString<'l>) -> jint, else -1 => {
        let status = u16::try_from(status).ok();
        let outcome = match (outcome, status) {
            (-1, Some(s)) => Outcome::from_status(s),
            (code, _) => {
                outcome_from_code(code).ok_or(Failure::Argument("linekit: unknown outcome"))?
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

jni_export! {
    /// `static native String vocabulary()`: see [`vocabulary_text`].
    fn Java_dev_linekit_internal_NativeFast_vocabulary(env) -> jstring, else null_mut() => {
        Ok(env.new_string(vocabulary_text())?.into_raw())
    }
}

jni_export! {
    /// `static native void release(long handle)`: drops the reference taken by
    /// `native_handle`. Must be called exactly once per handle, after its last use.
    fn Java_dev_linekit_internal_NativeFast_release(_env, handle: jlong) => {
        // SAFETY: the Kotlin wrapper calls this once, after the last use of the handle.
        unsafe { release_handle(handle) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::trace::Reason;

    const LIMITS: CallLimits = CallLimits {
        max_retries: 2,
        buffer_body_max_bytes: 1024,
    };

    #[test]
    fn decision_packs_reason_code_limits_fields_and_the_target_parts() {
        let url = "https://api.example/p?q=1";
        let d = linekit_core::engine::RouteDecision {
            biz: Some("spot".into()),
            protocol: Protocol::Http,
            line: Some("ali".into()),
            reason: Reason::Sticky,
            version_mismatch: true,
            version_header: Some("X-Deployment-Version".into()),
            target: Some(Target {
                scheme: linekit_core::line::Scheme::Http,
                host: "h".into(),
                port: Some(1),
                path_prefix: Some("/v1".into()),
                rest_at: 19,
            }),
            mode: linekit_core::line::rollout::RolloutMode::On,
            would: None,
        };
        assert_eq!(d.url(url), "http://h:1/v1/p?q=1");
        let sticky = Reason::Sticky.code();
        assert_eq!(
            pack_decision(&d, url, LIMITS),
            format!("{sticky}\n2\n1024\nali\nspot\nX-Deployment-Version\n1\nhttp\nh\n1\n/v1\n19")
        );
        // An IPv6 line behind a prefix, for a request URL whose rest has no path: the same
        // answer and final URL as LineKitApiTest's "route answers unpack" expects of Kotlin.
        let url = "https://api.test?q=1";
        let d = linekit_core::engine::RouteDecision {
            target: Some(Target {
                scheme: linekit_core::line::Scheme::Https,
                host: "::1".into(),
                port: Some(8443),
                path_prefix: Some("/v1".into()),
                rest_at: 16,
            }),
            ..d
        };
        assert_eq!(d.url(url), "https://[::1]:8443/v1/?q=1");
        assert_eq!(
            pack_decision(&d, url, LIMITS),
            format!(
                "{sticky}\n2\n1024\nali\nspot\nX-Deployment-Version\n1\nhttps\n::1\n8443\n/v1\n16"
            )
        );
        let d = linekit_core::engine::RouteDecision {
            biz: None,
            protocol: Protocol::Http,
            line: None,
            reason: Reason::Unmanaged,
            version_mismatch: false,
            version_header: None,
            target: None,
            mode: linekit_core::line::rollout::RolloutMode::On,
            would: None,
        };
        let unmanaged = Reason::Unmanaged.code();
        assert_eq!(
            pack_decision(&d, "http://x/", LIMITS),
            format!("{unmanaged}\n2\n1024\n\n\n\n\n\n\n\n\n")
        );
    }

    #[test]
    fn rest_at_counts_java_string_units() {
        let url = "https://bücher.example/ü";
        let t = Target {
            scheme: linekit_core::line::Scheme::Https,
            host: "h".into(),
            port: None,
            path_prefix: None,
            rest_at: url.find("/ü").unwrap(),
        };
        let mut s = String::new();
        push_target(&mut s, &t, url);
        assert_eq!(t.rest_at, 23, "bytes: ü is two");
        assert_eq!(s, "https\nh\n\n\n22", "UTF-16 units: ü is one");
    }

    #[test]
    fn verdicts_carry_the_outcome_and_the_core_line_fault_rule() {
        let v = pack_verdict(Outcome::from_status(503), Some(503));
        assert_eq!(v & 0xff, i32::from(Outcome::Http5xx.code()));
        assert_ne!(v & 0x100, 0);
        assert_eq!(pack_verdict(Outcome::Http5xx, Some(500)) & 0x100, 0);
        assert_ne!(pack_verdict(Outcome::ConnectionReset, None) & 0x100, 0);
        assert_eq!(pack_verdict(Outcome::Cancelled, None) & 0x100, 0);
    }

    #[test]
    fn decimals_are_written_in_full() {
        for n in [0u64, 7, 10, 262_144, u64::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    #[test]
    fn outcome_codes_are_positions_in_the_core_list() {
        for (i, o) in Outcome::ALL.iter().enumerate() {
            assert_eq!(outcome_from_code(i as i32), Some(*o));
        }
        assert_eq!(outcome_from_code(Outcome::ALL.len() as i32), None);
        assert_eq!(outcome_from_code(-1), None);
    }

    const CONFIG: &str = r#"{"version":1,"allow_cleartext":true,
        "thresholds":{"max_retries":2,"buffer_body_max_bytes":4096},
        "biz_lines":{"spot":{"match":["api.linekit.test"],
        "http":[{"id":"a","url":"http://127.0.0.1:1"}]},
        "cdn":{"match":["cdn.linekit.test"],"http":[{"id":"c","url":"http://127.0.0.1:2"}]}}}"#;

    fn test_engine() -> LineKit {
        linekit_core::engine::LineKitBuilder::new()
            .config_json(CONFIG)
            .build()
            .expect("valid config")
    }

    /// The fields of an HTTP route answer for a request on the test engine.
    fn route_fields(url: &str, method: &str, headers: Option<&str>, one_shot: bool) -> Vec<String> {
        let packed = route_packed(
            &test_engine(),
            url,
            method,
            headers,
            false,
            one_shot,
            Some("x\ny"),
        );
        packed.split('\n').map(str::to_string).collect()
    }

    #[test]
    fn route_packed_goes_through_the_engine_with_the_config_limits() {
        let fields = route_fields("http://other.test/a", "GET", None, false);
        assert_eq!(fields.len(), 12, "{fields:?}");
        assert_eq!(fields[0], Reason::Unmanaged.code().to_string());
        assert_eq!((&*fields[1], &*fields[2]), ("2", "4096"));
        assert!(
            fields[7..].iter().all(String::is_empty),
            "unchanged: no parts"
        );
        let fields = route_fields("http://api.linekit.test/a?b", "GET", None, false);
        assert_eq!(fields[3], "a");
        assert_eq!(&fields[7..], ["http", "127.0.0.1", "1", "", "23"]);
    }

    #[test]
    fn the_core_replay_rule_sets_the_retries_of_the_answer() {
        let retries = |method, headers, one_shot| {
            route_fields("http://api.linekit.test/a", method, headers, one_shot)[1].clone()
        };
        assert_eq!(retries("GET", None, false), "2");
        assert_eq!(retries("PUT", None, false), "2");
        assert_eq!(
            retries("POST", None, false),
            "0",
            "an unkeyed POST is never replayed"
        );
        assert_eq!(retries("POST", Some("Idempotency-Key\nk1"), false), "2");
        assert_eq!(retries("POST", Some("x-transaction-id\nt"), false), "2");
        assert_eq!(
            retries("GET", None, true),
            "0",
            "a one-shot body cannot be sent twice"
        );
        assert_eq!(retries("POST", Some("Idempotency-Key\nk1"), true), "0");
    }

    #[test]
    fn private_headers_are_read_by_the_core_rule_first_occurrence_wins() {
        let fields = route_fields(
            "http://other.test/a",
            "GET",
            Some("x-line-biz\n cdn \nX-Line-Biz\nspot\nX-Line-Debug\n1"),
            false,
        );
        assert_eq!((&*fields[3], &*fields[4]), ("c", "cdn"), "{fields:?}");
        let fields = route_fields(
            "http://api.linekit.test/a",
            "GET",
            Some("X-Line-Keep-Original-Host\nTRUE"),
            false,
        );
        assert_eq!(fields[0], Reason::KeepOriginal.code().to_string());
        assert_eq!(header_pairs(Some("a\n1\ndangling")), vec![("a", "1")]);
        assert!(header_pairs(Some("")).is_empty());
    }

    #[test]
    fn vocabulary_lists_every_wire_enum_in_code_order() {
        let text = vocabulary_text();
        let outcomes: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("outcome\t"))
            .collect();
        assert_eq!(outcomes.len(), Outcome::ALL.len());
        assert_eq!(outcomes[0], "Ok\tok");
        for kind in ["connect_error", "reason", "close_cause", "private_dns"] {
            assert!(text.lines().any(|l| l.starts_with(kind)), "{kind}");
        }
    }

    #[test]
    fn null_handle_is_rejected() {
        // SAFETY: a zero handle is never dereferenced.
        assert!(matches!(unsafe { engine(0) }, Err(Failure::Argument(_))));
        // SAFETY: releasing zero is a no-op.
        unsafe { release_handle(0) };
    }
}
