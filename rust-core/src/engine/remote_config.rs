//! The remote config channel: offering a document (from `update_config` or a fetch)
//! through the one acceptance rule ([`crate::config::accept::check_offer`]) and
//! publishing it, fetching `remote.urls` through the [`crate::transport::Transport`],
//! persisting the last good document, and keeping track of where the config came from.
//!
//! **Locks.** The publication lock (rank [`Rank::Update`], the first of the lock order) is
//! held for a whole offer, from acceptance to the trace event, so two offers cannot both
//! "win"; start-up takes it for its publication too. The channel's own state (rounds,
//! ETags, outcomes, expiry; rank [`Rank::Remote`]) is locked briefly and never across a
//! call out.
//!
//! **Rounds.** A round tries the URLs in order and stops at the first that answers with
//! something usable: a config that applies, `304 Not Modified` (the request carries
//! `If-None-Match` with that URL's last ETag), or a verified config of the very version in
//! force. A transport error, a timeout, a 5xx (any non-2xx), an oversize body or any
//! rejected document moves on to the next URL. Rounds happen once after start-up (the
//! start-up delay plus up to `jitter_s`), then every `interval_s` plus up to `jitter_s`, when
//! a network becomes validated and the last good round is older than `interval_s`, and on
//! [`super::LineKit::refresh_config`]. A failed round retries after [`FIRST_RETRY_MS`],
//! doubling per failure up to `interval_s`. The fetches go through the transport only:
//! never through the business client or the lines the config describes.
//!
//! **Expiry.** A config whose `expires_at` passes keeps routing (expiry blocks trust in
//! new data, not service): the engine reports `config_expired` (state and a trace event)
//! and starts a round at once.
//!
//! **Rejections never lose data.** A rejected document leaves the config in force and the
//! persisted last good config untouched; it is reported with its reason code in the
//! returned [`ConfigUpdate`], a trace event and the URL's `last_outcome`.
//!
//! **What is persisted.** An accepted document is saved with the chain of rotations that
//! leads to its trust from the app's own config (each accepted document that changed
//! `trust` is appended), so the next start can open it under the app's root of trust; and
//! the highest version accepted is saved in its own file and kept as the floor below which
//! no offer applies, whatever config is in force.

use super::lock_order::{Guard, Rank, Ranked};
use super::requests::Pending;
use super::routing::State;
use super::state::{ConfigFetch, ConfigState, SkippedSource};
use super::{ConfigUpdate, Inner, Publication};
use crate::config::accept::{check_offer, Verdict, MAX_CHAIN};
use crate::config::envelope::Rejection;
use crate::config::remote::RemoteConfig;
use crate::config::source::{ConfigSource, LastGoodStore};
use crate::config::trust::TrustConfig;
use crate::config::Config;
use crate::runtime::TimerId;
use crate::trace::reason::ConfigReason;
use crate::transport::{RequestKind, TransportError, TransportResult};
use std::collections::HashMap;
use std::sync::Arc;

/// Delay before the first retry of a failed round; it doubles per failure up to
/// `remote.interval_s`.
pub const FIRST_RETRY_MS: u64 = 30_000;

/// The remote channel: the publication lock, the fetch state and the last good store.
pub(super) struct RemoteChannel {
    /// Serialises publications.
    update: Ranked<()>,
    state: Ranked<RemoteState>,
    /// Where an accepted document is persisted (with a storage directory).
    last_good: Option<LastGoodStore>,
    /// Which source the start-up config came from.
    startup_source: ConfigSource,
}

impl RemoteChannel {
    /// A channel with no remote section yet (the first [`Self::apply`] brings it), for a
    /// start-up config from `source` after skipping `skipped`; `last_good` is the store
    /// and the chain of the start-up config, `floor` the version no offer may go below.
    pub(super) fn new(
        source: ConfigSource,
        skipped: Vec<(ConfigSource, String)>,
        last_good: Option<(LastGoodStore, Vec<String>)>,
        floor: u64,
        seed: u64,
        now: u64,
    ) -> Self {
        let (last_good, chain) = match last_good {
            Some((store, chain)) => (Some(store), chain),
            None => (None, Vec::new()),
        };
        let mut state = RemoteState::new(source, skipped, seed, now);
        state.chain = chain;
        state.floor = floor;
        RemoteChannel {
            update: Ranked::new(Rank::Update, ()),
            state: Ranked::new(Rank::Remote, state),
            last_good,
            startup_source: source,
        }
    }

