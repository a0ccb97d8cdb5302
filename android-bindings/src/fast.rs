//! The JNI path: `dev.linekit.internal.NativeFast.{route, report, codes, records,
//! vocabulary, release}`, the only door for the calls made on every request.
//!
//! Per-request calls skip UniFFI/JNA and carry primitives: every argument or answer that
//! holds several values is a record declared once in [`crate::jni_records`] (the Kotlin
//! side is generated from the same declaration). `route` takes the URL, a
//! [`RouteQuery`] (the method's code, the pool, a one-shot body) and, when present, the
//! request's private headers and the lines already tried; it answers one
//! [`RouteAnswer`] `long`: the reason, the limits that govern the call, whether the URL
//! stays byte for byte, and codes for the line entry and the target entry
//! ([`crate::fast_codes`]), whose strings Kotlin fetches once per code with `codes`.
//! The URL is read with `GetStringRegion` into a stack buffer, so once its codes are known
//! a route allocates nothing here (`tests/route_answer_alloc.rs`). `max_retries` is 0 when the core's
//! replay rule ([`linekit_core::line::replay`]) forbids sending the request again; the
//! request's headers are read by the core's one header rule
//! ([`linekit_core::line::headers::LineHeaders::parse`], first occurrence wins). The
//! public `LineKit.route` also asks for the final URL, which the core writes
//! ([`linekit_core::engine::RouteDecision::url`]) into a one-element `String[]`.
//!
//! `report` takes a [`ReportHead`] (the answer's line code, the outcome or status) and the
//! attempt's times, and answers a [`ReportAnswer`]: the outcome recorded, whether it is a
//! line fault and whether it may be resent on the same line (the core's rules), which is
//! what the interceptor's in-call failover asks.
//! `records` ([`crate::record_layout::layout_lines`]) and `vocabulary`
//! ([`vocabulary_text`]) hand every record layout and wire enum of the library to the JVM,
//! so a test can prove the generated Kotlin matches this library.
//!
//! `handle` is a pointer to a [`Handle`] from `NativeLineKit::native_handle`
//! (`Box::into_raw`): the engine and its code table. The Kotlin wrapper guarantees no call
//! uses it after `release` (a call counter, like UniFFI's own). Every export (here and in
//! [`crate::fast_dns`]) is declared through `jni_export!`, which writes the JNI signature
//! and runs the body under one guard: a panic is caught and rethrown as
//! `java.lang.IllegalStateException`, a zero handle throws `IllegalArgumentException`.

use crate::fast_codes::{self, Coded, Codes};
use crate::jni_records::{
    ReportAnswer, ReportHead, RouteAnswer, RouteQuery, CODES_HEAD, EXCLUDED_LINES, LINE_ENTRY,
    RECORDS, ROUTE_HEADERS, TARGET_ENTRY,
};
use crate::late_bound::LateCallbacks;
use jni::objects::{JObjectArray, JString};
use jni::sys::{jint, jlong, jobjectArray, jsize, jstring};
use jni::JNIEnv;
use linekit_core::config::RolloutMode;
use linekit_core::engine::{LineKit, Report, RouteDecision, RouteRequest};
use linekit_core::line::headers::LineHeaders;
use linekit_core::line::router::Target;
use linekit_core::line::{replay, Outcome, Protocol, Timings};
use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::ops::Deref;
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

/// What a JNI handle points at: the engine, the code table of its answers and, for an
/// engine started over JNI, the callbacks it waits for.
#[derive(Debug)]
pub struct Handle {
    engine: Arc<LineKit>,
    /// The codes of this handle's route answers.
    pub codes: Codes,
    /// The sink and transport the engine waits for (none waited for by default).
    pub late: LateCallbacks,
}

impl Handle {
    /// A handle on `engine` with an empty code table, waiting for no callback.
    pub fn new(engine: Arc<LineKit>) -> Handle {
        Handle::started(engine, LateCallbacks::default())
    }

    /// A handle on an engine started over JNI that waits for `late`.
    pub fn started(engine: Arc<LineKit>, late: LateCallbacks) -> Handle {
        Handle {
            engine,
            codes: Codes::default(),
            late,
        }
    }

    /// The engine, shared.
    pub fn engine(&self) -> &Arc<LineKit> {
        &self.engine
    }

    /// Leaks the handle as the `long` the JNI calls take (see [`release_handle`]).
    pub fn into_raw(self) -> u64 {
        Box::into_raw(Box::new(self)) as usize as u64
    }
}

