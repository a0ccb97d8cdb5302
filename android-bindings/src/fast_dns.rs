//! The JNI fast path for `LineKitDns`: `dev.linekit.internal.NativeDns.{lookup,
//! connectFailed, connectSucceeded}`.
//!
//! `lookup` names the network whose records it reads (0: the default network), so a
//! client bound to one `Network` never gets another network's addresses.
//!
//! `lookup` runs for every new connection OkHttp plans, so it skips UniFFI/JNA like
//! `route` does. The answer is ONE `byte[]` — a 4-byte big-endian count of milliseconds
//! the answer may be kept (0: ask again next time), then each address as a length byte
//! (4 or 16) followed by its bytes, in connect order — or `null` when the core says
//! `system` (the miss path allocates nothing). Kotlin turns each entry into
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
//! Connect results carry the address as its raw bytes (`InetAddress.getAddress()`) and
//! the failure as its index in the core's `ConnectError::ALL`. Same handle and panic rules
//! as [`crate::fast`].

use crate::dns::{ip_from_bytes, pack_lookup};
use crate::fast::{jni_export, read, required, Failure};
use jni::objects::{JByteArray, JString};
use jni::sys::{jboolean, jbyteArray, jint, jlong, jobject, JNI_FALSE, JNI_TRUE};
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
        match pack_lookup(&answer) {
            None => Ok(null_mut()),
            Some(packed) => {
                let keep = keep_ms(answer.memo_until_ms, engine.now_ms());
                let mut out = Vec::with_capacity(4 + packed.len());
                out.extend_from_slice(&keep.to_be_bytes());
                out.extend_from_slice(&packed);
                Ok(env.byte_array_from_slice(&out)?.into_raw())
            }
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

jni_export! {
    /// `static native boolean connectFailed(long handle, String host, byte[] ip, int error)`:
    /// whether the address was quarantined.
    fn Java_dev_linekit_internal_NativeDns_connectFailed(env, &engine = handle, host: JString<'l>,
        ip: JByteArray<'l>, error: jint) -> jboolean, else JNI_FALSE => {
        let h = read(env, &host)?;
        let h = host_text(&h)?;
        let error = connect_error_from_code(error)
            .ok_or(Failure::Argument("linekit: unknown connect error"))?;
        let ip = read_ip(env, &ip)?;
        Ok(if engine.connect_failed(&h, ip, error) {
            JNI_TRUE
        } else {
            JNI_FALSE
        })
    }
}

jni_export! {
    /// `static native void connectSucceeded(long handle, String host, byte[] ip,
    /// long connectMs)`; `connectMs` is -1 when the connect was not timed.
    fn Java_dev_linekit_internal_NativeDns_connectSucceeded(env, &engine = handle,
        host: JString<'l>, ip: JByteArray<'l>, connect_ms: jlong) => {
        let h = read(env, &host)?;
        let h = host_text(&h)?;
        let ip = read_ip(env, &ip)?;
        // A measured connect time also feeds the per-address ranking; -1 = not measured.
        match u64::try_from(connect_ms) {
            Ok(ms) => engine.connect_succeeded_ms(&h, ip, ms),
            Err(_) => engine.connect_succeeded(&h, ip),
        }
        Ok(())
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
    fn keep_time_is_what_is_left_minus_a_millisecond() {
        assert_eq!(keep_ms(0, 5_000), 0, "never");
        assert_eq!(keep_ms(5_000, 5_000), 0);
        assert_eq!(keep_ms(5_001, 5_000), 0);
        assert_eq!(keep_ms(6_000, 5_000), 999);
        assert_eq!(keep_ms(u64::MAX, 0), u32::MAX);
    }
}
