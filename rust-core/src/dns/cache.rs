//! The network-scoped HTTPDNS snapshot cache.
//!
//! # Reading
//! [`DnsCache::lookup`] is what OkHttp's `Dns.lookup` ends up calling for every new
//! connection. It does one `ArcSwap::load` (no lock, never waits for a writer), one hash
//! lookup in the *current network's* host map, and returns the record's pre-ordered
//! `Arc<[IpAddr]>` by reference count — no allocation on the common path. It allocates only
//! when an address of the host is quarantined (the filtered list). Anything not usable
//! (unknown host, expired record, HTTPDNS bypassed on this network, host not in
//! `httpdns.hosts`) answers [`Source::System`]: the caller uses the platform resolver on
//! the same network.
//!
//! # Writing
//! Writers (HTTPDNS answers, network changes, connect reports, config) are serialised by a
//! short `parking_lot` mutex that is never held across I/O, clone the affected host map
//! (copy-on-write of a `HashMap` of `Arc`s: a few hundred nanoseconds for the tens of hosts
//! an app resolves, cheaper than a persistent map on the read side) and publish a new
//! immutable snapshot. A reader therefore sees either the old or the new snapshot,
//! never a mix (no torn record).
//!
//! # Generation
//! Every change a reader could see — a new snapshot (records, quarantine, connect ranking,
//! network, settings) or a change to a parked network's records — bumps
//! [`DnsCache::generation`] *after* it is visible. Together with
//! [`Lookup::memo_until_ms`] this lets a caller keep an answer without asking again: it is
//! the same answer as long as the generation it read *before* asking is unchanged and the
//! clock is before `memo_until_ms` (the record's `refresh_at`, its expiry, or the end of an
//! active quarantine of one of its addresses, whichever comes first).
//! So that such a caller needs no clock of its own, the engine also bumps the generation
//! when the earliest `memo_until_ms` it handed out is reached (a runtime timer; see
//! [`DnsCache::claim_expiry`]).
//!
//! # Networks
//! Records live in one host map per network handle. Only the current network's map is in
//! the published snapshot; the others are parked (at most [`MAX_PARKED_NETWORKS`], least
//! recently used dropped first) so that a network that comes back reuses its own unexpired
//! records. An answer that arrives for a network that is no longer current is stored in
//! that network's parked map, never in the current one.
//!
//! # What is never cached
//! Parse errors, timeouts, 5xx and answers left with no address after the address policy
//! are failures: they leave the existing record untouched ([`InsertError`]). Negative
//! answers (NXDOMAIN) are not cached either; the caller falls back to system DNS.

use crate::config::model::HttpDnsConfig;
use crate::dns::bootstrap::Bootstrap;
use crate::dns::connect_rank::ConnectRank;
use crate::dns::order::order_addresses;
use crate::dns::policy::{normalize_host, AddressPolicy, HostMatcher};
use crate::dns::providers::{HostAnswer, MAX_ADDRS_PER_HOST};
use crate::dns::quarantine::{ConnectError, HostQuarantine, QuarantineEntry, QuarantinePolicy};
use crate::dns::record::{DnsRecord, TtlPolicy};
use crate::dns::stale::ServeStale;
use crate::net::{HttpDnsBypass, NetworkKey};
use arc_swap::ArcSwap;
use parking_lot::Mutex;
use crate::config::decode::Decode;
use serde::Serialize;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// How many non-current networks keep their records.
pub const MAX_PARKED_NETWORKS: usize = 8;

/// Longest host name looked up without allocating (DNS names are at most 253 bytes).
const MAX_HOST_LEN: usize = 256;

/// Where a lookup answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// From a validated HTTPDNS record.
    HttpDns,
    /// Nothing usable: the caller must use the platform resolver.
    System,
    /// From an expired record of a host that opted into serve-stale (a refresh is due).
    HttpDnsStale,
}

impl Source {
    /// `httpdns` or `system` (replay vocabulary).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::HttpDns => "httpdns",
            Source::System => "system",
            Source::HttpDnsStale => "httpdns_stale",
        }
    }
}

/// The answer to [`DnsCache::lookup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Addresses in OkHttp order; empty when `source` is [`Source::System`].
    pub addrs: Arc<[IpAddr]>,
    /// Where they come from.
    pub source: Source,
    /// The host is an HTTPDNS host whose record is missing, expired or past `refresh_at`:
    /// the engine should (re)query a provider. Never set while HTTPDNS is bypassed.
    pub refresh_due: bool,
    /// Why HTTPDNS is bypassed on the current network, if it is.
    pub bypass: Option<HttpDnsBypass>,
    /// With `source: system`, the host's built-in addresses (`httpdns.bootstrap`): to be
    /// used only if the system resolver fails too (see [`DnsCache::fallback`]).
    pub fallback: Option<Arc<[IpAddr]>>,
    /// Until this monotonic ms the same lookup gives the same answer unless
    /// [`DnsCache::generation`] moves (see the module docs); 0: ask every time (`system`,
    /// serve-stale, or a refresh is due).
    pub memo_until_ms: u64,
}

