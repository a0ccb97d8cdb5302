//! The `remote` section: where the engine fetches its own config, and how often.
//!
//! URLs are tried in order within one round; a round happens after start-up, then every
//! `interval_s` plus up to `jitter_s` of random delay (so a fleet that starts together
//! spreads its fetches), and on demand. The section's rules live here so every field of it
//! has one place that says what is valid.

use super::decode::Decode;
use super::limits::{above, MAX_DEADLINE_MS, MAX_INTERVAL_S, MAX_URLS, MIN_INTERVAL_S};
use super::rules::{provider_url, Findings};
use serde::{Deserialize, Serialize};
use smart_default::SmartDefault;

/// Where and how often the remote config is fetched.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, SmartDefault, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RemoteConfig {
    /// Config URLs, tried in order within one round.
    pub urls: Vec<String>,
    /// Time between two rounds.
    #[default(1_800)]
    #[cfg_attr(feature = "schema", schemars(range(min = MIN_INTERVAL_S, max = MAX_INTERVAL_S)))]
    pub interval_s: u64,
    /// Upper bound of the random delay added to every round.
    #[default(300)]
    #[cfg_attr(feature = "schema", schemars(range(max = MAX_INTERVAL_S)))]
    pub jitter_s: u64,
    /// Deadline of one fetch.
    #[default(5_000)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = MAX_DEADLINE_MS)))]
    pub timeout_ms: u64,
}

/// Shows the URLs redacted ([`crate::trace::redact_url`]): a query may carry a token.
impl std::fmt::Debug for RemoteConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let urls: Vec<String> = self
            .urls
            .iter()
            .map(|u| crate::trace::redact_url(u))
            .collect();
        f.debug_struct("RemoteConfig")
            .field("urls", &urls)
            .field("interval_s", &self.interval_s)
            .field("jitter_s", &self.jitter_s)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// The semantic rules of `remote` (shapes were checked by the decoder).
pub(crate) fn check(remote: &RemoteConfig, allow_cleartext: bool, f: &mut Findings) {
    if remote.urls.is_empty() && !f.dirty("remote.urls") {
        f.rule("remote.urls", "list at least one URL or omit `remote`");
    }
    if remote.urls.len() > MAX_URLS {
        f.rule("remote.urls", format!("at most {MAX_URLS} URLs"));
    }
    for (i, url) in remote.urls.iter().enumerate() {
        let path = format!("remote.urls[{i}]");
        if let Err(why) = provider_url(url, allow_cleartext) {
            f.rule(&path, why);
        }
    }
    if remote.interval_s < MIN_INTERVAL_S {
        f.rule(
            "remote.interval_s",
            format!("must be at least {MIN_INTERVAL_S}"),
        );
    } else if remote.interval_s > MAX_INTERVAL_S {
        f.rule("remote.interval_s", above(MAX_INTERVAL_S));
    }
    if remote.jitter_s > remote.interval_s {
        f.rule("remote.jitter_s", "must not exceed interval_s");
    }
    if remote.timeout_ms == 0 {
        f.rule("remote.timeout_ms", "must be greater than 0");
    } else if remote.timeout_ms > MAX_DEADLINE_MS {
        f.rule("remote.timeout_ms", above(MAX_DEADLINE_MS));
    }
}
