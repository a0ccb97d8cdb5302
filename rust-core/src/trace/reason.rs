//! Reason codes: every routing decision names the rule that produced it.
//!
//! A new reason is one `Variant = "code",` line in [`Reason`]'s list in
//! [`crate::wire::vocabulary`]; the bindings generate the Kotlin `RouteReason` enum from
//! that list, so nothing else needs editing.

pub use crate::wire::vocabulary::Reason;

impl Reason {
    /// Whether the request URL was rewritten onto a line, `None` for the refusals of a
    /// private header (`fixed_host_refused`, `biz_refused`), whose decision is the routing
    /// that followed: its `target` tells.
    pub fn is_rewrite(self) -> Option<bool> {
        if matches!(self, Reason::FixedHostRefused | Reason::BizRefused) {
            return None;
        }
        Some(!matches!(
            self,
            Reason::KeepOriginal
                | Reason::FixedHostInvalid
                | Reason::Unmanaged
                | Reason::MergeGrayOut
                | Reason::MergeFallbackOriginal
                | Reason::RolloutOff
                | Reason::Observe
        ))
    }
}

/// Why a remote config was not applied. The replay `config` line's `error` and
/// `ConfigUpdate::error` start with this code, followed by `: ` and a detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigReason {
    /// Trust is configured but the document is a bare config or carries no signature.
    Unsigned,
    /// A signature by a trusted key does not verify over the signed bytes.
    BadSignature,
    /// Every signature names a key id the current trust does not list.
    UnknownKey,
    /// Fewer distinct trusted keys signed than `trust.threshold` asks for.
    BelowThreshold,
    /// `expires_at` is not later than the wall clock.
    Expired,
    /// `version` is not higher than the version in force.
    NotNewer,
    /// The signed envelope itself is malformed (not JSON, bad base64, wrong shapes).
    Malformed,
    /// The document is larger than the remote config limit.
    Oversize,
    /// The config inside fails validation (field errors follow).
    Invalid,
}

impl ConfigReason {
    /// Every reason, in declaration order.
    pub const ALL: [ConfigReason; 9] = [
        ConfigReason::Unsigned,
        ConfigReason::BadSignature,
        ConfigReason::UnknownKey,
        ConfigReason::BelowThreshold,
        ConfigReason::Expired,
        ConfigReason::NotNewer,
        ConfigReason::Malformed,
        ConfigReason::Oversize,
        ConfigReason::Invalid,
    ];

    /// The stable snake_case code.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigReason::Unsigned => "unsigned",
            ConfigReason::BadSignature => "bad_signature",
            ConfigReason::UnknownKey => "unknown_key",
            ConfigReason::BelowThreshold => "below_threshold",
            ConfigReason::Expired => "expired",
            ConfigReason::NotNewer => "not_newer",
            ConfigReason::Malformed => "malformed",
            ConfigReason::Oversize => "oversize",
            ConfigReason::Invalid => "invalid",
        }
    }
}

impl std::fmt::Display for ConfigReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod config_reason_tests {
    use super::ConfigReason;
    use std::collections::HashSet;

    #[test]
    fn config_reason_codes_are_unique_snake_case() {
        let codes: HashSet<_> = ConfigReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(codes.len(), ConfigReason::ALL.len());
        assert!(codes
            .iter()
            .all(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
    }
}