/// The cache's settings, derived from `httpdns.*`.
#[derive(Debug, Clone, Default)]
pub struct DnsSettings {
    /// `httpdns.hosts`: only these hosts are served from HTTPDNS.
    pub hosts: HostMatcher,
    /// Address policy (`httpdns.allow_private`).
    pub policy: AddressPolicy,
    /// TTL clamping, refresh ratio and jitter.
    pub ttl: TtlPolicy,
    /// Quarantine periods.
    pub quarantine: QuarantinePolicy,
    /// `httpdns.serve_stale`.
    pub stale: ServeStale,
    /// `httpdns.bootstrap`.
    pub bootstrap: Bootstrap,
}

impl DnsSettings {
    /// Settings from the config section; also returns host patterns that are invalid
    /// (they are ignored).
    pub fn from_config(cfg: &HttpDnsConfig) -> (DnsSettings, Vec<String>) {
        let (hosts, mut invalid) = HostMatcher::new(&cfg.hosts);
        let (allow_private, invalid_private) = HostMatcher::new(&cfg.allow_private);
        invalid.extend(invalid_private);
        let (stale, invalid_stale) = ServeStale::from_config(cfg.serve_stale.as_ref());
        invalid.extend(invalid_stale);
        let settings = DnsSettings {
            hosts,
            policy: AddressPolicy::new(allow_private),
            ttl: TtlPolicy {
                refresh_ratio: cfg.refresh_ratio,
                jitter_ratio: cfg.jitter_ratio,
                min_ttl_s: cfg.min_ttl_s,
                max_ttl_s: cfg.max_ttl_s,
            },
            quarantine: QuarantinePolicy::default(),
            stale,
            bootstrap: Bootstrap::from_config(&cfg.bootstrap),
        };
        (settings, invalid)
    }
}

/// Why an answer was not stored. The existing record (if any) is left in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsertError {
    /// The host does not match `httpdns.hosts`.
    NotHttpDnsHost,
    /// Every address failed the address policy (each listed with its class).
    NoUsableAddresses(Vec<(IpAddr, &'static str)>),
}

impl std::fmt::Display for InsertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InsertError::NotHttpDnsHost => f.write_str("host is not an HTTPDNS host"),
            InsertError::NoUsableAddresses(r) => {
                write!(f, "no usable address ({} rejected by policy)", r.len())
            }
        }
    }
}

impl std::error::Error for InsertError {}

/// A stored answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inserted {
    /// The record now served.
    pub record: Arc<DnsRecord>,
    /// Addresses the policy refused (with their class).
    pub rejected: Vec<(IpAddr, &'static str)>,
}

/// A record as persisted: everything needed to re-validate it and rebuild its deadlines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedRecord {
    /// Network handle the record was learned on.
    pub network: u64,
    /// Host (normalized).
    pub host: String,
    /// Addresses as served.
    pub addrs: Vec<IpAddr>,
    /// Provider id.
    pub provider: String,
    /// Wall-clock receipt time (Unix ms).
    pub received_wall_ms: u64,
    /// Effective TTL in seconds.
    pub ttl_s: u64,
}

/// A quarantine entry as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedQuarantine {
    /// Network handle.
    pub network: u64,
    /// Host (normalized).
    pub host: String,
    /// The address.
    pub ip: IpAddr,
    /// Consecutive attributable failures.
    pub strikes: u32,
    /// Wall-clock end of the quarantine (Unix ms).
    pub until_wall_ms: u64,
}

/// Everything the cache persists (see [`DnsCache::export`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Decode)]
pub struct PersistedDns {
    /// Records of every kept network.
    #[decode(drop_malformed)]
    pub records: Vec<PersistedRecord>,
    /// Quarantine entries of every kept network.
    #[decode(drop_malformed)]
    pub quarantine: Vec<PersistedQuarantine>,
}

/// What [`DnsCache::import`] kept and dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DnsImport {
    /// Records now served (or parked).
    pub records: usize,
    /// Quarantine entries restored.
    pub quarantine: usize,
    /// Entries dropped (expired, from the future, absurd, refused by the current policy,
    /// or already known with newer data).
    pub dropped: usize,
}

/// Longest TTL accepted from a file (a day): anything longer is not ours.
const MAX_PERSISTED_TTL_S: u64 = 86_400;
/// Most strikes accepted from a file.
const MAX_PERSISTED_STRIKES: u32 = 64;

