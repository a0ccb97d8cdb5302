//! The HTTPDNS service: the [`DnsCache`] the data plane reads, the network monitor it is
//! keyed by, and automatic refresh (`docs/architecture.md#httpdns-refresh`). Two locks:
//! the network monitor (rank [`Rank::Network`]; the cache's own writer lock is taken under
//! it) and the refresh bookkeeping (rank [`Rank::Refresh`], never held across a call out).
//!
//! The data plane ([`crate::engine::LineKit::lookup`]) only reads the [`DnsCache`]
//! snapshot. When the answer says a refresh is due (a miss for an HTTPDNS host, or a
//! record past `refresh_at`) it puts `(host, network key)` into the [`Refresher`]'s
//! coalescing set under a short lock and, if no drain is pending, schedules one on the
//! runtime; it never waits for anything else. Start-up and a network becoming validated
//! do the same for `httpdns.pre_resolve`.
//!
//! The drain (a runtime task) turns queued pairs into rounds and starts one transport
//! request per round (`RequestKind::HttpDns`, deadline `thresholds.timeout_ms`). The DoH
//! formats ask `A` then `AAAA` on the same provider and insert the merged answer; a
//! failure of either query fails the provider for the round (no half answer is stored).
//!
//! An answer is parsed with the hosts that were asked for and inserted only while the
//! network key it was requested on (handle *and* generation) is still current — checked
//! under the network monitor's lock, which is also held while a network change is
//! published, so no answer can slip onto a newer network. Failures (transport errors,
//! timeouts, non-2xx, parse errors, wrong host, error codes, no usable address) back the
//! provider off and fail over to the next provider for the same hosts, each provider at
//! most once per round; failovers start from a runtime task (never re-entrantly from a
//! completion). NXDOMAIN holds the host off for `min_ttl_s`. The existing record is never
//! touched by a failure and keeps being served until it expires.
//!
//! Logs name provider ids, counts and redacted host groups only: never URLs, host lists or
//! payloads.

use super::lock_order::{Rank, Ranked};
use super::requests::Pending;
use super::Inner;
use crate::config::model::HttpDnsConfig;
use crate::config::Config;
use crate::dns::policy::normalize_host;
use crate::dns::providers::aliyun;
use crate::dns::providers::auth::decode_answer;
use crate::dns::providers::{HostAnswer, ProviderError as PE};
use crate::dns::refresh::{Enqueue, Refresher, Round, Stage};
use crate::dns::{DnsCache, DnsSettings, InsertError};
use crate::line::endpoint::is_valid_hostname;
use crate::net::{HttpDnsBypass, NetworkMonitor, NetworkState};
use crate::trace::redact::host_group;
use crate::transport::{RequestKind, TransportResult};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The HTTPDNS cache, the network it is keyed by, and its refresh.
pub(super) struct HttpDns {
    network: Ranked<NetworkMonitor>,
    /// Whether the default network is validated, or none was ever reported (a plain JVM):
    /// read without the monitor's lock, under a pool's.
    validated: AtomicBool,
    cache: DnsCache,
    refresh: Ranked<Refresher>,
}

/// What a network report changed.
pub(super) struct NetworkChange {
    /// The network is validated now, and was not (or is another network).
    pub(super) became_validated: bool,
    /// HTTPDNS is usable now, and was not (or this is another network).
    pub(super) httpdns_usable: bool,
}

impl HttpDns {
    /// An empty cache on no network (its jitter from the install `seed`); its settings and
    /// providers come from the first [`Self::apply`].
    pub(super) fn new(seed: u64) -> Self {
        HttpDns {
            network: Ranked::new(Rank::Network, NetworkMonitor::new()),
            validated: AtomicBool::new(true),
            cache: DnsCache::new(DnsSettings::default(), seed),
            refresh: Ranked::new(Rank::Refresh, Refresher::default()),
        }
    }

