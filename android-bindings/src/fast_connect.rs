//! The JNI fast path for connect successes that carry their connect time:
//! `dev.linekit.internal.NativeDns.connectSucceededMs`. It clears the address's quarantine
//! like `connectSucceeded` and feeds the per-address connect ranking. Same handle and
//! panic rules as [`crate::fast`].

use crate::fast::{engine, guarded, read, text, Failure};
use crate::fast_dns::read_ip;
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::jlong;
use jni::JNIEnv;

/// `static native void connectSucceededMs(long handle, String host, byte[] ip, long connectMs)`.
#[no_mangle]
pub extern "system" fn Java_dev_linekit_internal_NativeDns_connectSucceededMs<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    host: JString<'l>,
    ip: JByteArray<'l>,
    connect_ms: jlong,
) {
    guarded(&mut env, (), |env| {
        // SAFETY: the Kotlin wrapper keeps the handle live during the call.
        let engine = unsafe { engine(handle) }?;
        let ip = read_ip(env, &ip)?;
        let h = read(env, &host)?;
        let Some(h) = text(&h) else {
            return Err(Failure::Argument("linekit: host must not be null"));
        };
        engine.connect_succeeded_ms(&h, ip, u64::try_from(connect_ms).unwrap_or(0));
        Ok(())
    })
}