#[derive(Debug, Clone, Default)]
struct HostEntry {
    record: Option<Arc<DnsRecord>>,
    quarantine: Option<Arc<HostQuarantine>>,
    /// Smoothed connect times of the host's addresses.
    rank: Option<Arc<ConnectRank>>,
    /// The record's addresses in ranked order (set when `rank` and `record` both are).
    ranked: Option<Arc<[IpAddr]>>,
}

impl HostEntry {
    /// Recomputes `ranked` after the record or the rank changed.
    fn rerank(&mut self) {
        self.ranked = match (&self.record, &self.rank) {
            (Some(r), Some(rank)) => Some(Arc::from(rank.order(&r.addrs))),
            _ => None,
        };
    }
}

/// The addresses a lookup serves from `record` (its entry's connect-ranked order when there
/// is one) at `now_ms`, without quarantined addresses, and the quarantine that shaped them.
fn served<'a>(
    entry: Option<&'a HostEntry>,
    record: &'a DnsRecord,
    now_ms: u64,
) -> (Arc<[IpAddr]>, Option<&'a HostQuarantine>) {
    let ordered = entry
        .and_then(|e| e.ranked.as_ref())
        .unwrap_or(&record.addrs);
    let quarantine = entry.and_then(|e| e.quarantine.as_deref());
    let addrs = match quarantine {
        Some(q) if q.any_active(now_ms) => without_quarantined(ordered, q, now_ms),
        _ => Arc::clone(ordered),
    };
    (addrs, quarantine)
}

type HostMap = HashMap<Box<str>, HostEntry>;

/// One published, immutable view: the current network and its records.
#[derive(Debug)]
struct Snapshot {
    network: NetworkKey,
    bypass: Option<HttpDnsBypass>,
    settings: Arc<DnsSettings>,
    hosts: Arc<HostMap>,
}

#[derive(Debug)]
struct Writer {
    rng: fastrand::Rng,
    /// Parked networks, least recently current first.
    parked: Vec<(u64, Arc<HostMap>)>,
}

/// The HTTPDNS record cache (see the module docs).
#[derive(Debug)]
pub struct DnsCache {
    snap: ArcSwap<Snapshot>,
    writer: Mutex<Writer>,
    empty: Arc<[IpAddr]>,
    generation: Arc<AtomicU32>,
    /// Monotonic ms of the earliest pending [`DnsCache::expire_kept`] (0: none).
    wake_at: AtomicU64,
}

impl DnsCache {
    /// An empty cache. Until [`Self::set_network`] is called it serves network handle 0
    /// without bypass (hosts with no network callback, such as JVM tests, still work).
    /// `seed` drives the refresh jitter (fixed in replay, random in production).
    pub fn new(settings: DnsSettings, seed: u64) -> Self {
        DnsCache {
            snap: ArcSwap::from_pointee(Snapshot {
                network: NetworkKey::default(),
                bypass: None,
                settings: Arc::new(settings),
                hosts: Arc::new(HostMap::new()),
            }),
            writer: Mutex::new(Writer {
                rng: fastrand::Rng::with_seed(seed),
                parked: Vec::new(),
            }),
            empty: Arc::from(Vec::new()),
            generation: Arc::new(AtomicU32::new(0)),
            wake_at: AtomicU64::new(0),
        }
    }

    /// After handing out an answer kept until `at` ([`Lookup::memo_until_ms`]): whether
    /// the caller must schedule [`Self::expire_kept`] at `at` (no earlier one is pending).
    /// With it, a keeper of answers needs no clock: the generation moves when the first
    /// kept answer's time is up.
    pub fn claim_expiry(&self, at: u64) -> bool {
        let mut cur = self.wake_at.load(Ordering::Acquire);
        loop {
            if cur != 0 && cur <= at {
                return false;
            }
            match self
                .wake_at
                .compare_exchange_weak(cur, at, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(c) => cur = c,
            }
        }
    }

    /// The timer claimed by [`Self::claim_expiry`] for `at` fired: bumps the generation
    /// (every kept answer is asked for again, and the next one claims the next expiry).
    pub fn expire_kept(&self, at: u64) {
        let _ = self
            .wake_at
            .compare_exchange(at, 0, Ordering::AcqRel, Ordering::Acquire);
        self.bump();
    }

    /// The counter bumped after every change a lookup could see (see the module docs).
    /// It wraps; compare for equality only.
    pub fn generation(&self) -> &Arc<AtomicU32> {
        &self.generation
    }

    /// Publishes `snap`, then bumps the generation.
    fn publish(&self, snap: Snapshot) {
        self.snap.store(Arc::new(snap));
        self.bump();
    }