    /// Takes the publication lock; [`Inner::publish`] asks for it.
    pub(super) fn serialise(&self) -> Guard<'_, ()> {
        self.update.lock()
    }

    /// Which source the start-up config came from.
    pub(super) fn startup_source(&self) -> ConfigSource {
        self.startup_source
    }

    /// Takes a config coming into force (routing has it already): an accepted document is
    /// persisted as the last good one (unless `persist` is false: the storage directory was
    /// cleared) and becomes the source, with a fresh expiry state. Returns whether a first
    /// fetch round is due: this config brings `remote.urls` to a channel that had none, and
    /// no round is scheduled or running.
    /// An accepted document that changes `trust` is appended to the chain, and its
    /// version raises the floor.
    pub(super) fn apply(&self, config: &Config, how: &Publication<'_>, persist: bool) -> bool {
        let has_remote = config.remote.as_ref().is_some_and(|r| !r.urls.is_empty());
        let trust = config.trust.clone().filter(TrustConfig::is_active);
        let (first, save) = {
            let mut st = self.state.lock();
            let save = match how {
                Publication::Startup => None,
                Publication::Accepted(text) => {
                    st.source = ConfigSource::Remote;
                    st.expired = false;
                    if trust != st.trust {
                        st.chain.push(text.to_string());
                        let excess = st.chain.len().saturating_sub(MAX_CHAIN);
                        st.chain.drain(..excess);
                    }
                    let raised = (config.version > st.floor).then_some(config.version);
                    st.floor = st.floor.max(config.version);
                    Some((text, st.chain.clone(), raised))
                }
            };
            st.trust = trust;
            let first = has_remote && !st.configured && st.timer.is_none() && st.round.is_none();
            st.configured = has_remote;
            (first, save)
        };
        let store = self.last_good.as_ref().filter(|_| persist);
        if let (Some((text, chain, raised)), Some(store)) = (save, store) {
            if let Err(e) = store.save(text, &chain) {
                log::warn!("linekit: could not persist the applied config: {e}");
            }
            if let Some(version) = raised {
                if let Err(e) = store.save_floor(version) {
                    log::warn!("linekit: could not persist the highest accepted version: {e}");
                }
            }
        }
        first
    }
}

/// Where the config in force came from and how the fetches went.
struct RemoteState {
    /// Source of the config in force.
    source: ConfigSource,
    /// The config in force has `remote.urls`.
    configured: bool,
    /// Sources skipped at start-up, with why.
    skipped: Vec<(ConfigSource, String)>,
    /// The config in force is past its `expires_at`.
    expired: bool,
    rng: fastrand::Rng,
    /// The next scheduled round.
    timer: Option<TimerId>,
    /// The expiry check of the config in force.
    expiry_timer: Option<TimerId>,
    round: Option<Round>,
    next_round_id: u64,
    /// Consecutive failed rounds.
    failures: u32,
    /// When the state started (monotonic), standing in for a success before the first.
    started_at: u64,
    /// When the last round succeeded (monotonic).
    last_success_at: Option<u64>,
    /// Last ETag per URL.
    etags: HashMap<String, String>,
    /// Last outcome per URL, in `remote.urls` order of the round that set it.
    outcomes: Vec<(String, String)>,
    /// The trust of the config in force (only when it lists keys).
    trust: Option<TrustConfig>,
    /// The rotations from the app's own trust to `trust`.
    chain: Vec<String>,
    /// The highest version accepted: no offer below it applies.
    floor: u64,
}

struct Round {
    id: u64,
    urls: Vec<String>,
    index: usize,
}

impl RemoteState {
    fn new(
        source: ConfigSource,
        skipped: Vec<(ConfigSource, String)>,
        seed: u64,
        now: u64,
    ) -> Self {
        RemoteState {
            source,
            configured: false,
            skipped,
            expired: false,
            rng: fastrand::Rng::with_seed(seed ^ 0x5eed_c0f1_u64),
            timer: None,
            expiry_timer: None,
            round: None,
            next_round_id: 1,
            failures: 0,
            started_at: now,
            last_success_at: None,
            etags: HashMap::new(),
            outcomes: Vec::new(),
            trust: None,
            chain: Vec::new(),
            floor: 0,
        }
    }

    fn set_outcome(&mut self, url: &str, outcome: String) {
        match self.outcomes.iter_mut().find(|(u, _)| u == url) {
            Some(slot) => slot.1 = outcome,
            None => self.outcomes.push((url.to_string(), outcome)),
        }
    }