/// A handle is used as its engine.
impl Deref for Handle {
    type Target = LineKit;
    fn deref(&self) -> &LineKit {
        &self.engine
    }
}

/// Whether `t` sends the request URL `url` exactly as it is: `url` up to where its path
/// starts is `scheme://host[:port]` (an IPv6 host in brackets) and there is no prefix, so
/// [`Target::url`] would write `url` again.
pub fn same_url(t: &Target, url: &str) -> bool {
    if t.path_prefix.is_some() {
        return false;
    }
    let Some(origin) = url.get(..t.rest_at) else {
        return false;
    };
    let Some(rest) = origin
        .strip_prefix(t.scheme.as_str())
        .and_then(|r| r.strip_prefix("://"))
    else {
        return false;
    };
    let rest = if t.host.contains(':') {
        rest.strip_prefix('[')
            .and_then(|r| r.strip_prefix(&*t.host))
            .and_then(|r| r.strip_prefix(']'))
    } else {
        rest.strip_prefix(&*t.host)
    };
    match (rest, t.port) {
        (Some(""), None) => true,
        (Some(r), Some(port)) => r
            .strip_prefix(':')
            .is_some_and(|p| p.parse::<u16>() == Ok(port) && !p.starts_with('0')),
        _ => false,
    }
}

/// Packs decision `d` for the request URL `url`: its codes come from `codes`,
/// `max_retries` is the call's (0 when it may not be replayed).
pub fn answer_of(codes: &Codes, d: &RouteDecision, url: &str, max_retries: u32) -> RouteAnswer {
    let Coded {
        generation,
        line,
        target,
    } = codes.encode(d);
    let field_max = crate::record_layout::mask(4);
    RouteAnswer {
        reason: u64::from(d.reason.code()),
        version_mismatch: u64::from(d.version_mismatch),
        max_retries: u64::from(max_retries).min(field_max),
        same_url: u64::from(d.target.as_ref().is_some_and(|t| same_url(t, url))),
        generation: u64::from(generation),
        line: u64::from(line),
        target: u64::from(target),
        mode: u64::from(d.mode.code()),
        would_reason: d
            .would
            .as_ref()
            .map_or(0, |w| u64::from(w.reason.code()) + 1),
    }
}

/// Routes with already-decoded arguments (the JNI-free half of `route`, shared with
/// tests): `method` is the method when `query` names none of the coded ones, `headers` a
/// [`ROUTE_HEADERS`] list, `exclude` an [`EXCLUDED_LINES`] list. Answers the packed answer
/// and the decision.
pub fn route_answer(
    handle: &Handle,
    url: &str,
    query: RouteQuery,
    method: Option<&str>,
    headers: Option<&str>,
    exclude: Option<&str>,
) -> Result<(RouteAnswer, RouteDecision), &'static str> {
    let method = fast_codes::method(query.method)
        .or(method.filter(|_| query.method == fast_codes::OTHER_METHOD))
        .ok_or("linekit: unknown method code, or no method")?;
    let ids: Vec<&str> = exclude
        .map(|x| EXCLUDED_LINES.items(x).map(|i| i[0]).collect())
        .unwrap_or_default();
    let pairs: Vec<(&str, &str)> = headers
        .map(|h| ROUTE_HEADERS.items(h).map(|i| (i[0], i[1])).collect())
        .unwrap_or_default();
    let private = LineHeaders::parse(&pairs);
    let protocol = if query.ws == 1 {
        Protocol::Ws
    } else {
        Protocol::Http
    };
    let mut req = RouteRequest::with_headers(url, method, &private, protocol, &ids);
    req.reported = query.ask_only == 0;
    if query.mode != 0 {
        req.mode = Some(
            RolloutMode::from_code(query.mode as i32 - 1)
                .ok_or("linekit: unknown rollout mode code")?,
        );
    }
    let replayable = replay::replayable(method, private.idempotency_key, query.one_shot_body == 1);
    let d = handle.route(&req);
    // Observed and switched-off business lines are sent once, to their original URL (the
    // decision's own retries are 0 then).
    let max_retries = if replayable { d.max_retries } else { 0 };
    let answer = answer_of(&handle.codes, &d, url, max_retries);
    Ok((answer, d))
}

