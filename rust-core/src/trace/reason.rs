//! Reason codes: every routing decision names the rule that produced it.

use std::fmt;

/// Why a request was routed the way it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// `X-Line-Keep-Original-Host: true`: the request was left alone.
    KeepOriginal,
    /// `X-Line-Fixed-Host` pinned the request.
    FixedHost,
    /// `X-Line-Fixed-Host` was invalid; the request was left unchanged.
    FixedHostInvalid,
    /// No business line owns the host; the request was left alone.
    Unmanaged,
    /// The kill switch is on: first line by priority.
    Downgrade,
    /// The pool's current line was kept.
    Sticky,
    /// The pool (re)ranked its lines and chose the best.
    Ranked,
    /// Ranking preferred another line but the switch guard kept the current one.
    Guarded,
    /// Every line's recent cost is over `timeout_ms`: first line by priority.
    AllSlowFallback,
    /// Every line's breaker is open: first line by priority.
    AllOpenFallback,
    /// A converged legacy host was rewritten onto its unified line.
    Merged,
    /// A converged legacy host is outside this install's gray bucket.
    MergeGrayOut,
    /// Every unified line is open: the original URL was kept.
    MergeFallbackOriginal,
    /// A retry within one call, excluding lines already tried.
    RetryExcluded,
    /// A half-open line admitted this request as its single trial.
    HalfOpenTrial,
    /// The current line answered slowly several times in a row and another line is known
    /// to be fast: traffic moved, even inside the switch interval.
    SlowSwitch,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 16] = [
        Reason::KeepOriginal,
        Reason::FixedHost,
        Reason::FixedHostInvalid,
        Reason::Unmanaged,
        Reason::Downgrade,
        Reason::Sticky,
        Reason::Ranked,
        Reason::Guarded,
        Reason::AllSlowFallback,
        Reason::AllOpenFallback,
        Reason::Merged,
        Reason::MergeGrayOut,
        Reason::MergeFallbackOriginal,
        Reason::RetryExcluded,
        Reason::HalfOpenTrial,
        Reason::SlowSwitch,
    ];

    /// The stable snake_case code.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::KeepOriginal => "keep_original",
            Reason::FixedHost => "fixed_host",
            Reason::FixedHostInvalid => "fixed_host_invalid",
            Reason::Unmanaged => "unmanaged",
            Reason::Downgrade => "downgrade",
            Reason::Sticky => "sticky",
            Reason::Ranked => "ranked",
            Reason::Guarded => "guarded",
            Reason::AllSlowFallback => "all_slow_fallback",
            Reason::AllOpenFallback => "all_open_fallback",
            Reason::Merged => "merged",
            Reason::MergeGrayOut => "merge_gray_out",
            Reason::MergeFallbackOriginal => "merge_fallback_original",
            Reason::RetryExcluded => "retry_excluded",
            Reason::HalfOpenTrial => "half_open_trial",
            Reason::SlowSwitch => "slow_switch",
        }
    }

    /// Whether the request URL was rewritten onto a line.
    pub fn is_rewrite(self) -> bool {
        !matches!(
            self,
            Reason::KeepOriginal
                | Reason::FixedHostInvalid
                | Reason::Unmanaged
                | Reason::MergeGrayOut
                | Reason::MergeFallbackOriginal
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_snake_case() {
        let codes: HashSet<_> = Reason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(codes.len(), Reason::ALL.len());
        assert!(codes
            .iter()
            .all(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
    }
}
