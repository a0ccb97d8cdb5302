//! JNI exports that exist only for the host JVM tests (cargo feature `jni-test-hooks`,
//! enabled by the host build of `./build.sh`; the release `.so` never has them, and the
//! Android consumer rules need not keep them).
//!
//! Each is declared with the same [`jni_export!`] as the fast path's exports, so a test
//! that calls one exercises the guard every fast-path call runs under.

use crate::fast::jni_export;
use jni::sys::jint;

jni_export! {
    /// `static native int panicking()` of the JVM tests' `JniPanicProbe`: panics inside
    /// the guard, so the test sees the panic come back as an `IllegalStateException` and
    /// the library go on answering.
    fn Java_dev_linekit_internal_JniPanicProbe_panicking(_env) -> jint, else -1 => {
        panic!("linekit test hook: a deliberate panic in a JNI call")
    }
}