/// Records one attempt (the JNI-free half of `report`): `times` are the cost, DNS,
/// connect, TLS and first-byte milliseconds (negative: not measured), `version` the
/// response's `version_header` value.
pub fn report_head(
    handle: &Handle,
    head: ReportHead,
    times: [i64; 5],
    version: Option<&str>,
) -> Result<ReportAnswer, &'static str> {
    let status = (head.has_status == 1).then_some(head.status as u16);
    let outcome = match (head.outcome, status) {
        (0, Some(s)) => Outcome::from_status(s),
        (0, None) => return Err("linekit: a report needs an outcome or a status"),
        (code, _) => Outcome::from_code(code as i32 - 1).ok_or("linekit: unknown outcome")?,
    };
    let [cost, dns, connect, tls, ttfb] = times.map(|t| u64::try_from(t).ok());
    handle
        .codes
        .with_line(head.generation as u8, head.line as u16, |entry| {
            handle.report(&Report {
                biz: entry.and_then(|e| e.biz.as_deref()),
                protocol: if head.ws == 1 {
                    Protocol::Ws
                } else {
                    Protocol::Http
                },
                line: entry.and_then(|e| e.line.as_deref()),
                host: None,
                outcome,
                status,
                cost_ms: cost.unwrap_or(0),
                timings: Timings {
                    dns_ms: dns,
                    connect_ms: connect,
                    tls_ms: tls,
                    ttfb_ms: ttfb,
                },
                version,
            });
        });
    Ok(ReportAnswer {
        outcome: u64::from(outcome.code()),
        line_fault: u64::from(outcome.is_line_fault(status)),
        resend: u64::from(outcome.resends_on_new_connection()),
    })
}

/// The elements of `codes()`'s answer: a [`CODES_HEAD`], then the [`LINE_ENTRY`] and
/// [`TARGET_ENTRY`] groups (`None` for a null element).
pub fn code_elements(
    codes: &Codes,
    generation: u8,
    line_from: usize,
    target_from: usize,
) -> Vec<Option<String>> {
    codes.with_entries(generation, line_from, target_from, |e| {
        let text = |s: &Option<Arc<str>>| s.as_deref().map(str::to_string);
        let mut out = Vec::with_capacity(
            CODES_HEAD.fields.len()
                + e.lines.len() * LINE_ENTRY.fields.len()
                + e.targets.len() * TARGET_ENTRY.fields.len(),
        );
        for n in [
            usize::from(e.generation),
            e.line_from,
            e.lines.len(),
            e.target_from,
            e.targets.len(),
        ] {
            out.push(Some(n.to_string()));
        }
        for l in e.lines {
            out.push(text(&l.biz));
            out.push(text(&l.line));
            out.push(text(&l.version_header));
            out.push(Some(l.buffer_body_max_bytes.to_string()));
            out.push(text(&l.would_line));
        }
        for t in e.targets {
            out.push(Some(t.scheme.as_str().to_string()));
            out.push(Some(t.host.to_string()));
            out.push(t.port.map(|p| p.to_string()));
            out.push(text(&t.path_prefix));
        }
        out
    })
}

/// `kind\tRustName\twire_name` lines, one per variant of every wire enum that crosses
/// into Kotlin, in code order, then the method codes as kind `http_method` (the method as
/// both names).
pub fn vocabulary_text() -> String {
    let mut out = String::new();
    let mut line = |kind: &str, rust: &str, wire: &str| {
        for (i, part) in [kind, rust, wire].into_iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            out.push_str(part);
        }
        out.push('\n');
    };
    for (kind, table) in linekit_core::wire::kotlin_vocabularies() {
        for (rust, wire, _) in table {
            line(kind, rust, wire);
        }
    }
    for m in fast_codes::METHODS {
        line("http_method", m, m);
    }
    out
}

/// Releases a handle from `native_handle`.
///
/// # Safety
/// `handle` must come from [`Handle::into_raw`] and must not be used (nor released)
/// again afterwards.
pub unsafe fn release_handle(handle: jlong) {
    if handle != 0 {
        drop(Box::from_raw(handle as usize as *mut Handle));
    }
}

/// Borrows the handle behind a `long`.
///
/// # Safety
/// `handle` must be live (not yet released) for the duration of the borrow.
pub(crate) unsafe fn handle_ref<'a>(handle: jlong) -> Result<&'a Handle, Failure> {
    if handle == 0 {
        return Err(Failure::Argument("linekit: null native handle"));
    }
    Ok(&*(handle as usize as *const Handle))
}

/// UTF-16 units of a URL read onto the stack; a longer one is read onto the heap.
const URL_STACK_UNITS: usize = 1024;

