//! Starting and stopping an engine over the JNI path: `dev.linekit.internal.NativeStart.
//! {start, shutdown}`.
//!
//! `LineKit.Builder.build()` runs on the app's main thread, in `Application.onCreate`,
//! so it must not wait for JNA, whose first use (its own native library, then binding
//! every UniFFI function) costs more than the whole engine start. `start` builds the
//! engine from the app's config sources ([`crate::startup::build_engine`]) and answers
//! the `long` handle the per-request calls take ([`crate::fast`]), so the first route
//! needs nothing else. The trace sink and the probe transport are UniFFI callback
//! interfaces: when the start's [`StartFlags`] announce them, the engine holds late-bound
//! stand-ins ([`crate::late_bound`]) until Kotlin binds the control plane, off the
//! caller's thread, with [`crate::native::bind_engine`].
//!
//! A start that builds no engine answers 0 and leaves, in the first element of its
//! `failure` argument (a one-element `String[][]`), a [`START_FAILURE`] head and its
//! [`CONFIG_PROBLEM`] groups: every problem of an app config that strict start-up
//! refused, or the kind and message of any other error. `shutdown` stops the engine's
//! background work (`LineKit::close`, idempotent); the handle stays valid until
//! `NativeFast.release`.

use crate::error::LineKitError;
use crate::fast::{jni_export, read, text, Failure, Handle};
use crate::jni_records::{StartFlags, CONFIG_PROBLEM, START_FAILURE};
use crate::late_bound::LateCallbacks;
use crate::startup::{build_engine, ConfigFieldError, StartOptions};
use jni::objects::{JByteArray, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::JNIEnv;
use linekit_core::trace::TraceSink as CoreSink;
use linekit_core::transport::Transport;
use std::sync::Arc;

/// The `START_FAILURE` + `CONFIG_PROBLEM` elements for a start that failed.
pub fn failure_elements(
    failure: &Result<Vec<ConfigFieldError>, LineKitError>,
) -> Vec<Option<String>> {
    let (kind, message, problems) = match failure {
        Ok(problems) => ("InvalidAppConfig", None, problems.as_slice()),
        Err(e) => (e.kind(), Some(e.to_string()), &[][..]),
    };
    let mut out = Vec::with_capacity(
        START_FAILURE.fields.len() + problems.len() * CONFIG_PROBLEM.fields.len(),
    );
    out.push(Some(kind.to_string()));
    out.push(message);
    out.push(Some(problems.len().to_string()));
    for p in problems {
        out.push(Some(p.source.clone()));
        out.push(Some(p.path.clone()));
        out.push(Some(p.error.clone()));
    }
    out
}

/// Starts an engine: its handle, or why not (see [`failure_elements`]).
pub fn start(
    options: StartOptions,
    flags: StartFlags,
) -> Result<Handle, Result<Vec<ConfigFieldError>, LineKitError>> {
    let late = LateCallbacks::new(flags.trace_sink == 1, flags.transport == 1);
    let sink = late.sink.clone().map(|s| s as Arc<dyn CoreSink>);
    let transport = late.transport.clone().map(|t| t as Arc<dyn Transport>);
    match build_engine(options, sink, transport) {
        Ok(Ok(engine)) => Ok(Handle::started(Arc::new(engine), late)),
        Ok(Err(problems)) => Err(Ok(problems)),
        Err(e) => Err(Err(e)),
    }
}

/// Reads an optional Java string.
fn optional(env: &JNIEnv<'_>, s: &JString<'_>) -> Result<Option<String>, Failure> {
    let s = read(env, s)?;
    Ok(text(&s).map(|t| t.into_owned()))
}

/// Writes `elements` as a `String[]` into `failure[0]`.
fn write_failure(
    env: &mut JNIEnv<'_>,
    failure: &JObjectArray<'_>,
    elements: &[Option<String>],
) -> Result<(), Failure> {
    if failure.is_null() {
        return Err(Failure::Argument("linekit: failure must not be null"));
    }
    let len = i32::try_from(elements.len())
        .map_err(|_| Failure::Argument("linekit: too many config problems"))?;
    let array = env.new_object_array(len, "java/lang/String", JObject::null())?;
    for (i, e) in elements.iter().enumerate() {
        if let Some(e) = e {
            let s = env.new_string(e)?;
            env.set_object_array_element(&array, i as i32, &s)?;
            env.delete_local_ref(s)?;
        }
    }
    env.set_object_array_element(failure, 0, &array)?;
    Ok(())
}

jni_export! {
    /// `static native long start(String configJson, String sealedConfig, byte[] sealedKey,
    /// String storageDir, int flags, String[][] failure)`: the engine's handle, or 0 with
    /// `failure[0]` saying why. `flags` is a [`StartFlags`].
    fn Java_dev_linekit_internal_NativeStart_start(env, config_json: JString<'l>,
        sealed_config: JString<'l>, sealed_key: JByteArray<'l>, storage_dir: JString<'l>,
        flags: jint, failure: JObjectArray<'l>) -> jlong, else 0 => {
        let flags = StartFlags::from_bits(flags as u32 as u64);
        let sealed_key = if sealed_key.is_null() {
            None
        } else {
            Some(env.convert_byte_array(&sealed_key)?)
        };
        let options = StartOptions {
            config_json: optional(env, &config_json)?,
            sealed_config: optional(env, &sealed_config)?,
            sealed_key,
            storage_dir: optional(env, &storage_dir)?,
            fallback_on_invalid_config: flags.fallback_on_invalid_config == 1,
            require_consent: flags.require_consent == 1,
        };
        match start(options, flags) {
            Ok(handle) => Ok(handle.into_raw() as jlong),
            Err(why) => {
                write_failure(env, &failure, &failure_elements(&why))?;
                Ok(0)
            }
        }
    }
}

jni_export! {
    /// `static native void shutdown(long handle)`: stops the engine's background work
    /// (idempotent); routing keeps answering until `release`.
    fn Java_dev_linekit_internal_NativeStart_shutdown(_env, &engine = handle) => {
        engine.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(fallback: bool, sink: bool, transport: bool) -> StartFlags {
        StartFlags {
            fallback_on_invalid_config: fallback.into(),
            require_consent: 0,
            trace_sink: sink.into(),
            transport: transport.into(),
        }
    }

    #[test]
    fn a_start_waits_for_the_callbacks_its_flags_announce() {
        let options = || {
            StartOptions {
            config_json: Some(
                r#"{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"https://x.example"}]}}}"#
                    .into(),
            ),
            ..StartOptions::default()
        }
        };
        let handle = start(options(), flags(true, true, false)).expect("starts");
        assert!(handle.late.sink.is_some() && handle.late.transport.is_none());
        let handle = start(options(), flags(true, false, true)).expect("starts");
        assert!(handle.late.sink.is_none() && handle.late.transport.is_some());
    }

    #[test]
    fn a_refused_start_names_every_problem_or_the_error_kind() {
        let bad = r#"{"version":1,"biz_lines":{"a":{"http":[{"id":"x","url":"ftp://x"}]}}}"#;
        let why = start(
            StartOptions {
                config_json: Some(bad.into()),
                ..StartOptions::default()
            },
            flags(false, false, false),
        )
        .expect_err("strict start-up refuses it");
        let elements = failure_elements(&why);
        let head = START_FAILURE.fields.len();
        assert_eq!(elements[0].as_deref(), Some("InvalidAppConfig"));
        assert_eq!(elements[1], None);
        assert_eq!(elements[2].as_deref(), Some("1"));
        assert_eq!(elements.len(), head + CONFIG_PROBLEM.fields.len());
        assert_eq!(elements[head].as_deref(), Some("remote"));
        assert_eq!(
            elements[head + 1].as_deref(),
            Some("biz_lines.a.http[0].url")
        );

        let half = start(
            StartOptions {
                sealed_config: Some("abc".into()),
                ..StartOptions::default()
            },
            flags(false, false, false),
        )
        .expect_err("half a sealed config");
        let elements = failure_elements(&half);
        assert_eq!(elements[0].as_deref(), Some("InvalidArgument"));
        assert!(elements[1].as_deref().is_some_and(|m| m.contains("sealed")));
        assert_eq!(elements[2].as_deref(), Some("0"));
        assert_eq!(elements.len(), head);
    }
}
