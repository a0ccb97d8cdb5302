//! The JNI fast path: `dev.linekit.internal.NativeFast.{route, report, maxRetries, release}`.
//!
//! Per-request calls skip UniFFI/JNA: arguments are primitives and `String`s, and the
//! routing answer comes back as ONE Java string
//! `"reason\nline\nbiz\nversion_header\nversion_mismatch\nurl"` (empty fields for none,
//! `version_mismatch` is `1` or empty), which costs a single allocation on each side — cheaper than an object array
//! of four strings, and a URL built by OkHttp never contains a raw newline. Excluded line
//! ids arrive joined by `\n`.
//!
//! `handle` is a pointer from `NativeLineKit::native_handle` (`Arc::into_raw`). The Kotlin
//! wrapper guarantees no call uses it after `release` (a call counter, like UniFFI's own).
//! Every export catches panics and rethrows them as `java.lang.IllegalStateException`;
//! a zero handle throws `IllegalArgumentException`.

use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jint, jlong, jstring, JNI_TRUE};
use jni::JNIEnv;
use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::{Outcome, Protocol};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
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

/// Packs a decision as `reason\nline\nbiz\nversion_header\nversion_mismatch\nurl`.
pub fn pack_decision(d: &linekit_core::engine::RouteDecision) -> String {
    let line = d.line.as_deref().unwrap_or("");
    let biz = d.biz.as_deref().unwrap_or("");
    let reason = d.reason.as_str();
    let header = d.version_header.as_deref().unwrap_or("");
    let mismatch = if d.version_mismatch { "1" } else { "" };
    let mut s = String::with_capacity(
        reason.len() + line.len() + biz.len() + header.len() + d.url.len() + 6,
    );
    for field in [reason, line, biz, header, mismatch] {
        s.push_str(field);
        s.push('\n');
    }
    s.push_str(&d.url);
    s
}

/// Routes with already-decoded arguments and packs the answer (the JNI-free half of
/// `route`, shared with tests).
#[allow(clippy::too_many_arguments)]
pub fn route_packed(
    engine: &LineKit,
    url: &str,
    method: &str,
    biz: Option<&str>,
    keep_original: bool,
    fixed_host: Option<&str>,
    ws: bool,
    exclude: Option<&str>,
) -> String {
    let ids: Vec<&str> = match exclude {
        Some(joined) if !joined.is_empty() => joined.split('\n').collect(),
        _ => Vec::new(),
    };
    let req = RouteRequest {
        url,
        method,
        biz: biz.filter(|b| !b.is_empty()),
        keep_original,
        fixed_host,
        protocol: if ws { Protocol::Ws } else { Protocol::Http },
        exclude: &ids,
    };
    pack_decision(&engine.route(&req))
}

/// Maps the wire outcome code (index in [`Outcome::ALL`]) back to an outcome.
pub fn outcome_from_code(code: i32) -> Option<Outcome> {
    usize::try_from(code)
        .ok()
        .and_then(|i| Outcome::ALL.get(i).copied())
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

/// Runs `f`, turning failures and panics into a pending Java exception plus `default`.
pub(crate) fn guarded<'l, R>(
    env: &mut JNIEnv<'l>,
    default: R,
    f: impl FnOnce(&mut JNIEnv<'l>) -> Result<R, Failure>,
) -> R {
    let result = catch_unwind(AssertUnwindSafe(|| f(env)));
    let (class, msg): (&str, Cow<'_, str>) = match result {
        Ok(Ok(v)) => return v,
        Ok(Err(Failure::Argument(m))) => ("java/lang/IllegalArgumentException", m.into()),
        Ok(Err(Failure::Jni(e))) => {
            if env.exception_check().unwrap_or(false) {
                return default;
            }
            (
                "java/lang/IllegalStateException",
                format!("linekit: JNI failure: {e}").into(),
            )
        }
        Err(_) => (
            "java/lang/IllegalStateException",
            "linekit: native panic in a fast-path call".into(),
        ),
    };
    if !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new(class, msg.as_ref());
    }
    default
}