/// Runs `f` with the text of the Java string `s` (not null), read with `GetStringRegion`:
/// an ASCII string up to [`URL_STACK_UNITS`] long is narrowed in a stack buffer (no
/// allocation); anything else is decoded from UTF-16 (an unpaired surrogate becomes
/// U+FFFD).
pub(crate) fn with_region<R>(
    env: &JNIEnv<'_>,
    s: &JString<'_>,
    f: impl FnOnce(&str) -> R,
) -> Result<R, Failure> {
    let raw = env.get_raw();
    // SAFETY: `raw` is the live JNIEnv of this call and `s` a live, non-null
    // java.lang.String reference (the Java signature declares `String`); the region
    // asked for lies inside the string, and `units` has room for it. Without a pending
    // exception GetStringRegion wrote all `n` units, so the first `n` are initialised,
    // and the narrowing loop writes the first `n` bytes.
    unsafe {
        let table = &**raw;
        let (Some(length), Some(region)) = (table.GetStringLength, table.GetStringRegion) else {
            return Err(Failure::Argument("linekit: JNI lacks GetStringRegion"));
        };
        let len = length(raw, s.as_raw());
        let n = usize::try_from(len).unwrap_or(0);
        if n <= URL_STACK_UNITS {
            // Neither buffer is cleared first: only the `n` units GetStringRegion writes
            // (and the `n` bytes narrowed from them) are ever read.
            let mut units = [MaybeUninit::<u16>::uninit(); URL_STACK_UNITS];
            region(raw, s.as_raw(), 0, len as jsize, units.as_mut_ptr().cast());
            if env.exception_check()? {
                return Err(Failure::Argument("linekit: unreadable string"));
            }
            let units = std::slice::from_raw_parts(units.as_ptr().cast::<u16>(), n);
            let mut bytes = [MaybeUninit::<u8>::uninit(); URL_STACK_UNITS];
            let mut ascii = true;
            for (b, &u) in bytes.iter_mut().zip(units) {
                ascii &= u < 0x80;
                b.write(u as u8);
            }
            if ascii {
                let bytes = std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>(), n);
                // Every byte is below 0x80: ASCII is UTF-8.
                return Ok(f(std::str::from_utf8_unchecked(bytes)));
            }
            return Ok(f(&String::from_utf16_lossy(units)));
        }
        let mut units = vec![0u16; n];
        region(raw, s.as_raw(), 0, len as jsize, units.as_mut_ptr());
        if env.exception_check()? {
            return Err(Failure::Argument("linekit: unreadable string"));
        }
        Ok(f(&String::from_utf16_lossy(&units)))
    }
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

