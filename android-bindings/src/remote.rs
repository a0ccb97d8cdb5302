//! The remote config channel as seen from Kotlin: [`NativeLineKit::refresh_config`] starts
//! a fetch round.

use crate::error::LineKitError;
use crate::native::NativeLineKit;

#[uniffi::export]
impl NativeLineKit {
    /// Starts a fetch round of `remote.urls` now (unless one is running); returns whether a
    /// round is running (false without `remote` or without a transport).
    pub fn refresh_config(&self) -> Result<bool, LineKitError> {
        Ok(self.engine()?.refresh_config())
    }
}
