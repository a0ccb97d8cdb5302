//! The JNI fast path for `LineKitDns`: `dev.linekit.internal.NativeDns.{lookup,
//! generation, connectResult}`.
//!
//! `lookup` names the network whose records it reads (0: the default network), so a
//! client bound to one `Network` never gets another network's addresses.
//!
//! `lookup` runs for every new connection OkHttp plans, so it skips UniFFI/JNA like
//! `route` does. The answer is ONE `byte[]`, a
//! [`LOOKUP_ANSWER`](crate::jni_records::LOOKUP_ANSWER) (how long it may be kept, then
//! the addresses' raw bytes in connect order), or `null` when the core says `system` (the
//! miss path allocates nothing). Kotlin turns each address into
//! `InetAddress.getByAddress(host, bytes)`, which never resolves a name.
//!
//! # The Kotlin memo
//! A hit should not cross JNI at all: Kotlin keeps each answer that may be kept (a
//! non-zero keep time) only while the cache's generation (see `linekit_core::dns::DnsCache`)
//! is the one it read *before* asking; the engine moves the generation when a kept
//! answer's time is up, so Kotlin reads no clock. `generation` hands Kotlin that counter as a direct
//! `ByteBuffer` over the core's own `AtomicU32`, so checking it is one memory read. The
//! buffer keeps one reference to the counter that is never dropped (4 bytes plus the
//! `Arc` header, once per engine): a Kotlin reader racing `close()` then never reads freed
//! memory. The count is 32 bits so that 32-bit ABIs read it in one load.
//!
//! A connect result carries the address as its raw bytes (`InetAddress.getAddress()`) and
//! how the connect ended as one [`ConnectResult`] `long` (a failure as its index in the
//! core's `ConnectError::ALL`, a success with its connect time when measured). Same
//! handle and panic rules as [`crate::fast`].

use crate::dns::{ip_from_bytes, pack_lookup};
use crate::fast::{jni_export, read, required, Failure, Handle};
use crate::jni_records::ConnectResult;
use jni::objects::{JByteArray, JString};
use jni::sys::{jboolean, jbyteArray, jlong, jobject, JNI_FALSE, JNI_TRUE};
use jni::JNIEnv;
use linekit_core::dns::ConnectError;
use std::borrow::Cow;
use std::net::IpAddr;
use std::ptr::null_mut;
use std::sync::Arc;

/// Maps the wire connect-failure code (index in [`ConnectError::ALL`]).
pub fn connect_error_from_code(code: i32) -> Option<ConnectError> {
    ConnectError::from_code(code)
}

pub(crate) fn read_ip(env: &JNIEnv<'_>, ip: &JByteArray<'_>) -> Result<IpAddr, Failure> {
    if ip.is_null() {
        return Err(Failure::Argument("linekit: null address"));
    }
    let len = env.get_array_length(ip)?;
    if len != 4 && len != 16 {
        return Err(Failure::Argument("linekit: an address has 4 or 16 bytes"));
    }
    let mut buf = [0i8; 16];
    let n = len as usize;
    env.get_byte_array_region(ip, 0, &mut buf[..n])?;
    let bytes: [u8; 16] = buf.map(|b| b as u8);
    ip_from_bytes(&bytes[..n]).ok_or(Failure::Argument("linekit: an address has 4 or 16 bytes"))
}

/// The text of the call's `host` argument, which must not be null.
fn host_text<'a>(
    host: &'a Option<jni::strings::JavaStr<'_, '_, '_>>,
) -> Result<Cow<'a, str>, Failure> {
    required(host, "linekit: host must not be null")
}

jni_export! {
    /// `static native byte[] lookup(long handle, String host, long network)`: packed
    /// addresses, or null for `system`. `network` is the `Network.getNetworkHandle()` of
    /// the client's bound network, whose own records are read; 0 means the default network.
    fn Java_dev_linekit_internal_NativeDns_lookup(env, &engine = handle, host: JString<'l>,
        network: jlong) -> jbyteArray, else null_mut() => {
        let h = read(env, &host)?;
        let h = host_text(&h)?;
        let answer = match network {
            0 => engine.lookup(&h),
            // A Java long carries the platform's unsigned 64-bit handle bit for bit.
            n => engine.lookup_on(&h, n as u64),
        };
        match pack_lookup(&answer, keep_ms(answer.memo_until_ms, engine.now_ms())) {
            None => Ok(null_mut()),
            Some(packed) => Ok(env.byte_array_from_slice(&packed)?.into_raw()),
        }
    }
}

/// How long (ms) an answer valid until monotonic `memo_until_ms` may be kept when it is
/// `now_ms` now: one ms less (the caller's clock reads a moment later), 0 for "never".
pub(crate) fn keep_ms(memo_until_ms: u64, now_ms: u64) -> u32 {
    let left = memo_until_ms.saturating_sub(now_ms).saturating_sub(1);
    u32::try_from(left).unwrap_or(u32::MAX)
}