/// [`guarded`] with the [`Handle`] behind `handle` borrowed for `f`.
pub(crate) fn with_engine<'l, R>(
    env: &mut JNIEnv<'l>,
    handle: jlong,
    default: R,
    f: impl FnOnce(&mut JNIEnv<'l>, &Handle) -> Result<R, Failure>,
) -> R {
    guarded(env, default, |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let handle = unsafe { handle_ref(handle) }?;
        f(env, handle)
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
/// `long handle`, with the [`Handle`] behind it borrowed as `engine`). The body answers
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
    /// `static native long route(long handle, String url, int query, String method,
    /// String headers, String exclude, String[] finalUrl)`: a [`RouteAnswer`]. `query` is a
    /// [`RouteQuery`]; `method` is read only when its code is `OTHER_METHOD`; `headers` is
    /// a [`ROUTE_HEADERS`] list and `exclude` an [`EXCLUDED_LINES`] list, either null for
    /// none. When `finalUrl` is not null and the request is rewritten, its first element
    /// receives the final URL the core writes.
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_route(env, &engine = handle, url: JString<'l>,
        query: jint, method: JString<'l>, headers: JString<'l>, exclude: JString<'l>,
        final_url: JObjectArray<'l>) -> jlong, else 0 => {
        if url.is_null() {
            return Err(Failure::Argument("linekit: url must not be null"));
        }
        let query = RouteQuery::from_bits(query as u32 as u64);
        let m = if query.method == fast_codes::OTHER_METHOD {
            read(env, &method)?
        } else {
            None
        };
        let (h, x) = (read(env, &headers)?, read(env, &exclude)?);
        let (m, h, x) = (text(&m), text(&h), text(&x));
        let want_url = !final_url.is_null();
        let routed = with_region(env, &url, |url| {
            route_answer(engine, url, query, m.as_deref(), h.as_deref(), x.as_deref()).map(
                |(answer, d)| {
                    let written = (want_url && d.target.is_some()).then(|| d.url(url));
                    (answer, written)
                },
            )
        })?;
        let (answer, written) = routed.map_err(Failure::Argument)?;
        if let Some(written) = written {
            let written = env.new_string(written)?;
            env.set_object_array_element(&final_url, 0, written)?;
        }
        Ok(answer.to_bits() as jlong)
    }
}

jni_export! {
    /// `static native int report(long handle, long head, long costMs, long dnsMs,
    /// long connectMs, long tlsMs, long ttfbMs, String version)`: a [`ReportAnswer`]. `head` is
    /// a [`ReportHead`]; negative times mean "not measured"; `version` is the response's
    /// `version_header` value (or null).
    #[allow(clippy::too_many_arguments)]
    fn Java_dev_linekit_internal_NativeFast_report(env, &engine = handle, head: jlong,
        cost_ms: jlong, dns_ms: jlong, connect_ms: jlong, tls_ms: jlong, ttfb_ms: jlong,
        version: JString<'l>) -> jint, else -1 => {
        let v = read(env, &version)?;
        let v = text(&v);
        let head = ReportHead::from_bits(head as u64);
        let times = [cost_ms, dns_ms, connect_ms, tls_ms, ttfb_ms];
        let verdict = report_head(engine, head, times, v.as_deref()).map_err(Failure::Argument)?;
        Ok(verdict.to_bits() as jint)
    }
}

jni_export! {
    /// `static native String[] codes(long handle, int generation, int lineFrom,
    /// int targetFrom)`: the strings of codes Kotlin has not seen yet (see
    /// [`code_elements`]): generation `generation`'s entries from the given positions
    /// when it is still held, else every entry of the current generation.
    fn Java_dev_linekit_internal_NativeFast_codes(env, &engine = handle, generation: jint,
        line_from: jint, target_from: jint) -> jobjectArray, else null_mut() => {
        let from = |n: jint| usize::try_from(n).unwrap_or(0);
        let elements = code_elements(
            &engine.codes,
            generation as u8,
            from(line_from),
            from(target_from),
        );
        let len = jsize::try_from(elements.len())
            .map_err(|_| Failure::Argument("linekit: too many codes"))?;
        let array = env.new_object_array(len, "java/lang/String", jni::objects::JObject::null())?;
        for (i, e) in elements.into_iter().enumerate() {
            if let Some(e) = e {
                let s = env.new_string(e)?;
                env.set_object_array_element(&array, i as jsize, &s)?;
                env.delete_local_ref(s)?;
            }
        }
        Ok(array.into_raw())
    }
}

jni_export! {
    /// `static native void businessPool(long handle)`: the interceptor has seen the
    /// business client, so warms can go through its connection pool
    /// ([`crate::late_bound::LateTransport::business_pool_ready`]). Nothing for an engine
    /// without a transport.
    fn Java_dev_linekit_internal_NativeFast_businessPool(_env, &engine = handle) => {
        if let Some(transport) = &engine.late.transport {
            transport.business_pool_ready();
        }
        Ok(())
    }
}

jni_export! {
    /// `static native String records()`: every record layout of this library
    /// ([`crate::record_layout::layout_lines`] of [`RECORDS`]).
    fn Java_dev_linekit_internal_NativeFast_records(env) -> jstring, else null_mut() => {
        Ok(env.new_string(crate::record_layout::layout_lines(&RECORDS))?.into_raw())
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
    use linekit_core::line::Scheme;
    use linekit_core::trace::Reason;

    fn target(scheme: Scheme, host: &str, port: Option<u16>, prefix: Option<&str>) -> Target {
        Target {
            scheme,
            host: host.into(),
            port,
            path_prefix: prefix.map(Into::into),
            rest_at: 0,
        }
    }

    #[test]
    fn same_url_holds_exactly_when_the_core_would_write_the_request_url_again() {
        for (url, t) in [
            (
                "https://h.test/p?q",
                target(Scheme::Https, "h.test", None, None),
            ),
            (
                "http://h:8080/p",
                target(Scheme::Http, "h", Some(8080), None),
            ),
            (
                "https://[::1]:8443/",
                target(Scheme::Https, "::1", Some(8443), None),
            ),
            (
                "https://h.test/p",
                target(Scheme::Https, "h.test", None, Some("/v1")),
            ),
            (
                "https://h.test:443/p",
                target(Scheme::Https, "h.test", None, None),
            ),
            (
                "https://h:0443/p",
                target(Scheme::Https, "h", Some(443), None),
            ),
            (
                "https://u@h.test/p",
                target(Scheme::Https, "h.test", None, None),
            ),
            (
                "HTTPS://h.test/p",
                target(Scheme::Https, "h.test", None, None),
            ),
            (
                "https://H.test/p",
                target(Scheme::Https, "h.test", None, None),
            ),
            (
                "http://h.test/p",
                target(Scheme::Https, "h.test", None, None),
            ),
        ] {
            let authority = url.find("://").expect("url") + 3;
            let rest_at = url[authority..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |i| authority + i);
            let t = Target { rest_at, ..t };
            assert_eq!(same_url(&t, url), t.url(url) == url, "{url} on {t:?}");
        }
    }

    const CONFIG: &str = r#"{"version":1,"allow_cleartext":true,
        "thresholds":{"max_retries":2,"buffer_body_max_bytes":4096},
        "biz_lines":{"spot":{"match":["api.linekit.test"],"version_header":"X-V",
        "http":[{"id":"a","url":"http://127.0.0.1:1"}]},
        "own":{"match":["own.linekit.test"],"http":[{"id":"o","url":"https://own.linekit.test"}]},
        "cdn":{"match":["cdn.linekit.test"],"http":[{"id":"c","url":"http://127.0.0.1:2"}]}}}"#;

    fn test_handle() -> Handle {
        let engine = linekit_core::engine::LineKitBuilder::new()
            .config_json(CONFIG)
            .build()
            .expect("valid config");
        Handle::new(Arc::new(engine))
    }

    fn query(method: &str, ws: bool, one_shot: bool) -> RouteQuery {
        RouteQuery {
            method: fast_codes::method_code(method),
            ws: u64::from(ws),
            one_shot_body: u64::from(one_shot),
            mode: 0,
            ask_only: 0,
        }
    }

    /// The answer for a request on `h`, and the strings its line code stands for.
    fn route(
        h: &Handle,
        url: &str,
        method: &str,
        headers: Option<&str>,
        one_shot: bool,
    ) -> (RouteAnswer, Option<fast_codes::LineEntry>) {
        let (answer, _) = route_answer(
            h,
            url,
            query(method, false, one_shot),
            Some(method),
            headers,
            Some("x\ny"),
        )
        .expect("routes");
        let entry = h
            .codes
            .with_line(answer.generation as u8, answer.line as u16, |e| e.cloned());
        (answer, entry)
    }

    #[test]
    fn an_observed_or_switched_off_business_line_gets_no_retries_on_the_jni_path() {
        for (mode, reason) in [("observe", Reason::Observe), ("off", Reason::RolloutOff)] {
            let config = CONFIG.replacen(
                r#""biz_lines":{"spot":{"#,
                &format!(r#""biz_lines":{{"spot":{{"rollout":{{"mode":"{mode}"}},"#),
                1,
            );
            let engine = linekit_core::engine::LineKitBuilder::new()
                .config_json(&config)
                .build()
                .expect("valid config");
            let h = Handle::new(Arc::new(engine));
            let (answer, entry) = route(&h, "http://api.linekit.test/a", "GET", None, false);
            let would_line = entry.and_then(|e| e.would_line);
            assert_eq!(
                Reason::from_code(answer.reason as i32),
                Some(reason),
                "{mode}"
            );
            assert_eq!(answer.max_retries, 0, "{mode}");
            assert_eq!(
                RolloutMode::from_code(answer.mode as i32).map(|m| m.as_str()),
                Some(mode)
            );
            let would = Reason::from_code(answer.would_reason as i32 - 1);
            if mode == "observe" {
                assert!(
                    would.is_some_and(|r| r.is_rewrite() == Some(true)),
                    "{would:?}"
                );
                assert!(would_line.is_some(), "observe names the line on would take");
            } else {
                assert_eq!(answer.would_reason, 0, "only observe says what on would do");
                assert_eq!(would_line, None);
            }
            let (on, _) = route(&h, "http://cdn.linekit.test/a", "GET", None, false);
            assert_eq!(on.max_retries, 2, "the other business lines keep theirs");
            assert_eq!(
                RolloutMode::from_code(on.mode as i32),
                Some(RolloutMode::On)
            );
            assert_eq!(on.would_reason, 0);
        }
    }

    #[test]
    fn a_retry_routes_under_the_mode_its_call_started_with() {
        let config = CONFIG
            .replacen(
                r#""biz_lines":{"spot":{"#,
                r#""biz_lines":{"spot":{"rollout":{"mode":"observe"},"#,
                1,
            )
            .replacen(
                r#"{"id":"a","url":"http://127.0.0.1:1"}"#,
                r#"{"id":"a","url":"http://127.0.0.1:1"},{"id":"b","url":"http://127.0.0.1:3"}"#,
                1,
            );
        let engine = linekit_core::engine::LineKitBuilder::new()
            .config_json(&config)
            .build()
            .expect("valid config");
        let h = Handle::new(Arc::new(engine));
        let url = "http://api.linekit.test/a";
        // The call started under `on` (before the config turned the line to observe): its
        // retry still fails over, away from the line it tried.
        let retry = RouteQuery {
            mode: u64::from(RolloutMode::On.code()) + 1,
            ..query("GET", false, false)
        };
        let (answer, d) = route_answer(&h, url, retry, None, None, Some("a")).expect("routes");
        assert_eq!(
            RolloutMode::from_code(answer.mode as i32),
            Some(RolloutMode::On)
        );
        assert_eq!(
            Reason::from_code(answer.reason as i32),
            Some(Reason::RetryExcluded)
        );
        assert_eq!(d.line.as_deref(), Some("b"));
        // A first attempt gets the business line's mode now.
        let (first, _) =
            route_answer(&h, url, query("GET", false, false), None, None, None).expect("routes");
        assert_eq!(
            RolloutMode::from_code(first.mode as i32),
            Some(RolloutMode::Observe)
        );
    }

    #[test]
    fn a_route_answer_carries_the_reason_limits_and_codes_of_the_core_decision() {
        let h = test_handle();
        let (answer, entry) = route(&h, "http://api.linekit.test/a?b", "GET", None, false);
        let reason = Reason::from_code(answer.reason as i32).expect("a known reason");
        assert_eq!(reason.is_rewrite(), Some(true), "{reason}");
        assert_eq!((answer.max_retries, answer.same_url), (2, 0));
        assert_eq!((answer.line, answer.target), (1, 1));
        let entry = entry.expect("line entry");
        assert_eq!(entry.biz.as_deref(), Some("spot"));
        assert_eq!(entry.line.as_deref(), Some("a"));
        assert_eq!(entry.version_header.as_deref(), Some("X-V"));
        assert_eq!(entry.buffer_body_max_bytes, 4096);
        let elements = code_elements(&h.codes, 0, 0, 0);
        let texts: Vec<Option<&str>> = elements.iter().map(Option::as_deref).collect();
        assert_eq!(
            texts,
            [
                Some("0"),
                Some("0"),
                Some("1"),
                Some("0"),
                Some("1"),
                Some("spot"),
                Some("a"),
                Some("X-V"),
                Some("4096"),
                None,
                Some("http"),
                Some("127.0.0.1"),
                Some("1"),
                None,
            ]
        );
        // A second answer for the same line reuses both codes.
        let (again, _) = route(&h, "http://api.linekit.test/other", "GET", None, false);
        assert_eq!((again.line, again.target), (1, 1));
        assert_eq!(
            code_elements(&h.codes, 0, 1, 1).len(),
            CODES_HEAD.fields.len()
        );

        let (unmanaged, entry) = route(&h, "http://other.test/a", "GET", None, false);
        assert_eq!(unmanaged.reason, u64::from(Reason::Unmanaged.code()));
        assert_eq!((unmanaged.line, unmanaged.target), (0, 0));
        assert!(entry.is_none());

        let (own, _) = route(&h, "https://own.linekit.test/p?q", "GET", None, false);
        assert_eq!(own.same_url, 1, "the line is the request's own origin");
    }

    #[test]
    fn the_core_replay_rule_sets_the_retries_of_the_answer() {
        let h = test_handle();
        let retries = |method, headers, one_shot| {
            route(&h, "http://api.linekit.test/a", method, headers, one_shot)
                .0
                .max_retries
        };
        assert_eq!(retries("GET", None, false), 2);
        assert_eq!(retries("PUT", None, false), 2);
        assert_eq!(
            retries("POST", None, false),
            0,
            "an unkeyed POST is never replayed"
        );
        assert_eq!(retries("POST", Some("Idempotency-Key\nk1"), false), 2);
        assert_eq!(retries("POST", Some("x-transaction-id\nt"), false), 2);
        assert_eq!(
            retries("GET", None, true),
            0,
            "a one-shot body cannot be sent twice"
        );
        assert_eq!(retries("POST", Some("Idempotency-Key\nk1"), true), 0);
        assert_eq!(
            retries("PROPFIND", None, false),
            0,
            "a method outside the list travels as text"
        );
    }

    #[test]
    fn a_method_code_needs_its_string_only_outside_the_list() {
        let h = test_handle();
        let other = query("PROPFIND", false, false);
        assert!(route_answer(&h, "http://x/", other, None, None, None).is_err());
        let unknown = RouteQuery {
            method: 12,
            ..other
        };
        assert!(route_answer(&h, "http://x/", unknown, Some("GET"), None, None).is_err());
        let get = query("GET", false, false);
        assert!(route_answer(&h, "http://x/", get, Some("ignored"), None, None).is_ok());
    }

    #[test]
    fn private_headers_are_read_by_the_core_rule_first_occurrence_wins() {
        let h = test_handle();
        // The first X-Line-Biz (cdn) is the one read: cdn does not claim spot's host, so
        // the header is refused and the request routes by its host.
        let (answer, entry) = route(
            &h,
            "http://api.linekit.test/a",
            "GET",
            Some("x-line-biz\n cdn \nX-Line-Biz\nspot\nX-Line-Debug\n1"),
            false,
        );
        let entry = entry.expect("spot");
        assert_eq!(
            (entry.line.as_deref(), entry.biz.as_deref()),
            (Some("a"), Some("spot"))
        );
        assert_eq!(answer.reason, u64::from(Reason::BizRefused.code()));
        let (answer, _) = route(
            &h,
            "http://api.linekit.test/a",
            "GET",
            Some("X-Line-Keep-Original-Host\nTRUE"),
            false,
        );
        assert_eq!(answer.reason, u64::from(Reason::KeepOriginal.code()));
    }

    #[test]
    fn reports_resolve_the_answer_line_and_carry_the_core_verdict() {
        let h = test_handle();
        let (answer, _) = route(&h, "http://api.linekit.test/a", "GET", None, false);
        let head = |outcome: u64, status: Option<u16>| ReportHead {
            generation: answer.generation,
            line: answer.line,
            ws: 0,
            outcome,
            has_status: u64::from(status.is_some()),
            status: u64::from(status.unwrap_or(0)),
        };
        let times = [40, -1, -1, -1, 30];
        let v = report_head(&h, head(0, Some(503)), times, None).expect("status");
        assert_eq!(v.outcome, u64::from(Outcome::Http5xx.code()));
        assert_eq!(v.line_fault, 1);
        let reset = u64::from(Outcome::ConnectionReset.code()) + 1;
        let v = report_head(&h, head(reset, None), times, Some("v2")).expect("outcome");
        assert_eq!((v.outcome + 1, v.line_fault, v.resend), (reset, 1, 0));
        let stale = u64::from(Outcome::StaleConnection.code()) + 1;
        let v = report_head(&h, head(stale, None), times, None).expect("stale");
        assert_eq!((v.outcome + 1, v.line_fault, v.resend), (stale, 0, 1));
        let cancelled = u64::from(Outcome::Cancelled.code()) + 1;
        assert_eq!(
            report_head(&h, head(cancelled, None), times, None)
                .unwrap()
                .line_fault,
            0
        );
        assert!(report_head(&h, head(0, None), times, None).is_err());
        assert!(report_head(&h, head(63, None), times, None).is_err());
        // The two faults reached line `a` of `spot` through the answer's line code.
        let pools = h.pools();
        let a = &pools["spot/http"].lines[0];
        assert_eq!((a.id.as_str(), a.failures), ("a", 2), "{a:?}");
        assert_eq!(a.last_error.as_deref(), Some("connection_reset"));
        assert_eq!(a.version.as_deref(), Some("v2"));
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
        for kind in [
            "connect_error",
            "reason",
            "close_cause",
            "private_dns",
            "rollout mode",
            "http_method",
        ] {
            assert!(text.lines().any(|l| l.starts_with(kind)), "{kind}");
        }
        assert!(text.contains("http_method\tGET\tGET\n"));
    }

    #[test]
    fn null_handle_is_rejected() {
        // SAFETY: a zero handle is never dereferenced.
        assert!(matches!(
            unsafe { handle_ref(0) },
            Err(Failure::Argument(_))
        ));
        // SAFETY: releasing zero is a no-op.
        unsafe { release_handle(0) };
    }
}