    fn jitter(&mut self, max_ms: u64) -> u64 {
        if max_ms == 0 {
            0
        } else {
            self.rng.u64(0..=max_ms)
        }
    }
}

/// What happened to one document offered to the engine.
enum Offer {
    Applied,
    /// A verified config of the version in force: the server is up to date.
    Unchanged,
    Rejected(Rejection),
}

fn remote_of(inner: &Inner) -> Option<RemoteConfig> {
    inner
        .routing
        .load()
        .topology
        .config
        .remote
        .clone()
        .filter(|r| !r.urls.is_empty())
}

impl Inner {
    fn wall_now_s(&self) -> u64 {
        self.clock.wall_ms() / 1_000
    }

    /// After a publication: schedules the first round when it is due (`delay_ms` plus up
    /// to `jitter_s` from now, once consent allows) and arms the expiry check of the config
    /// now in force.
    pub(super) fn start_fetching(self: &Arc<Self>, first_round: bool, delay_ms: u64) {
        if first_round && self.requests.has_transport() && self.consented() {
            if let Some(remote) = remote_of(self) {
                let delay = {
                    let mut st = self.remote.state.lock();
                    delay_ms.saturating_add(st.jitter(remote.jitter_s.saturating_mul(1_000)))
                };
                self.schedule_round(delay);
            }
        }
        self.watch_expiry();
    }

    /// Consent was granted: schedules a first round (the start-up delay plus jitter) unless
    /// one is scheduled or running.
    pub(super) fn resume_remote(self: &Arc<Self>) {
        if !self.requests.has_transport() || !self.consented() {
            return;
        }
        let Some(remote) = remote_of(self) else {
            return;
        };
        let delay = {
            let mut st = self.remote.state.lock();
            if st.timer.is_some() || st.round.is_some() {
                return;
            }
            let startup = self
                .routing
                .load()
                .topology
                .config
                .thresholds
                .startup_detect_delay_ms;
            startup.saturating_add(st.jitter(remote.jitter_s.saturating_mul(1_000)))
        };
        self.schedule_round(delay);
    }

    /// A fetch of round `round` was not sent (consent missing): the round ends without
    /// counting as a failure; the next one starts when consent is granted.
    pub(super) fn release_round(&self, round: u64) {
        let mut st = self.remote.state.lock();
        if st.round.as_ref().is_some_and(|r| r.id == round) {
            st.round = None;
        }
    }

    /// Offers a remote document; applies it when it passes every check.
    pub(super) fn offer_config(self: &Arc<Self>, text: &str) -> ConfigUpdate {
        let (update, _) = self.offer(text, None);
        update
    }

    fn offer(self: &Arc<Self>, text: &str, url_index: Option<usize>) -> (ConfigUpdate, Offer) {
        let serial = self.remote.serialise();
        let current = self.routing.load();
        let version = current.topology.config.version;
        let floor = self.remote.state.lock().floor;
        let checked = check_offer(text, &current.topology.config, floor, self.wall_now_s());
        let offer = match checked {
            Verdict::Accepted(accepted) => {
                match State::build(
                    Arc::new(accepted.config),
                    self.seed,
                    Some(&current.topology),
                ) {
                    Ok(state) => {
                        drop(current);
                        let first_round = self.publish(&serial, state, Publication::Accepted(text));
                        self.start_fetching(first_round, 0);
                        Offer::Applied
                    }
                    Err(e) => Offer::Rejected(Rejection::new(ConfigReason::Invalid, e.to_string())),
                }
            }
            Verdict::InForce(_) => Offer::Unchanged,
            Verdict::Rejected(r) => Offer::Rejected(r),
        };
        let new_version = self.routing.load().topology.config.version;
        let update = match &offer {
            Offer::Applied => ConfigUpdate {
                applied: true,
                version: new_version,
                error: None,
            },
            Offer::Unchanged => ConfigUpdate {
                applied: false,
                version,
                error: Some(format!(
                    "{}: version {version} is already in force",
                    ConfigReason::NotNewer
                )),
            },
            Offer::Rejected(r) => ConfigUpdate {
                applied: false,
                version,
                error: Some(r.to_string()),
            },
        };
        let via = match url_index {
            Some(i) => format!(" (remote.urls[{i}])"),
            None => String::new(),
        };
        let reason = match &offer {
            Offer::Applied => None,
            Offer::Unchanged => Some(ConfigReason::NotNewer.as_str()),
            Offer::Rejected(r) => Some(r.reason.as_str()),
        };
        self.emit_config(
            reason,
            match &update.error {
                None => format!("applied version {}{via}", update.version),
                Some(e) => format!("rejected: {e}{via}"),
            },
        );
        (update, offer)
    }