jni_export! {
    /// `static native ByteBuffer generation(long handle)`: a 4-byte direct buffer (native
    /// order) over the HTTPDNS cache's generation counter (see the module docs).
    fn Java_dev_linekit_internal_NativeDns_generation(env, &engine = handle)
        -> jobject, else null_mut() => {
        // Deliberately never released: the buffer may outlive the engine (module docs).
        let counter = Arc::into_raw(Arc::clone(engine.dns_generation()));
        // SAFETY: `counter` points at 4 bytes that are never freed (above); Java only
        // reads them, and an `AtomicU32` has the layout of a `u32`.
        let buf = unsafe { env.new_direct_byte_buffer(counter as *mut u8, 4) }?;
        Ok(buf.into_raw())
    }
}

/// Records how one connect to `ip` for `host` ended (the JNI-free half of
/// `connectResult`); answers whether a failure quarantined the address.
pub fn connect_result(
    engine: &Handle,
    host: &str,
    ip: IpAddr,
    result: ConnectResult,
) -> Result<bool, &'static str> {
    if result.failed == 1 {
        let error =
            connect_error_from_code(result.error as i32).ok_or("linekit: unknown connect error")?;
        return Ok(engine.connect_failed(host, ip, error));
    }
    // A measured connect time also feeds the per-address ranking.
    if result.measured == 1 {
        engine.connect_succeeded_ms(host, ip, result.connect_ms);
    } else {
        engine.connect_succeeded(host, ip);
    }
    Ok(false)
}

jni_export! {
    /// `static native boolean connectResult(long handle, String host, byte[] ip,
    /// long result)`: `result` is a [`ConnectResult`]; answers whether a failure
    /// quarantined the address.
    fn Java_dev_linekit_internal_NativeDns_connectResult(env, &engine = handle,
        host: JString<'l>, ip: JByteArray<'l>, result: jlong) -> jboolean, else JNI_FALSE => {
        let h = read(env, &host)?;
        let h = host_text(&h)?;
        let ip = read_ip(env, &ip)?;
        let result = ConnectResult::from_bits(result as u64);
        let quarantined = connect_result(engine, &h, ip, result).map_err(Failure::Argument)?;
        Ok(if quarantined { JNI_TRUE } else { JNI_FALSE })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_error_codes_follow_the_core_list() {
        assert_eq!(connect_error_from_code(0), Some(ConnectError::Refused));
        assert_eq!(connect_error_from_code(2), Some(ConnectError::NoRoute));
        assert_eq!(
            connect_error_from_code(7),
            Some(ConnectError::CancelledRace)
        );
        assert_eq!(connect_error_from_code(8), None);
        assert_eq!(connect_error_from_code(-1), None);
    }

    #[test]
    fn connect_results_make_the_engine_calls_they_stand_for() {
        let engine = || {
            linekit_core::engine::LineKitBuilder::new()
                .config_json(r#"{"version":1}"#)
                .build()
                .expect("config")
        };
        let (via, direct) = (Handle::new(std::sync::Arc::new(engine())), engine());
        let ip: IpAddr = "10.0.0.1".parse().expect("ip");
        let generation = |e: &linekit_core::engine::LineKit| {
            e.dns_generation().load(std::sync::atomic::Ordering::SeqCst)
        };
        let refused = ConnectResult {
            failed: 1,
            error: u64::from(ConnectError::Refused.code()),
            ..ConnectResult::default()
        };
        let measured = ConnectResult {
            measured: 1,
            connect_ms: 12,
            ..ConnectResult::default()
        };
        let r = connect_result(&via, "h.test", ip, refused).expect("known error");
        assert_eq!(
            r,
            direct.connect_failed("h.test", ip, ConnectError::Refused)
        );
        let r = connect_result(&via, "h.test", ip, measured).expect("success");
        direct.connect_succeeded_ms("h.test", ip, 12);
        assert!(!r);
        let r = connect_result(&via, "h.test", ip, ConnectResult::default()).expect("success");
        direct.connect_succeeded("h.test", ip);
        assert!(!r);
        assert_eq!(generation(&via), generation(&direct));
        let unknown = ConnectResult {
            error: 15,
            ..refused
        };
        assert!(connect_result(&via, "h.test", ip, unknown).is_err());
    }

    #[test]
    fn keep_time_is_what_is_left_minus_a_millisecond() {
        assert_eq!(keep_ms(0, 5_000), 0, "never");
        assert_eq!(keep_ms(5_000, 5_000), 0);
        assert_eq!(keep_ms(5_001, 5_000), 0);
        assert_eq!(keep_ms(6_000, 5_000), 999);
        assert_eq!(keep_ms(u64::MAX, 0), u32::MAX);
    }
}
