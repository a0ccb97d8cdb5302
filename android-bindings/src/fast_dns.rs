//! The JNI fast path for `LineKitDns`: `dev.linekit.internal.NativeDns.{lookup,
//! connectFailed, connectSucceeded}`.
//!
//! `lookup` names the network whose records it reads (0: the default network), so a
//! client bound to one `Network` never gets another network's addresses.
//!
//! `lookup` runs for every new connection OkHttp plans, so it skips UniFFI/JNA like
//! `route` does. The answer is ONE `byte[]` — each address as a length byte (4 or 16)
//! followed by its bytes, in connect order — or `null` when the core says `system` (the
//! miss path allocates nothing). Kotlin turns each entry into
//! `InetAddress.getByAddress(host, bytes)`, which never resolves a name.
//!
//! Connect results carry the address as its raw bytes (`InetAddress.getAddress()`) and
//! the failure as its index in the core's `ConnectError::ALL`. Same handle and panic rules
//! as [`crate::fast`].

use crate::dns::{ip_from_bytes, pack_lookup};
use crate::fast::{engine, guarded, read, text, Failure};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jbyteArray, jint, jlong, JNI_FALSE, JNI_TRUE};
use jni::JNIEnv;
use linekit_core::dns::ConnectError;
use std::net::IpAddr;

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

/// `static native byte[] lookup(long handle, String host, long network)`: packed
/// addresses, or null for `system`. `network` is the `Network.getNetworkHandle()` of the
/// client's bound network, whose own records are read; 0 means the default network.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeDns_lookup<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    host: JString<'l>,
    network: jlong,
) -> jbyteArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let h = read(env, &host)?;
        let Some(h) = text(&h) else {
            return Err(Failure::Argument("linekit: host must not be null"));
        };
        let answer = match network {
            0 => engine.lookup(&h),
            // A Java long carries the platform's unsigned 64-bit handle bit for bit.
            n => engine.lookup_on(&h, n as u64),
        };
        match pack_lookup(&answer) {
            None => Ok(std::ptr::null_mut()),
            Some(packed) => Ok(env.byte_array_from_slice(&packed)?.into_raw()),
        }
    })
}

/// `static native boolean connectFailed(long handle, String host, byte[] ip, int error)`:
/// whether the address was quarantined.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeDns_connectFailed<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    host: JString<'l>,
    ip: JByteArray<'l>,
    error: jint,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let error = connect_error_from_code(error)
            .ok_or(Failure::Argument("linekit: unknown connect error"))?;
        let ip = read_ip(env, &ip)?;
        let h = read(env, &host)?;
        let Some(h) = text(&h) else {
            return Err(Failure::Argument("linekit: host must not be null"));
        };
        Ok(if engine.connect_failed(&h, ip, error) {
            JNI_TRUE
        } else {
            JNI_FALSE
        })
    })
}

/// `static native void connectSucceeded(long handle, String host, byte[] ip)`.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeDns_connectSucceeded<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    host: JString<'l>,
    ip: JByteArray<'l>,
) {
    guarded(&mut env, (), |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let ip = read_ip(env, &ip)?;
        let h = read(env, &host)?;
        let Some(h) = text(&h) else {
            return Err(Failure::Argument("linekit: host must not be null"));
        };
        engine.connect_succeeded(&h, ip);
        Ok(())
    })
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
}
