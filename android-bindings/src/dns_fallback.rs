//! The HTTPDNS call that is off the hot path, through UniFFI: the built-in bootstrap
//! fallback after the system resolver failed (connect results go through JNI).

use crate::dns::{ip_bytes, ip_from_bytes};
use crate::error::LineKitError;
use crate::native::NativeLineKit;
use std::net::IpAddr;

#[uniffi::export]
impl NativeLineKit {
    /// After `lookup` said `System` and the system resolver answered `system` (addresses
    /// of 4 or 16 bytes; empty when it failed): the host's built-in addresses when the
    /// system gave nothing the address policy accepts, else an empty list (keep the system
    /// answer). The core decides; the caller only connects.
    pub fn bootstrap_fallback(
        &self,
        host: String,
        system: Vec<Vec<u8>>,
    ) -> Result<Vec<Vec<u8>>, LineKitError> {
        let system: Vec<IpAddr> = system.iter().filter_map(|b| ip_from_bytes(b)).collect();
        Ok(self
            .engine()?
            .bootstrap_fallback(&host, &system)
            .map(|ips| {
                ips.iter()
                    .map(|ip| ip_bytes(ip).as_slice().to_vec())
                    .collect()
            })
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::engine::{LineKit, RuntimeMode};

    #[test]
    fn bootstrap_fallback_only_when_the_system_gave_nothing_usable() {
        let config = r#"{"version": 1,
            "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}},
            "httpdns": {"hosts": ["*.example.com"],
                        "bootstrap": {"api.example.com": ["198.51.100.7"]}}}"#;
        let engine = LineKit::builder()
            .config_json(config)
            .runtime_mode(RuntimeMode::Manual)
            .build()
            .unwrap();
        let native = NativeLineKit::from_engine(engine);
        let boot = vec![vec![198, 51, 100, 7]];
        let fb = |system: Vec<Vec<u8>>| {
            native
                .bootstrap_fallback("api.example.com".into(), system)
                .unwrap()
        };
        assert_eq!(fb(vec![]), boot);
        assert_eq!(fb(vec![vec![10, 0, 0, 1]]), boot, "policy-rejected only");
        assert!(fb(vec![vec![93, 184, 216, 34]]).is_empty());
        assert!(native
            .bootstrap_fallback("other.example.com".into(), vec![])
            .unwrap()
            .is_empty());
    }
}
