//! A panic inside a call through the exported C ABI comes back to the caller as an error
//! status, and the process and the engine carry on.
//!
//! The panic path is the one a misbehaving app can take: when a Kotlin `TraceSink` throws,
//! UniFFI's glue panics on the Rust side of the callback, inside the control-plane call
//! that emitted the event, on the caller's thread. Here a Rust sink panics the same way,
//! and `set_downgrade` (which emits a trace event) is called through the same
//! `uniffi_linekit_fn_method_*` symbols that the generated Kotlin calls through JNA.
//!
//! The last check frees the engine while a probe is in flight on a transport whose
//! `cancel` panics (a Kotlin `HttpTransport.cancel` that throws): the engine's `Drop`
//! closes it, which cancels the probe; the panic must be caught before it leaves the
//! `drop`, and the free call still succeeds. The shipped library aborts on a panic that
//! leaves a `drop` (`-Z panic-in-drop=abort`), so this proves that a throwing callback on
//! the close path cannot take the app down.
//!
//! A test binary always unwinds whatever the profile says, so only a program can prove
//! that the *release* build (profile, `panic` strategy, std build) still catches panics:
//! `./build.sh size` builds this example with exactly the flags of the shipped `.so` and
//! runs it on every target it measures. `tests/ffi_panic.rs` runs the same checks in
//! `cargo test`. Exit status 0 means every check held; a release build that aborts on
//! panic dies here with SIGABRT.

use linekit::{
    start_engine, HttpTransport, NativeLineKit, Startup, TraceSink, TransportCompletion,
    TransportRequest, UniFfiTag,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};
use uniffi::{Lower, RustCallStatus, RustCallStatusCode};

extern "C" {
    fn uniffi_linekit_fn_method_nativelinekit_set_downgrade(
        ptr: u64,
        on: i8,
        status: &mut RustCallStatus,
    );
    fn uniffi_linekit_fn_method_nativelinekit_ws_stable_ms(
        ptr: u64,
        status: &mut RustCallStatus,
    ) -> u64;
    fn uniffi_linekit_fn_clone_nativelinekit(ptr: u64, status: &mut RustCallStatus) -> u64;
    fn uniffi_linekit_fn_free_nativelinekit(ptr: u64, status: &mut RustCallStatus);
}

/// A method call consumes one reference: like the generated Kotlin, clone the handle first.
fn cloned(handle: u64) -> Result<u64, String> {
    let mut status = RustCallStatus::default();
    // SAFETY: `handle` is a live NativeLineKit handle.
    let copy = unsafe { uniffi_linekit_fn_clone_nativelinekit(handle, &mut status) };
    match status.code {
        RustCallStatusCode::Success => Ok(copy),
        other => Err(format!("clone: status {other:?}")),
    }
}

const CONFIG: &str = r#"{
  "version": 1,
  "biz_lines": {"spot": {"match": ["api.example.com"],
                         "http": [{"id": "a", "url": "https://a.example.com"}]}},
  "thresholds": {"startup_detect_delay_ms": 1, "detect_jitter_ms": 1},
  "trace": {"sample_rate": 1.0}
}"#;

/// What UniFFI's callback glue does when the foreign `emit` throws: once armed (after
/// the engine is built, whose start-up event must not panic outside a call), on the
/// armed thread only (the runtime thread's probe events pass).
struct ThrowingSink(Arc<Mutex<Option<ThreadId>>>);

impl TraceSink for ThrowingSink {
    fn emit(&self, _event_json: String) {
        if *self.0.lock().unwrap_or_else(|e| e.into_inner()) == Some(std::thread::current().id()) {
            panic!("Callback interface failure: java.lang.RuntimeException from TraceSink.emit");
        }
    }
}

/// Keeps every probe in flight (never completes it) and throws from `cancel`, which the
/// engine calls for each in-flight request when it closes.
#[derive(Default)]
struct HangingTransport {
    started: Arc<AtomicUsize>,
    held: Mutex<Vec<Arc<TransportCompletion>>>,
}