    /// Takes the config's `httpdns` section: the cache's settings (records of hosts that
    /// left `hosts` are dropped) and the providers (a kept provider keeps its back-off).
    pub(super) fn apply(&self, config: &Config) {
        self.cache.set_settings(dns_settings(&config.httpdns));
        self.refresh.lock().set_providers(&config.httpdns);
    }

    /// The cache (its own writer lock ranks below every engine lock).
    #[inline]
    pub(super) fn cache(&self) -> &DnsCache {
        &self.cache
    }

    /// Records a network report and publishes its key to the cache, under the monitor lock:
    /// HTTPDNS answers check the network key under the same lock before they are inserted.
    pub(super) fn network_changed(&self, network: NetworkState) -> NetworkChange {
        let mut monitor = self.network.lock();
        let before = monitor.state().clone();
        let bypass_before = monitor.current().1;
        monitor.on_network_changed(network.clone());
        self.validated
            .store(network.handle != 0 && network.validated, Ordering::Release);
        let (key, bypass) = monitor.current();
        self.cache.set_network(key, bypass);
        NetworkChange {
            became_validated: network.validated
                && (!before.validated || before.handle != network.handle),
            // Validated now, and HTTPDNS was unusable before (not validated, VPN, strict
            // Private DNS, proxy) or this is another network.
            httpdns_usable: bypass.is_none()
                && (bypass_before.is_some() || before.handle != network.handle),
        }
    }

    /// Whether the default network is validated (true until the platform reports one: a
    /// JVM without a network callback has nothing to wait for). No lock.
    #[inline]
    pub(super) fn validated(&self) -> bool {
        self.validated.load(Ordering::Acquire)
    }

    /// The last network the platform reported, whether it reported any, and why HTTPDNS is
    /// bypassed on it.
    pub(super) fn network(&self) -> (NetworkState, bool, Option<HttpDnsBypass>) {
        let monitor = self.network.lock();
        let (key, bypass) = monitor.current();
        (monitor.state().clone(), key.generation() > 0, bypass)
    }
}

/// Cache settings from the `httpdns` section (invalid host patterns are logged, by count).
fn dns_settings(config: &HttpDnsConfig) -> DnsSettings {
    let (settings, invalid) = DnsSettings::from_config(config);
    if !invalid.is_empty() {
        log::warn!(
            "linekit: {} httpdns host pattern(s) ignored as invalid",
            invalid.len()
        );
    }
    settings
}

/// One HTTPDNS record of the current network, for state dumps (no payloads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DnsRecordState {
    /// Host name (normalized).
    pub host: String,
    /// Addresses in the order served (before quarantine).
    pub addresses: Vec<String>,
    /// Id of the provider that answered.
    pub provider: String,
    /// Effective TTL in seconds.
    pub ttl_s: u64,
    /// Milliseconds until a refresh is due (0 when due).
    pub refresh_in_ms: u64,
    /// Milliseconds until the record stops being served (0 when expired).
    pub expires_in_ms: u64,
}

/// An HTTPDNS query in flight.
#[derive(Debug)]
pub(super) struct DnsQuery {
    round: Round,
    provider: Arc<str>,
    stage: Stage,
    /// The `A` answers while the `AAAA` query of a DoH provider runs.
    partial: Vec<HostAnswer>,
}

impl Inner {
    /// A lookup (or pre-resolve) found `host` due for a refresh: queue it (coalesced) and
    /// make sure a drain is scheduled. Cheap and non-blocking.
    pub(super) fn request_refresh(self: &Arc<Self>, host: &str, now: u64) {
        if !self.requests.has_transport() || !self.is_open() || !self.consented() {
            return;
        }
        let host = normalize_host(host);
        if !is_valid_hostname(&host) {
            return;
        }
        let (network, bypass) = self.httpdns.cache.network();
        if bypass.is_some() {
            return;
        }
        let outcome = self.httpdns.refresh.lock().enqueue(&host, network, now);
        match outcome {
            Enqueue::Queued { tick: true } => {
                self.runtime
                    .schedule_at(now, self.task(|inner| inner.refresh_tick()));
            }
            Enqueue::Full => log::warn!(
                "linekit: httpdns refresh of {} dropped: too many refreshes active",
                host_group(&host)
            ),
            Enqueue::Queued { tick: false }
            | Enqueue::Coalesced
            | Enqueue::Held(_)
            | Enqueue::NoProvider => {}
        }
    }

