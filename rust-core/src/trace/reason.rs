//! Reason codes: every routing decision names the rule that produced it.
//!
//! A new reason is one `Variant = "code",` line below; the bindings generate the Kotlin
//! `RouteReason` enum from this list, so nothing else needs editing.

crate::wire_enum! {
    /// Why a request was routed the way it was.
    pub enum Reason: "reason" {
        /// `X-Line-Keep-Original-Host: true`: the request was left alone.
        KeepOriginal = "keep_original",
        /// `X-Line-Fixed-Host` pinned the request.
        FixedHost = "fixed_host",
        /// `X-Line-Fixed-Host` was invalid; the request was left unchanged.
        FixedHostInvalid = "fixed_host_invalid",
        /// No business line owns the host; the request was left alone.
        Unmanaged = "unmanaged",
        /// The kill switch is on: first line by priority.
        Downgrade = "downgrade",
        /// The pool's current line was kept.
        Sticky = "sticky",
        /// The pool (re)ranked its lines and chose the best.
        Ranked = "ranked",
        /// Ranking preferred another line but the switch guard kept the current one.
        Guarded = "guarded",
        /// Every line's recent cost is over `timeout_ms`: first line by priority.
        AllSlowFallback = "all_slow_fallback",
        /// Every line's breaker is open: first line by priority.
        AllOpenFallback = "all_open_fallback",
        /// A converged legacy host was rewritten onto its unified line.
        Merged = "merged",
        /// A converged legacy host is outside this install's gray bucket.
        MergeGrayOut = "merge_gray_out",
        /// Every unified line is open: the original URL was kept.
        MergeFallbackOriginal = "merge_fallback_original",
        /// A retry within one call, excluding lines already tried.
        RetryExcluded = "retry_excluded",
        /// A half-open line admitted this request as its single trial.
        HalfOpenTrial = "half_open_trial",
        /// The current line answered slowly several times in a row and another line is known
        /// to be fast: traffic moved, even inside the switch interval.
        SlowSwitch = "slow_switch",
        /// A response on the current line was cut off, reset or stalled after it was sent,
        /// and another line is known to be fast: traffic moved, even inside the switch
        /// interval.
        ReadFaultSwitch = "read_fault_switch",
        /// The business line's rollout mode is `off` on this install: the request was left
        /// alone.
        RolloutOff = "rollout_off",
        /// The business line's rollout mode is `observe` on this install: the request went
        /// to its original URL; the decision records what `on` would have chosen.
        Observe = "observe",
        /// `X-Line-Fixed-Host` named an origin the config does not know (no line's and not
        /// in `fixed_hosts`): the header was ignored and the request was routed as if it
        /// were absent.
        FixedHostRefused = "fixed_host_refused",
        /// `X-Line-Biz` named a business line whose `match` does not accept the request's
        /// host: the header was ignored and the request was routed by its host.
        BizRefused = "biz_refused",
    }
}

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