    /// Arms the expiry check of the config in force (or reports it expired now).
    fn watch_expiry(self: &Arc<Self>) {
        let Some(expires_at) = self.routing.load().topology.config.expires_at else {
            return;
        };
        let wall = self.clock.wall_ms();
        let at_ms = expires_at.saturating_mul(1_000);
        if at_ms <= wall {
            self.config_expired();
            return;
        }
        let task = self.task(|inner| inner.watch_expiry());
        let timer = self.runtime.schedule_in(at_ms - wall, task);
        let old = std::mem::replace(&mut self.remote.state.lock().expiry_timer, timer);
        if let Some(old) = old {
            self.runtime.cancel(old);
        }
    }

    /// The config in force passed `expires_at`: keep routing with it, say so, fetch now.
    fn config_expired(self: &Arc<Self>) {
        {
            let mut st = self.remote.state.lock();
            if st.expired {
                return;
            }
            st.expired = true;
        }
        log::warn!("linekit: the config in force has expired; fetching a new one");
        self.emit_config(
            Some("config_expired"),
            format!(
                "version {} expired; still routing with it",
                self.routing.load().topology.config.version
            ),
        );
        self.start_round_now();
    }

    /// A network just became validated: fetch if the last good round is older than
    /// `interval_s`.
    pub(super) fn remote_on_network_validated(self: &Arc<Self>) {
        let Some(remote) = remote_of(self) else {
            return;
        };
        let now = self.clock.now_ms();
        let stale = {
            let st = self.remote.state.lock();
            let since = st.last_success_at.unwrap_or(st.started_at);
            st.round.is_none()
                && now.saturating_sub(since) >= remote.interval_s.saturating_mul(1_000)
        };
        if stale {
            self.start_round_now();
        }
    }

    /// Starts a round at once unless one is running. Returns whether one runs now.
    pub(super) fn start_round_now(self: &Arc<Self>) -> bool {
        if !self.requests.has_transport()
            || !self.is_open()
            || !self.consented()
            || remote_of(self).is_none()
        {
            return false;
        }
        let timer = {
            let mut st = self.remote.state.lock();
            if st.round.is_some() {
                return true;
            }
            st.timer.take()
        };
        if let Some(t) = timer {
            self.runtime.cancel(t);
        }
        self.begin_round();
        true
    }

    fn schedule_round(self: &Arc<Self>, delay_ms: u64) {
        let task = self.task(|inner| {
            inner.remote.state.lock().timer = None;
            inner.begin_round();
        });
        let timer = self.runtime.schedule_in(delay_ms, task);
        let old = std::mem::replace(&mut self.remote.state.lock().timer, timer);
        if let Some(old) = old {
            self.runtime.cancel(old);
        }
    }

    fn begin_round(self: &Arc<Self>) {
        let Some(remote) = remote_of(self).filter(|_| self.consented()) else {
            return;
        };
        let id = {
            let mut st = self.remote.state.lock();
            if st.round.is_some() {
                return;
            }
            let id = st.next_round_id;
            st.next_round_id += 1;
            st.round = Some(Round {
                id,
                urls: remote.urls.clone(),
                index: 0,
            });
            id
        };
        self.fetch_current(id, remote.timeout_ms);
    }

    /// Starts the fetch of the round's current URL.
    fn fetch_current(self: &Arc<Self>, round: u64, timeout_ms: u64) {
        let (url, index, etag) = {
            let st = self.remote.state.lock();
            let Some(r) = st.round.as_ref().filter(|r| r.id == round) else {
                return;
            };
            let url = r.urls[r.index].clone();
            let etag = st.etags.get(&url).cloned();
            (url, r.index, etag)
        };
        let headers = etag
            .map(|e| vec![("If-None-Match".to_string(), e)])
            .unwrap_or_default();
        self.start_request(
            RequestKind::Config,
            "GET",
            url,
            headers,
            timeout_ms,
            Pending::Config { round, index },
        );
    }