impl HttpTransport for HangingTransport {
    fn start(&self, _request: TransportRequest, completion: Arc<TransportCompletion>) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(completion);
        self.started.fetch_add(1, Ordering::SeqCst);
    }

    fn cancel(&self, _id: i64) {
        panic!("Callback interface failure: java.lang.RuntimeException from HttpTransport.cancel");
    }
}

/// Runs every check; `Err` says which one failed.
pub fn check() -> Result<(), String> {
    let armed = Arc::new(Mutex::new(None));
    let transport = HangingTransport::default();
    let started = transport.started.clone();
    let kit = start_engine(
        Some(CONFIG.into()),
        None,
        None,
        None,
        Some(Box::new(ThrowingSink(armed.clone()))),
        Some(Box::new(transport)),
        true,
        false,
    )
    .and_then(Startup::into_kit)
    .map_err(|e| format!("engine: {e}"))?;
    *armed.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current().id());
    let handle = <Arc<NativeLineKit> as Lower<UniFfiTag>>::lower(kit).as_raw();

    for attempt in 1..=3 {
        let this = cloned(handle)?;
        let mut status = RustCallStatus::default();
        // SAFETY: `this` is a fresh reference to a live NativeLineKit.
        unsafe {
            uniffi_linekit_fn_method_nativelinekit_set_downgrade(
                this,
                i8::from(attempt % 2 == 1),
                &mut status,
            )
        };
        if status.code != RustCallStatusCode::UnexpectedError {
            return Err(format!(
                "set_downgrade #{attempt}: expected UnexpectedError, got {:?}",
                status.code
            ));
        }
        std::mem::ManuallyDrop::into_inner(status.error_buf).destroy();
    }

    // The engine is still usable through the same boundary.
    let this = cloned(handle)?;
    let mut status = RustCallStatus::default();
    // SAFETY: as above.
    let stable = unsafe { uniffi_linekit_fn_method_nativelinekit_ws_stable_ms(this, &mut status) };
    if status.code != RustCallStatusCode::Success {
        return Err(format!(
            "ws_stable_ms after the panics: status {:?}",
            status.code
        ));
    }
    // The start-up probe is in flight (bounded wait: the runtime thread starts it).
    let deadline = Instant::now() + Duration::from_secs(20);
    while started.load(Ordering::SeqCst) == 0 {
        if Instant::now() > deadline {
            return Err("the start-up probe never started".to_string());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut status = RustCallStatus::default();
    // SAFETY: the handle is released exactly once, here; the drop closes the engine,
    // which cancels the probe, whose `cancel` panics.
    unsafe { uniffi_linekit_fn_free_nativelinekit(handle, &mut status) };
    if status.code != RustCallStatusCode::Success {
        return Err(format!("free: status {:?}", status.code));
    }
    println!(
        "ffi_panic: 3 panics caught at the UniFFI boundary; ws_stable_ms = {stable} afterwards; \
         a panicking cancel while the engine closed on free was caught too"
    );
    Ok(())
}

/// Panics [`check`] causes: 3 calls, and the cancel during the drop.
pub const EXPECTED_PANICS: usize = 4;

/// Silences the default hook (which would print each expected panic) and counts them.
pub fn count_panics() -> Arc<AtomicUsize> {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::panic::set_hook(Box::new(move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    }));
    count
}

#[allow(dead_code)]
fn main() {
    let panics = count_panics();
    if let Err(why) = check() {
        eprintln!("ffi_panic: {why}");
        std::process::exit(1);
    }
    let n = panics.load(Ordering::Relaxed);
    if n != EXPECTED_PANICS {
        eprintln!("ffi_panic: expected {EXPECTED_PANICS} panics, saw {n}");
        std::process::exit(1);
    }
}