    /// Queues a refresh of every `httpdns.pre_resolve` host that has no fresh record on the
    /// current network (patterns are skipped).
    pub(super) fn pre_resolve(self: &Arc<Self>) {
        if !self.requests.has_transport() || !self.consented() {
            return;
        }
        let now = self.clock.now_ms();
        let config = self.routing.load().topology.config.clone();
        for host in &config.httpdns.pre_resolve {
            if host.starts_with('*') {
                continue;
            }
            if self.httpdns.cache.lookup(host, now).refresh_due {
                self.request_refresh(host, now);
            }
        }
    }

    /// The drain: starts a round for every queued pair of the current network.
    fn refresh_tick(self: &Arc<Self>) {
        let now = self.clock.now_ms();
        let (network, bypass) = self.httpdns.cache.network();
        let rounds = self
            .httpdns
            .refresh
            .lock()
            .drain(network, bypass.is_some(), now);
        for (round, index) in rounds {
            self.start_query(round, index, None, Vec::new());
        }
    }

    /// Starts `round` on provider `index` at `stage` (its format's first stage if `None`).
    fn start_query(
        self: &Arc<Self>,
        mut round: Round,
        index: usize,
        stage: Option<Stage>,
        partial: Vec<HostAnswer>,
    ) {
        let provider = self.httpdns.refresh.lock().providers().get(index).cloned();
        let Some(provider) = provider else {
            self.httpdns
                .refresh
                .lock()
                .finished(&round.hosts, round.network);
            return;
        };
        let stage = stage.unwrap_or_else(|| Stage::first(provider.format));
        if !round.tried.contains(&provider.id) {
            round.tried.push(provider.id.clone());
        }
        let wall = self.clock.wall_ms();
        let query = self
            .httpdns
            .refresh
            .lock()
            .query_for(index, &round.hosts, stage, wall);
        let Some(query) = query else {
            log::warn!(
                "linekit: httpdns provider {} skipped: cannot build a {} query",
                provider.id,
                provider.format
            );
            self.fail_over(round, self.clock.now_ms());
            return;
        };
        let timeout = self.routing.load().topology.config.thresholds.timeout_ms;
        self.start_request(
            RequestKind::HttpDns,
            query.method,
            query.url,
            query.headers,
            timeout,
            Pending::HttpDns(DnsQuery {
                round,
                provider: provider.id,
                stage,
                partial,
            }),
        );
    }

    /// A query that was not sent (consent missing): its hosts may be queued again.
    pub(super) fn release_query(&self, query: DnsQuery) {
        self.httpdns
            .refresh
            .lock()
            .finished(&query.round.hosts, query.round.network);
    }

    /// Starts `round` (or its per-host pieces) on the next untried provider from a runtime
    /// task; when none is left the hosts are held off until a provider recovers.
    fn fail_over(self: &Arc<Self>, round: Round, now: u64) {
        let next = self.httpdns.refresh.lock().pick(&round.tried, now);
        let Some(index) = next else {
            let n = round.hosts.len();
            let until =
                self.httpdns
                    .refresh
                    .lock()
                    .failed_everywhere(&round.hosts, round.network, now);
            log::warn!(
                "linekit: httpdns refresh of {n} host(s) failed on every provider; retry after {} ms",
                until.saturating_sub(now)
            );
            return;
        };
        let pieces = self.httpdns.refresh.lock().split_for(round, index);
        for piece in pieces {
            self.later(move |inner| inner.start_query(piece, index, None, Vec::new()));
        }
    }

    /// Runs `f` from a runtime task as soon as possible (never re-entrantly).
    fn later(self: &Arc<Self>, f: impl FnOnce(&Arc<Inner>) + Send + 'static) {
        let now = self.clock.now_ms();
        self.runtime.schedule_at(now, self.task(f));
    }

