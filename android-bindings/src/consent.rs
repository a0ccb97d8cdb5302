//! The privacy consent gate and data deletion, as seen from Kotlin
//! (`LineKit.Builder.requireConsent()`, `grantConsent()`, `revokeConsent()`,
//! `clearData()`). The gate itself is the core's (`engine::consent`): this only carries
//! the calls over, so Kotlin and Rust apps get one behaviour.

use crate::error::LineKitError;
use crate::native::NativeLineKit;

#[uniffi::export]
impl NativeLineKit {
    /// The user accepted the privacy policy: the engine may send its own requests (the
    /// start-up detect, pre-resolve and first config fetch follow).
    pub fn grant_consent(&self) -> Result<(), LineKitError> {
        self.engine()?.grant_consent();
        Ok(())
    }

    /// The user withdrew consent: no new request of the engine's own until
    /// [`NativeLineKit::grant_consent`]. Routing is unaffected.
    pub fn revoke_consent(&self) -> Result<(), LineKitError> {
        self.engine()?.revoke_consent();
        Ok(())
    }

    /// Whether the engine may send its own requests now.
    pub fn consent_granted(&self) -> Result<bool, LineKitError> {
        Ok(self.engine()?.consent_granted())
    }

    /// Deletes every entry of the storage directory (last good config, state file,
    /// install seed); the engine writes nothing there afterwards.
    pub fn clear_data(&self) -> Result<(), LineKitError> {
        Ok(self.engine()?.clear_data()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str =
        r#"{"version":1,"biz_lines":{"spot":{"http":[{"id":"a","url":"https://a.example"}]}}}"#;

    #[test]
    fn consent_is_granted_revoked_and_clear_data_deletes_linekits_files_alone() {
        let dir = std::env::temp_dir().join(format!("linekit-consent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("leftover"), b"x").unwrap();
        let kit = crate::start_engine(
            Some(CONFIG.into()),
            None,
            None,
            Some(dir.to_string_lossy().into_owned()),
            None,
            None,
            false,
            true,
        )
        .and_then(crate::Startup::into_kit)
        .unwrap();
        assert!(!kit.consent_granted().unwrap());
        kit.grant_consent().unwrap();
        assert!(kit.consent_granted().unwrap());
        kit.revoke_consent().unwrap();
        assert!(!kit.consent_granted().unwrap());
        // An interrupted write to the install seed left its temp file behind.
        std::fs::write(dir.join(".install.seed.00112233445566aa.tmp"), b"x").unwrap();
        assert!(dir.join("install.seed").exists());
        kit.clear_data().unwrap();
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["leftover"], "only Linekit's own files go");
        let refused = kit.diagnosis(None).err().map(|e| e.to_string());
        kit.shutdown();
        std::fs::remove_dir_all(&dir).unwrap();
        let refused = refused.expect("a diagnosis before consent is refused");
        assert!(refused.contains("consent required"), "{refused}");
        assert!(matches!(kit.grant_consent(), Err(LineKitError::Closed(_))));
    }
}