    /// A config fetch finished.
    pub(super) fn finish_config_fetch(
        self: &Arc<Self>,
        round: u64,
        index: usize,
        result: TransportResult,
    ) {
        let url = {
            let st = self.remote.state.lock();
            match st.round.as_ref() {
                Some(r) if r.id == round && r.index == index => r.urls[index].clone(),
                _ => return,
            }
        };
        let etag = result.header("ETag").map(str::to_string);
        let (outcome, done) = match result {
            TransportResult::Failed(TransportError::TooLarge) => {
                (ConfigReason::Oversize.as_str().to_string(), false)
            }
            TransportResult::Failed(e) => (e.outcome().as_str().to_string(), false),
            TransportResult::Response { status: 304, .. } => ("not_modified".to_string(), true),
            TransportResult::Response { status, .. } if !(200..300).contains(&status) => {
                (format!("http_{status}"), false)
            }
            TransportResult::Response { body, .. } => {
                let offer = if body.len() > RequestKind::Config.max_body_bytes() {
                    Err(Rejection::new(
                        ConfigReason::Oversize,
                        format!("body is {} bytes", body.len()),
                    ))
                } else {
                    String::from_utf8(body)
                        .map_err(|_| Rejection::new(ConfigReason::Malformed, "body is not UTF-8"))
                };
                let offered = match offer {
                    Ok(text) => self.offer(&text, Some(index)).1,
                    Err(r) => {
                        self.emit_config(
                            Some(r.reason.as_str()),
                            format!("rejected: {r} (remote.urls[{index}])"),
                        );
                        Offer::Rejected(r)
                    }
                };
                match offered {
                    Offer::Applied | Offer::Unchanged => {
                        if let Some(e) = &etag {
                            self.remote
                                .state
                                .lock()
                                .etags
                                .insert(url.clone(), e.clone());
                        }
                        let status = if matches!(offered, Offer::Applied) {
                            "applied"
                        } else {
                            "unchanged"
                        };
                        (status.to_string(), true)
                    }
                    Offer::Rejected(r) => (r.reason.as_str().to_string(), false),
                }
            }
        };
        if !matches!(outcome.as_str(), "applied" | "unchanged") && !done {
            self.emit_config(
                None,
                format!("fetch of remote.urls[{index}] failed: {outcome}"),
            );
        }
        let next = {
            let mut st = self.remote.state.lock();
            st.set_outcome(&url, outcome);
            let Some(r) = st.round.as_mut() else {
                return;
            };
            if done || r.index + 1 >= r.urls.len() {
                st.round = None;
                None
            } else {
                r.index += 1;
                Some(r.id)
            }
        };
        // The config may have just been replaced: use the one in force now.
        let remote = remote_of(self).unwrap_or_default();
        match next {
            Some(round) => self.fetch_current(round, remote.timeout_ms),
            None => self.end_round(done, &remote),
        }
    }

    fn end_round(self: &Arc<Self>, success: bool, remote: &RemoteConfig) {
        if remote.urls.is_empty() {
            return;
        }
        let interval = remote.interval_s.saturating_mul(1_000);
        let jitter = remote.jitter_s.saturating_mul(1_000);
        let delay = {
            let mut st = self.remote.state.lock();
            if success {
                st.failures = 0;
                st.last_success_at = Some(self.clock.now_ms());
                interval.saturating_add(st.jitter(jitter))
            } else {
                st.failures = st.failures.saturating_add(1);
                let shift = (st.failures - 1).min(32);
                let backoff = FIRST_RETRY_MS.saturating_mul(1 << shift).min(interval);
                backoff.saturating_add(st.jitter(jitter.min(backoff / 2)))
            }
        };
        self.schedule_round(delay);
    }

    /// The `config` part of the state: source, version, expiry and the fetches.
    pub(super) fn config_state(&self) -> ConfigState {
        let config = self.routing.config();
        let st = self.remote.state.lock();
        ConfigState {
            source: st.source.as_str().to_string(),
            version: config.version,
            expires_at: config.expires_at,
            expired: st.expired,
            status: if st.expired { "config_expired" } else { "ok" }.to_string(),
            skipped: st
                .skipped
                .iter()
                .map(|(s, why)| SkippedSource {
                    source: s.as_str().to_string(),
                    reason: why.clone(),
                })
                .collect(),
            fetch: st
                .outcomes
                .iter()
                .map(|(url, outcome)| ConfigFetch {
                    url: crate::trace::redact_url(url),
                    last_outcome: outcome.clone(),
                })
                .collect(),
        }
    }

    /// Whether the config in force is past its `expires_at`.
    pub(super) fn is_config_expired(&self) -> bool {
        self.remote.state.lock().expired
    }
}