    /// An HTTPDNS query finished (answer, error or deadline).
    pub(super) fn finish_httpdns(self: &Arc<Self>, q: DnsQuery, result: TransportResult) {
        let now = self.clock.now_ms();
        let network = q.round.network;
        let lookup = self.httpdns.refresh.lock().provider_index(&q.provider);
        let Some(index) = lookup else {
            // The provider left the config meanwhile: the round ends here.
            self.httpdns
                .refresh
                .lock()
                .finished(&q.round.hosts, network);
            return;
        };
        let (format, auth) = {
            let r = self.httpdns.refresh.lock();
            let p = &r.providers()[index];
            (p.format, p.auth.clone())
        };
        if self.httpdns.cache.network().0 != network {
            self.drop_stale(&q);
            return;
        }
        let body = match result {
            TransportResult::Response { status, body, .. } if (200..300).contains(&status) => body,
            TransportResult::Response { status, body, .. } => {
                // A refused signature (403 SignatureExpired / InvalidSignature) is a
                // provider failure like any other: it backs off, never retried in a loop.
                let why = match aliyun::error_code_of(&body) {
                    Some(code) => format!("HTTP {status} ({code})"),
                    None => format!("HTTP {status}"),
                };
                return self.query_failed(q, index, &why, now);
            }
            TransportResult::Failed(e) => return self.query_failed(q, index, &e.to_string(), now),
        };
        let hosts: Vec<&str> = q.round.hosts.iter().map(|h| &**h).collect();
        let parsed = decode_answer(auth.as_deref(), &body).and_then(|b| format.parse(&hosts, &b));
        drop(body);
        let answers = match (q.stage, parsed) {
            (_, Err(PE::NxDomain)) => {
                let min_ttl_s = self.routing.load().topology.config.httpdns.min_ttl_s;
                let until = now.saturating_add(min_ttl_s.saturating_mul(1_000));
                let mut r = self.httpdns.refresh.lock();
                r.provider_succeeded(index);
                for h in &q.round.hosts {
                    r.nxdomain(h, network, until, now);
                }
                drop(r);
                log::info!(
                    "linekit: httpdns provider {} says {} does not exist; not asking again for {min_ttl_s} s",
                    q.provider,
                    describe_hosts(&q.round.hosts)
                );
                return;
            }
            (Stage::A, first) => {
                let partial = match first {
                    Ok(a) => a,
                    Err(PE::NoAddresses) => Vec::new(),
                    Err(e) => return self.query_failed(q, index, &e.to_string(), now),
                };
                let DnsQuery { round, .. } = q;
                self.later(move |inner| {
                    inner.start_query(round, index, Some(Stage::Aaaa), partial)
                });
                return;
            }
            (Stage::Aaaa, Err(PE::NoAddresses)) if !q.partial.is_empty() => Vec::new(),
            (_, Ok(a)) => a,
            (_, Err(e)) => return self.query_failed(q, index, &e.to_string(), now),
        };
        self.store_answers(q, index, answers, now);
    }