    fn bump(&self) {
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// The addresses to use for `host` at monotonic `now_ms` (see the module docs).
    pub fn lookup(&self, host: &str, now_ms: u64) -> Lookup {
        let snap = self.snap.load();
        let mut buf = [0u8; MAX_HOST_LEN];
        let key = lookup_key(host, &mut buf);
        let fallback = || {
            key.and_then(|k| snap.settings.bootstrap.addresses(k))
                .map(Arc::clone)
        };
        if snap.bypass.is_some() {
            return self.system(false, snap.bypass, fallback());
        }
        let Some(key) = key else {
            return self.system(false, None, None);
        };
        let entry = snap.hosts.get(key);
        let (record, source) = match entry.and_then(|e| e.record.as_ref()) {
            Some(r) if r.is_fresh(now_ms) => (r, Source::HttpDns),
            Some(r) if snap.settings.stale.serves(key, r, now_ms) => (r, Source::HttpDnsStale),
            _ => {
                let due = snap.settings.hosts.matches(key);
                return self.system(due, None, fallback());
            }
        };
        let (addrs, quarantine) = served(entry, record, now_ms);
        let refresh_due = source == Source::HttpDnsStale || record.refresh_due(now_ms);
        Lookup {
            addrs,
            source,
            refresh_due,
            bypass: None,
            fallback: None,
            memo_until_ms: if refresh_due {
                0
            } else {
                memo_until(
                    record.refresh_at_ms.min(record.expires_at_ms),
                    quarantine,
                    now_ms,
                )
            },
        }
    }

    /// The addresses to use for `host` on network `handle`, which need not be the current
    /// one: a client bound to a non-default network reads that network's own (parked)
    /// records, never the default network's. For the current network this is
    /// [`Self::lookup`]. A parked network never asks for a refresh (queries run on the
    /// default network), and its answer falls back to [`Source::System`] when it has no
    /// fresh record; the bypass policy is only known for the current network. Reading a
    /// parked map takes the writer lock, which is never held across I/O.
    pub fn lookup_on(&self, host: &str, handle: u64, now_ms: u64) -> Lookup {
        if self.snap.load().network.handle() == handle {
            let answer = self.lookup(host, now_ms);
            // Still current after the read: the answer is this network's. (Otherwise the
            // network was just parked and its records are read from there.)
            if self.snap.load().network.handle() == handle {
                return answer;
            }
        }
        let mut buf = [0u8; MAX_HOST_LEN];
        let Some(key) = lookup_key(host, &mut buf) else {
            return self.system(false, None, None);
        };
        let snap = self.snap.load();
        let fallback = || snap.settings.bootstrap.addresses(key).map(Arc::clone);
        let hosts = {
            let w = self.writer.lock();
            match w.parked.iter().find(|(h, _)| *h == handle) {
                Some((_, map)) => Arc::clone(map),
                None => return self.system(false, None, fallback()),
            }
        };
        let entry = hosts.get(key);
        let record = match entry.and_then(|e| e.record.as_ref()) {
            Some(r) if r.is_fresh(now_ms) => r,
            _ => return self.system(false, None, fallback()),
        };
        let (addrs, quarantine) = served(entry, record, now_ms);
        Lookup {
            addrs,
            source: Source::HttpDns,
            refresh_due: false,
            bypass: None,
            fallback: None,
            // A parked network never refreshes: its answer holds until expiry.
            memo_until_ms: memo_until(record.expires_at_ms, quarantine, now_ms),
        }
    }

    fn system(
        &self,
        refresh_due: bool,
        bypass: Option<HttpDnsBypass>,
        fallback: Option<Arc<[IpAddr]>>,
    ) -> Lookup {
        Lookup {
            addrs: Arc::clone(&self.empty),
            source: Source::System,
            refresh_due,
            bypass,
            fallback,
            memo_until_ms: 0,
        }
    }

    /// After a lookup said `system` and the system resolver answered `system` (empty =
    /// it failed): the built-in addresses of `host` when the system gave nothing the
    /// address policy accepts, else `None` (use the system answer).
    pub fn fallback(&self, host: &str, system: &[IpAddr]) -> Option<Arc<[IpAddr]>> {
        let snap = self.snap.load();
        snap.settings
            .bootstrap
            .fallback(host, system, &snap.settings.policy)
    }

    /// Stores `answer` from `provider`, received on `network` at monotonic `now_ms` /
    /// wall `wall_ms`. The first [`MAX_ADDRS_PER_HOST`] addresses go through the address
    /// policy first (the rest are dropped); if none survives the existing record stays. Answers for a network that is no longer current are stored
    /// with that network's parked records.
    pub fn insert(
        &self,
        network: NetworkKey,
        provider: &str,
        answer: &HostAnswer,
        now_ms: u64,
        wall_ms: u64,
    ) -> Result<Inserted, InsertError> {
        let host = normalize_host(&answer.host);
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        if !snap.settings.hosts.matches(&host) {
            return Err(InsertError::NotHttpDnsHost);
        }
        let addrs = answer.addrs().take(MAX_ADDRS_PER_HOST);
        let filtered = snap.settings.policy.filter(&host, addrs);
        if filtered.accepted.is_empty() {
            return Err(InsertError::NoUsableAddresses(filtered.rejected));
        }
        let (ttl_s, refresh_at_ms, expires_at_ms) =
            snap.settings
                .ttl
                .deadlines(answer.ttl_s, now_ms, &mut w.rng);
        let record = Arc::new(DnsRecord {
            addrs: Arc::from(order_addresses(&filtered.accepted)),
            provider: Arc::from(provider),
            received_wall_ms: wall_ms,
            received_ms: now_ms,
            ttl_s,
            refresh_at_ms,
            expires_at_ms,
        });
        let stored = Arc::clone(&record);
        self.update_map(&mut w, &snap, network.handle(), now_ms, move |map| {
            let entry = map.entry(host.into_boxed_str()).or_default();
            entry.record = Some(stored);
            entry.rerank();
        });
        Ok(Inserted {
            record,
            rejected: filtered.rejected,
        })
    }

    /// Reports a failed connect to `ip` for `host` on `network`; returns whether the
    /// address is now quarantined (only [`ConnectError::quarantines`] failures count, and
    /// only for HTTPDNS hosts).
    pub fn connect_failed(
        &self,
        network: NetworkKey,
        host: &str,
        ip: IpAddr,
        error: ConnectError,
        now_ms: u64,
    ) -> bool {
        if !error.quarantines() {
            return false;
        }
        let host = normalize_host(host);
        let ip = ip.to_canonical();
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        if !snap.settings.hosts.matches(&host) {
            return false;
        }
        let policy = snap.settings.quarantine;
        self.update_map(&mut w, &snap, network.handle(), now_ms, move |map| {
            let entry = map.entry(host.into_boxed_str()).or_default();
            let current = entry.quarantine.as_deref().cloned().unwrap_or_default();
            entry.quarantine = Some(Arc::new(current.with_failure(ip, now_ms, &policy)));
        });
        true
    }

    /// Reports a successful connect to `ip` for `host` on `network`: clears its quarantine.
    /// Cheap when there is nothing to clear (no lock, no copy).
    pub fn connect_succeeded(&self, network: NetworkKey, host: &str, ip: IpAddr, now_ms: u64) {
        let host = normalize_host(host);
        let ip = ip.to_canonical();
        let listed = |map: &HostMap| {
            map.get(host.as_str())
                .and_then(|e| e.quarantine.as_deref())
                .is_some_and(|q| q.entries().iter().any(|e| e.ip == ip))
        };
        {
            let snap = self.snap.load();
            if snap.network.handle() == network.handle() && !listed(&snap.hosts) {
                return;
            }
        }
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        let in_parked = w
            .parked
            .iter()
            .any(|(h, m)| *h == network.handle() && listed(m));
        if !listed(&snap.hosts) && !in_parked {
            return;
        }
        self.update_map(&mut w, &snap, network.handle(), now_ms, move |map| {
            if let Some(entry) = map.get_mut(host.as_str()) {
                let cleared = entry
                    .quarantine
                    .as_deref()
                    .map(|q| q.with_success(ip))
                    .unwrap_or_default();
                entry.quarantine = (!cleared.is_empty()).then(|| Arc::new(cleared));
            }
        });
    }

    /// Reports a successful connect to `ip` for `host` on `network` that took
    /// `connect_ms`: clears its quarantine (like [`Self::connect_succeeded`]) and feeds the
    /// address's smoothed connect time, which orders later lookups (see
    /// [`crate::dns::connect_rank`]). Only hosts with a record on that network are ranked.
    pub fn connect_succeeded_ms(
        &self,
        network: NetworkKey,
        host: &str,
        ip: IpAddr,
        connect_ms: u64,
        now_ms: u64,
    ) {
        let host = normalize_host(host);
        let ip = ip.to_canonical();
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        let has_record = |map: &HostMap| {
            map.get(host.as_str())
                .is_some_and(|e| e.record.as_ref().is_some_and(|r| r.addrs.contains(&ip)))
        };
        let known = if snap.network.handle() == network.handle() {
            has_record(&snap.hosts)
        } else {
            w.parked
                .iter()
                .any(|(h, m)| *h == network.handle() && has_record(m))
        };
        if !known {
            drop(w);
            self.connect_succeeded(network, host.as_str(), ip, now_ms);
            return;
        }
        self.update_map(&mut w, &snap, network.handle(), now_ms, move |map| {
            if let Some(entry) = map.get_mut(host.as_str()) {
                let rank = entry.rank.as_deref().cloned().unwrap_or_default();
                entry.rank = Some(Arc::new(rank.with_sample(ip, connect_ms)));
                if let Some(q) = entry.quarantine.as_deref() {
                    let cleared = q.with_success(ip);
                    entry.quarantine = (!cleared.is_empty()).then(|| Arc::new(cleared));
                }
                entry.rerank();
            }
        });
    }

    /// Makes `network` current with HTTPDNS bypassed for `bypass` (or not). The previous
    /// network's records are parked; `network`'s own parked records come back.
    pub fn set_network(&self, network: NetworkKey, bypass: Option<HttpDnsBypass>) {
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        let hosts = if snap.network.handle() == network.handle() {
            Arc::clone(&snap.hosts)
        } else {
            let restored = match w.parked.iter().position(|(h, _)| *h == network.handle()) {
                Some(i) => w.parked.remove(i).1,
                None => Arc::new(HostMap::new()),
            };
            if !snap.hosts.is_empty() {
                w.parked
                    .push((snap.network.handle(), Arc::clone(&snap.hosts)));
                if w.parked.len() > MAX_PARKED_NETWORKS {
                    w.parked.remove(0);
                }
            }
            restored
        };
        self.publish(Snapshot {
            network,
            bypass,
            settings: Arc::clone(&snap.settings),
            hosts,
        });
    }

    /// Replaces the settings (config update). Records of hosts no longer in
    /// `httpdns.hosts` are dropped on every network; others keep their deadlines.
    pub fn set_settings(&self, settings: DnsSettings) {
        let mut w = self.writer.lock();
        let snap = self.snap.load_full();
        let keep = |map: &HostMap| -> Arc<HostMap> {
            Arc::new(
                map.iter()
                    .filter(|(h, _)| settings.hosts.matches(h))
                    .map(|(h, e)| (h.clone(), e.clone()))
                    .collect(),
            )
        };
        for (_, map) in w.parked.iter_mut() {
            *map = keep(map);
        }
        let hosts = keep(&snap.hosts);
        self.publish(Snapshot {
            network: snap.network,
            bypass: snap.bypass,
            settings: Arc::new(settings),
            hosts,
        });
    }

    /// The current network and bypass reason.
    pub fn network(&self) -> (NetworkKey, Option<HttpDnsBypass>) {
        let snap = self.snap.load();
        (snap.network, snap.bypass)
    }

    /// The current network's record for `host`, fresh or not (for state dumps, tests and
    /// persistence).
    pub fn record(&self, host: &str) -> Option<Arc<DnsRecord>> {
        let snap = self.snap.load();
        let entry = snap.hosts.get(normalize_host(host).as_str())?;
        entry.record.clone()
    }

    /// Every record of the current network, sorted by host.
    pub fn records(&self) -> Vec<(String, Arc<DnsRecord>)> {
        let snap = self.snap.load();
        let mut out: Vec<(String, Arc<DnsRecord>)> = snap
            .hosts
            .iter()
            .filter_map(|(h, e)| Some((h.to_string(), e.record.clone()?)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Every network's fresh records and quarantine entries at monotonic `now_ms`, with
    /// deadlines converted to wall `wall_ms` (for persistence).
    pub fn export(&self, wall_ms: u64, now_ms: u64) -> PersistedDns {
        let w = self.writer.lock();
        let snap = self.snap.load_full();
        let mut out = PersistedDns::default();
        let maps = w
            .parked
            .iter()
            .map(|(h, m)| (*h, m))
            .chain(std::iter::once((snap.network.handle(), &snap.hosts)));
        for (network, map) in maps {
            let mut hosts: Vec<_> = map.iter().collect();
            hosts.sort_by(|a, b| a.0.cmp(b.0));
            for (host, entry) in hosts {
                if let Some(r) = entry.record.as_ref().filter(|r| r.is_fresh(now_ms)) {
                    out.records.push(PersistedRecord {
                        network,
                        host: host.to_string(),
                        addrs: r.addrs.to_vec(),
                        provider: r.provider.to_string(),
                        received_wall_ms: r.received_wall_ms,
                        ttl_s: r.ttl_s,
                    });
                }
                for e in entry.quarantine.iter().flat_map(|q| q.entries()) {
                    let until_wall_ms = if e.until_ms >= now_ms {
                        wall_ms.saturating_add(e.until_ms - now_ms)
                    } else {
                        wall_ms.saturating_sub(now_ms - e.until_ms)
                    };
                    out.quarantine.push(PersistedQuarantine {
                        network,
                        host: host.to_string(),
                        ip: e.ip,
                        strikes: e.strikes,
                        until_wall_ms,
                    });
                }
            }
        }
        out
    }

    /// Restores persisted records and quarantine at monotonic `now_ms` / wall `wall_ms`.
    ///
    /// A record is kept only if its age (`wall_ms − received_wall_ms`) is not negative and
    /// below its TTL (never lengthened by today's clamps), its TTL is plausible, its host
    /// still matches `httpdns.hosts` and at least one address passes today's address
    /// policy — the same checks as a fresh answer. Its deadlines are rebuilt from the age.
    /// Hosts that already have a record (a live answer is newer) keep it. Quarantine
    /// entries are kept unless they would have started in the future or were forgotten.
    pub fn import(&self, dns: &PersistedDns, now_ms: u64, wall_ms: u64) -> DnsImport {
        let mut w = self.writer.lock();
        let mut report = DnsImport::default();
        for p in &dns.records {
            let snap = self.snap.load_full();
            let Some(record) = restore_record(&snap.settings, &mut w.rng, p, now_ms, wall_ms)
            else {
                report.dropped += 1;
                continue;
            };
            let host = normalize_host(&p.host);
            let mut stored = false;
            self.update_map(&mut w, &snap, p.network, now_ms, |map| {
                let entry = map.entry(host.into_boxed_str()).or_default();
                if entry.record.as_ref().is_none_or(|r| !r.is_fresh(now_ms)) {
                    entry.record = Some(Arc::new(record));
                    stored = true;
                }
            });
            if stored {
                report.records += 1;
            } else {
                report.dropped += 1;
            }
        }
        for p in &dns.quarantine {
            let snap = self.snap.load_full();
            let policy = snap.settings.quarantine;
            let host = normalize_host(&p.host);
            let remaining = i128::from(p.until_wall_ms) - i128::from(wall_ms);
            let plausible = (1..=MAX_PERSISTED_STRIKES).contains(&p.strikes)
                && remaining <= i128::from(policy.period_ms(p.strikes))
                && -remaining < i128::from(policy.cap_ms)
                && snap.settings.hosts.matches(&host);
            if !plausible {
                report.dropped += 1;
                continue;
            }
            let until_ms = u64::try_from(i128::from(now_ms) + remaining).unwrap_or(0);
            let entry = QuarantineEntry {
                ip: p.ip.to_canonical(),
                strikes: p.strikes,
                until_ms,
            };
            self.update_map(&mut w, &snap, p.network, now_ms, |map| {
                let e = map.entry(host.into_boxed_str()).or_default();
                let q = e.quarantine.as_deref().cloned().unwrap_or_default();
                e.quarantine = Some(Arc::new(q.with_entry(entry)));
            });
            report.quarantine += 1;
        }
        report
    }

    /// Copy-on-write update of one network's host map; publishes a new snapshot when it is
    /// the current network. Expired, quarantine-free entries are pruned on the way. Only
    /// `change` differs between callers: the copy and the store are one function each.
    fn update_map(
        &self,
        w: &mut Writer,
        snap: &Arc<Snapshot>,
        handle: u64,
        now_ms: u64,
        change: impl FnOnce(&mut HostMap),
    ) {
        let current = snap.network.handle() == handle;
        let slot = (!current).then(|| parked_slot(w, handle));
        let from = slot.map_or(&snap.hosts, |i| &w.parked[i].1);
        let mut map = pruned(from, &snap.settings, now_ms);
        change(&mut map);
        self.store_map(w, snap, slot, map);
    }

    /// Stores `map` as the current network's hosts (a new snapshot) or as parked slot
    /// `slot`.
    fn store_map(&self, w: &mut Writer, snap: &Arc<Snapshot>, slot: Option<usize>, map: HostMap) {
        match slot {
            None => self.publish(Snapshot {
                network: snap.network,
                bypass: snap.bypass,
                settings: Arc::clone(&snap.settings),
                hosts: Arc::new(map),
            }),
            Some(i) => {
                w.parked[i].1 = Arc::new(map);
                // Bound clients read parked maps too.
                self.bump();
            }
        }
    }
}

/// The index of network `handle`'s parked map, parking an empty one (and dropping the
/// oldest past [`MAX_PARKED_NETWORKS`]) when it has none.
fn parked_slot(w: &mut Writer, handle: u64) -> usize {
    match w.parked.iter().position(|(h, _)| *h == handle) {
        Some(i) => i,
        None => {
            w.parked.push((handle, Arc::new(HostMap::new())));
            if w.parked.len() > MAX_PARKED_NETWORKS {
                w.parked.remove(0);
            }
            w.parked.len() - 1
        }
    }
}

/// A copy of `map` without what is over at `now_ms`: records past serve-stale, quarantine
/// entries past their period, and hosts left with neither (a host without a record loses
/// its connect ranking).
fn pruned(map: &HostMap, settings: &DnsSettings, now_ms: u64) -> HostMap {
    let policy = settings.quarantine;
    map.iter()
        .filter_map(|(h, e)| {
            let record = e
                .record
                .clone()
                .filter(|r| settings.stale.keeps(h, r, now_ms));
            let quarantine = e
                .quarantine
                .as_deref()
                .map(|q| q.pruned(now_ms, &policy))
                .filter(|q| !q.is_empty())
                .map(Arc::new);
            let (rank, ranked) = if record.is_some() {
                (e.rank.clone(), e.ranked.clone())
            } else {
                (None, None)
            };
            (record.is_some() || quarantine.is_some()).then(|| {
                (
                    h.clone(),
                    HostEntry {
                        record,
                        quarantine,
                        rank,
                        ranked,
                    },
                )
            })
        })
        .collect()
}

/// A persisted record re-validated against today's settings, with deadlines rebuilt from
/// its wall-clock age; `None` when it must not be served.
fn restore_record(
    settings: &DnsSettings,
    rng: &mut fastrand::Rng,
    p: &PersistedRecord,
    now_ms: u64,
    wall_ms: u64,
) -> Option<DnsRecord> {
    let age = wall_ms.checked_sub(p.received_wall_ms)?;
    if p.ttl_s == 0 || p.ttl_s > MAX_PERSISTED_TTL_S || p.provider.is_empty() {
        return None;
    }
    let host = normalize_host(&p.host);
    if !settings.hosts.matches(&host) {
        return None;
    }
    let clamp = u32::try_from(p.ttl_s).ok()?;
    let ttl_s = p.ttl_s.min(settings.ttl.effective_ttl_s(clamp));
    let ttl_ms = ttl_s.saturating_mul(1_000);
    if age >= ttl_ms {
        return None;
    }
    let kept = p.addrs.iter().copied().take(MAX_ADDRS_PER_HOST);
    let filtered = settings.policy.filter(&host, kept);
    if filtered.accepted.is_empty() {
        return None;
    }
    let (_, refresh_rel, _) = settings.ttl.deadlines(clamp.min(ttl_s as u32), 0, rng);
    Some(DnsRecord {
        addrs: Arc::from(order_addresses(&filtered.accepted)),
        provider: Arc::from(p.provider.as_str()),
        received_wall_ms: p.received_wall_ms,
        received_ms: now_ms.saturating_sub(age),
        ttl_s,
        refresh_at_ms: now_ms.saturating_add(refresh_rel.min(ttl_ms).saturating_sub(age)),
        expires_at_ms: now_ms.saturating_add(ttl_ms - age),
    })
}

/// Lowercased, dot-less `host` as a map key, using `buf` instead of allocating.
/// The earlier of `deadline` and the end of the first active quarantine in `q` (when it
/// ends the address comes back, a different answer with no new snapshot).
fn memo_until(deadline: u64, q: Option<&HostQuarantine>, now_ms: u64) -> u64 {
    q.into_iter()
        .flat_map(|q| q.entries())
        .filter(|e| now_ms < e.until_ms)
        .fold(deadline, |d, e| d.min(e.until_ms))
}

fn lookup_key<'a>(host: &'a str, buf: &'a mut [u8; MAX_HOST_LEN]) -> Option<&'a str> {
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() {
        return None;
    }
    if !host.bytes().any(|b| b.is_ascii_uppercase()) {
        return Some(host);
    }
    let dst = buf.get_mut(..host.len())?;
    dst.copy_from_slice(host.as_bytes());
    dst.make_ascii_lowercase();
    std::str::from_utf8(dst).ok()
}

/// The record's addresses minus quarantined ones, re-interleaved. If every address is
/// quarantined they are all returned, the one released soonest first, rather than none.
fn without_quarantined(addrs: &[IpAddr], q: &HostQuarantine, now_ms: u64) -> Arc<[IpAddr]> {
    let healthy: Vec<IpAddr> = addrs
        .iter()
        .copied()
        .filter(|ip| !q.is_quarantined(*ip, now_ms))
        .collect();
    if !healthy.is_empty() {
        return Arc::from(order_addresses(&healthy));
    }
    let mut all: Vec<IpAddr> = addrs.to_vec();
    all.sort_by_key(|ip| q.active(*ip, now_ms).map_or(0, |e| e.until_ms));
    Arc::from(all)
}