/// `static native String route(long handle, String url, String method, String biz,
/// boolean keepOriginal, String fixedHost, boolean ws, String exclude)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_linekit_internal_NativeFast_route<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    url: JString<'l>,
    method: JString<'l>,
    biz: JString<'l>,
    keep_original: jboolean,
    fixed_host: JString<'l>,
    ws: jboolean,
    exclude: JString<'l>,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let (u, m) = (read(env, &url)?, read(env, &method)?);
        let (b, f, x) = (
            read(env, &biz)?,
            read(env, &fixed_host)?,
            read(env, &exclude)?,
        );
        let (Some(u), Some(m)) = (text(&u), text(&m)) else {
            return Err(Failure::Argument(
                "linekit: url and method must not be null",
            ));
        };
        let packed = route_packed(
            engine,
            &u,
            &m,
            text(&b).as_deref(),
            keep_original == JNI_TRUE,
            text(&f).as_deref(),
            ws == JNI_TRUE,
            text(&x).as_deref(),
        );
        Ok(env.new_string(packed)?.into_raw())
    })
}

/// `static native void report(long handle, String biz, String line, boolean ws,
/// int outcome, int status, long costMs, long dnsMs, long connectMs, long tlsMs,
/// long ttfbMs, String version)`; negative numbers mean "none", `outcome` is the index in
/// the DESIGN list, `version` the response's `version_header` value (or null).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_linekit_internal_NativeFast_report<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    biz: JString<'l>,
    line: JString<'l>,
    ws: jboolean,
    outcome: jint,
    status: jint,
    cost_ms: jlong,
    dns_ms: jlong,
    connect_ms: jlong,
    tls_ms: jlong,
    ttfb_ms: jlong,
    version: JString<'l>,
) {
    guarded(&mut env, (), |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let outcome =
            outcome_from_code(outcome).ok_or(Failure::Argument("linekit: unknown outcome"))?;
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
            status: u16::try_from(status).ok(),
            cost_ms: opt_ms(cost_ms).unwrap_or(0),
            dns_ms: opt_ms(dns_ms),
            connect_ms: opt_ms(connect_ms),
            tls_ms: opt_ms(tls_ms),
            ttfb_ms: opt_ms(ttfb_ms),
            version: v.as_deref(),
        });
        Ok(())
    })
}

/// `static native int maxRetries(long handle)`: `thresholds.max_retries` in force.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeFast_maxRetries<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    guarded(&mut env, 0, |_| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        Ok(jint::try_from(engine.config().thresholds.max_retries).unwrap_or(jint::MAX))
    })
}

/// `static native void release(long handle)`: drops the reference taken by
/// `native_handle`. Must be called exactly once per handle, after its last use.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeFast_release<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        // SAFETY: the Kotlin wrapper calls this once, after the last use of the handle.
        unsafe { release_handle(handle) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::trace::Reason;

    #[test]
    fn decision_packs_six_fields() {
        let d = linekit_core::engine::RouteDecision {
            url: "http://h:1/p?q=1".into(),
            biz: Some("spot".into()),
            protocol: Protocol::Http,
            line: Some("ali".into()),
            reason: Reason::Sticky,
            version_mismatch: true,
            version_header: Some("X-Deployment-Version".into()),
        };
        assert_eq!(
            pack_decision(&d),
            "sticky\nali\nspot\nX-Deployment-Version\n1\nhttp://h:1/p?q=1"
        );
        let d = linekit_core::engine::RouteDecision {
            url: "http://x/".into(),
            biz: None,
            protocol: Protocol::Http,
            line: None,
            reason: Reason::Unmanaged,
            version_mismatch: false,
            version_header: None,
        };
        assert_eq!(pack_decision(&d), "unmanaged\n\n\n\n\nhttp://x/");
    }

    #[test]
    fn outcome_codes_follow_the_design_list() {
        assert_eq!(outcome_from_code(0), Some(Outcome::Ok));
        assert_eq!(outcome_from_code(4), Some(Outcome::ConnectRefused));
        assert_eq!(outcome_from_code(9), Some(Outcome::Cancelled));
        assert_eq!(outcome_from_code(10), None);
        assert_eq!(outcome_from_code(-1), None);
    }

    #[test]
    fn route_packed_goes_through_the_engine() {
        let engine = linekit_core::engine::LineKitBuilder::new()
            .config_json(r#"{"version":1}"#)
            .build()
            .expect("valid config");
        let packed = route_packed(
            &engine,
            "http://other.test/a",
            "GET",
            None,
            false,
            None,
            false,
            Some("a\nb"),
        );
        assert!(packed.ends_with("\nhttp://other.test/a"), "{packed}");
        assert_eq!(packed.split('\n').count(), 6);
    }

    #[test]
    fn null_handle_is_rejected() {
        // SAFETY: a zero handle is never dereferenced.
        assert!(matches!(unsafe { engine(0) }, Err(Failure::Argument(_))));
        // SAFETY: releasing zero is a no-op.
        unsafe { release_handle(0) };
    }
}
