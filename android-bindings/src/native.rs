//! [`NativeLineKit`]: the UniFFI object wrapping one engine.
//!
//! The engine sits in an `ArcSwapOption` so that `shutdown()` can drop it while calls in
//! flight keep their own reference; every later call fails with [`LineKitError::Closed`].
//! `shutdown()` also stops the engine's background runtime (`LineKit::close`).
//! (`close`/`destroy` are taken by UniFFI's generated Kotlin for freeing the object
//! itself, hence the name `shutdown`.)

use crate::error::LineKitError;
use crate::records::{ConfigUpdate, NetworkInfo};
use arc_swap::ArcSwapOption;
use linekit_core::engine::{EngineState, LineKit};
use std::sync::Arc;

/// One Linekit engine, as seen from Kotlin (`dev.linekit.ffi.NativeLineKit`).
#[derive(uniffi::Object)]
pub struct NativeLineKit {
    engine: ArcSwapOption<LineKit>,
}

impl NativeLineKit {
    pub(crate) fn engine(&self) -> Result<Arc<LineKit>, LineKitError> {
        self.engine.load_full().ok_or_else(LineKitError::closed)
    }

    /// Wraps an already built engine (tests and the JNI benchmarks use this).
    pub fn from_engine(engine: LineKit) -> Self {
        Self::sharing(Arc::new(engine))
    }

    /// The control-plane object over an engine others hold too (a JNI handle's).
    fn sharing(engine: Arc<LineKit>) -> Self {
        NativeLineKit {
            engine: ArcSwapOption::new(Some(engine)),
        }
    }
}

impl NativeLineKit {
    /// A handle for the JNI fast path on this engine: a leaked [`crate::fast::Handle`] (a
    /// strong reference to the engine and the code table of its answers), for Rust tests
    /// and the JNI benchmarks (Kotlin starts engines over JNI, `NativeStart.start`). Every
    /// handle returned must be released exactly once with `NativeFast.release(handle)`,
    /// after the last fast call that uses it. The engine stays alive until then even after
    /// shutdown.
    pub fn native_handle(&self) -> Result<u64, LineKitError> {
        Ok(crate::fast::Handle::new(self.engine()?).into_raw())
    }

    /// Builds an engine from a plain JSON config, falling back on an invalid one (for the
    /// tests; Kotlin starts engines with `NativeStart.start`).
    pub fn from_json(config_json: String) -> Result<Arc<Self>, LineKitError> {
        crate::start_engine(Some(config_json), None, None, None, None, None, true, false)?
            .into_kit()
    }
}

#[uniffi::export]
impl NativeLineKit {
    /// Offers a remote config (JSON); applies only if valid and newer.
    pub fn update_config(&self, json: String) -> Result<ConfigUpdate, LineKitError> {
        Ok(self.engine()?.update_config(&json).into())
    }

    /// Turns the kill switch on or off.
    pub fn set_downgrade(&self, on: bool) -> Result<(), LineKitError> {
        self.engine()?.set_downgrade(on);
        Ok(())
    }

    /// The platform's default network changed.
    pub fn on_network_changed(&self, network: NetworkInfo) -> Result<(), LineKitError> {
        self.engine()?.on_network_changed(network.try_into()?);
        Ok(())
    }

    /// The engine's state: the core's [`EngineState`], typed.
    pub fn state(&self) -> Result<EngineState, LineKitError> {
        Ok(self.engine()?.state())
    }

    /// The engine's state as JSON: the same value's JSON form.
    pub fn state_json(&self) -> Result<String, LineKitError> {
        Ok(self.engine()?.state_json())
    }

    /// Stops the engine: later calls fail with `Closed`. Idempotent.
    pub fn shutdown(&self) {
        if let Some(engine) = self.engine.swap(None) {
            engine.close();
        }
    }

    /// Whether `shutdown` was called.
    pub fn is_shut_down(&self) -> bool {
        self.engine.load().is_none()
    }
}

/// The control-plane object of an engine started over JNI (`NativeStart.start`), with
/// the trace sink and the transport its start announced handed over: the events and the
/// requests that waited for them go first ([`crate::late_bound`]). Kotlin calls it once
/// per engine, inside the handle's open state, off the thread that built the engine.
///
/// `handle` must be a live handle from `NativeStart.start` (the Kotlin wrapper holds it
/// open for the call); 0 is refused.
#[uniffi::export]
pub fn bind_engine(
    handle: u64,
    trace_sink: Option<Box<dyn crate::sink::TraceSink>>,
    transport: Option<Box<dyn crate::transport::HttpTransport>>,
) -> Result<Arc<NativeLineKit>, LineKitError> {
    // SAFETY: the caller keeps the handle live for the call (above).
    let handle = unsafe { crate::fast::handle_ref(handle as i64) }
        .map_err(|_| LineKitError::InvalidArgument("linekit: null native handle".into()))?;
    handle.late.attach(trace_sink, transport);
    Ok(Arc::new(NativeLineKit::sharing(handle.engine().clone())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::net::PrivateDnsMode;

    const CONFIG: &str = r#"{"version":3,"allow_cleartext":true,"biz_lines":{"spot":{"match":["api.linekit.test"],
        "http":[{"id":"a","url":"http://127.0.0.1:1"},{"id":"b","url":"http://127.0.0.1:2"}]}}}"#;

    #[test]
    fn a_bad_config_falls_back() {
        // The core's source chain skips a bad level down to the hard-coded line.
        let kit = NativeLineKit::from_json("{not json".into()).expect("falls back");
        let state: serde_json::Value =
            serde_json::from_str(&kit.state_json().expect("open")).expect("json");
        assert_ne!(state["source"], "remote", "{state}");
    }

    #[test]
    fn update_config_reports_applied_and_rejected() {
        let kit = NativeLineKit::from_json(CONFIG.into()).expect("valid config");
        let newer = CONFIG.replace("\"version\":3", "\"version\":4");
        let u = kit.update_config(newer).expect("open");
        assert!(u.applied && u.version == 4 && u.error.is_none(), "{u:?}");
        let u = kit.update_config(CONFIG.into()).expect("open");
        assert!(!u.applied && u.version == 4 && u.error.is_some(), "{u:?}");
    }

    #[test]
    fn state_carries_the_network_and_downgrade() {
        let kit = NativeLineKit::from_json(CONFIG.into()).expect("valid config");
        kit.set_downgrade(true).expect("open");
        kit.on_network_changed(NetworkInfo {
            handle: 42,
            validated: true,
            vpn: false,
            private_dns: PrivateDnsMode::Strict.code(),
            proxy: false,
            transport: Some("wifi".into()),
        })
        .expect("open");
        let state: serde_json::Value =
            serde_json::from_str(&kit.state_json().expect("open")).expect("json");
        assert_eq!(state["downgrade"], true);
        assert_eq!(state["network"]["handle"], 42);
        assert_eq!(state["network"]["validated"], true);
    }

    #[test]
    fn shutdown_closes_every_call_but_handles_stay_valid() {
        let kit = NativeLineKit::from_json(CONFIG.into()).expect("valid config");
        let handle = kit.native_handle().expect("open");
        kit.shutdown();
        assert!(kit.is_shut_down());
        assert!(matches!(kit.state(), Err(LineKitError::Closed(_))));
        assert!(matches!(kit.state_json(), Err(LineKitError::Closed(_))));
        assert!(matches!(kit.native_handle(), Err(LineKitError::Closed(_))));
        // The handle still owns a reference until released.
        // SAFETY: `handle` came from `native_handle` and is released exactly once here.
        unsafe { crate::fast::release_handle(handle as i64) };
    }
}