    /// Inserts the answers of a successful query (under the network lock, so the network
    /// cannot change in between) and fails over for hosts left without a record.
    fn store_answers(
        self: &Arc<Self>,
        q: DnsQuery,
        index: usize,
        answers: Vec<HostAnswer>,
        now: u64,
    ) {
        let DnsQuery {
            round,
            provider,
            partial,
            ..
        } = q;
        let mut merged: Vec<HostAnswer> = partial;
        for a in answers {
            match merged.iter_mut().find(|m| m.host == a.host) {
                Some(m) => {
                    for ip in a.addrs() {
                        m.push(ip);
                    }
                    m.ttl_s = min_ttl(m.ttl_s, a.ttl_s);
                }
                None => merged.push(a),
            }
        }
        let wall = self.clock.wall_ms();
        let mut stored: Vec<Arc<str>> = Vec::new();
        let mut missing: Vec<Arc<str>> = Vec::new();
        {
            let monitor = self.httpdns.network.lock();
            if self.httpdns.cache.network().0 != round.network {
                drop(monitor);
                let q = DnsQuery {
                    round,
                    provider,
                    stage: Stage::Both,
                    partial: Vec::new(),
                };
                self.drop_stale(&q);
                return;
            }
            for host in &round.hosts {
                let Some(answer) = merged.iter().find(|a| *a.host == **host) else {
                    missing.push(host.clone());
                    continue;
                };
                match self
                    .httpdns
                    .cache
                    .insert(round.network, &provider, answer, now, wall)
                {
                    Ok(inserted) => {
                        if !inserted.rejected.is_empty() {
                            log::info!(
                                "linekit: httpdns provider {provider}: {} address(es) of {} refused by the address policy",
                                inserted.rejected.len(),
                                host_group(host)
                            );
                        }
                        stored.push(host.clone());
                    }
                    Err(InsertError::NotHttpDnsHost) => stored.push(host.clone()),
                    Err(e @ InsertError::NoUsableAddresses(_)) => {
                        log::warn!(
                            "linekit: httpdns provider {provider}: answer for {} not stored: {e}",
                            host_group(host)
                        );
                        missing.push(host.clone());
                    }
                }
            }
            drop(monitor);
        }
        if !stored.is_empty() {
            self.mark_dirty();
        }
        let mut r = self.httpdns.refresh.lock();
        if stored.is_empty() {
            r.provider_failed(index, now);
        } else {
            r.provider_succeeded(index);
        }
        r.finished(&stored, round.network);
        drop(r);
        if !missing.is_empty() {
            log::warn!(
                "linekit: httpdns provider {provider} gave no usable answer for {}",
                describe_hosts(&missing)
            );
            self.fail_over(
                Round {
                    hosts: missing,
                    network: round.network,
                    tried: round.tried,
                },
                now,
            );
        }
    }

    /// A query failed: the provider backs off and the round fails over.
    fn query_failed(self: &Arc<Self>, q: DnsQuery, index: usize, why: &str, now: u64) {
        self.httpdns.refresh.lock().provider_failed(index, now);
        log::warn!(
            "linekit: httpdns provider {} failed for {}: {why}",
            q.provider,
            describe_hosts(&q.round.hosts)
        );
        self.fail_over(q.round, now);
    }

    /// An answer for a network that is no longer current: dropped, round ended.
    fn drop_stale(&self, q: &DnsQuery) {
        self.httpdns
            .refresh
            .lock()
            .finished(&q.round.hosts, q.round.network);
        log::info!(
            "linekit: httpdns answer from provider {} for {} dropped: the network changed",
            q.provider,
            describe_hosts(&q.round.hosts)
        );
    }

    /// The current network's records, for state dumps.
    pub(super) fn dns_records(&self) -> Vec<DnsRecordState> {
        let now = self.clock.now_ms();
        self.httpdns
            .cache
            .records()
            .into_iter()
            .map(|(host, r)| DnsRecordState {
                host,
                addresses: r.addrs.iter().map(ToString::to_string).collect(),
                provider: r.provider.to_string(),
                ttl_s: r.ttl_s,
                refresh_in_ms: r.refresh_at_ms.saturating_sub(now),
                expires_in_ms: r.expires_at_ms.saturating_sub(now),
            })
            .collect()
    }

    /// Provider ids with the milliseconds left of their back-off.
    pub(super) fn provider_backoff(&self) -> Vec<(String, u64)> {
        let now = self.clock.now_ms();
        self.httpdns
            .refresh
            .lock()
            .providers()
            .iter()
            .map(|p| (p.id.to_string(), p.until_ms.saturating_sub(now)))
            .collect()
    }
}

/// `one host (*.example.com)` or `N hosts`: never a host list.
fn describe_hosts(hosts: &[Arc<str>]) -> String {
    match hosts {
        [one] => format!("one host ({})", host_group(one)),
        many => format!("{} hosts", many.len()),
    }
}

/// The smaller stated TTL (0 = not stated).
fn min_ttl(a: u32, b: u32) -> u32 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}
