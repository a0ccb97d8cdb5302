//! HTTPDNS refresh bookkeeping (`docs/architecture.md#httpdns-refresh`): which `(host, network)` pairs
//! are queued or in flight, which providers are backing off, which hosts are held off, and
//! how a query URL is built for each provider format.
//!
//! This module is pure state (no I/O, no clock, no runtime): the engine owns one
//! [`Refresher`] behind a short mutex, feeds it lookups that need a refresh, drains it on
//! a runtime tick and tells it how each query ended.
//!
//! # Coalescing
//! A `(host, network key)` pair is *active* from the moment it is queued until its refresh
//! round ends; asking again meanwhile is a no-op ([`Enqueue::Coalesced`]). The network key
//! includes the generation, so a network change starts fresh rounds at once while the old
//! ones drain (their answers are dropped by the engine).
//!
//! # Rounds and failover
//! A [`Round`] is one attempt to refresh a set of hosts on one network. It tries providers
//! in config order, each at most once: the first one not backing off, or — when every
//! untried provider is backing off — the one that recovers first. A failed provider backs
//! off ([`BackoffPolicy`]: 30 s doubling to 10 min by default) and is skipped by later
//! rounds while it does; a success resets it.
//!
//! # Hold-off
//! A host whose round failed on every provider is not retried before the earliest provider
//! leaves back-off, nor within the base back-off period (otherwise every lookup during a
//! provider outage, or of a host the providers do not answer, would start a query),
//! and a host answered NXDOMAIN is not re-queried for `min_ttl_s` (negative caching of the
//! *query*; lookups keep answering `system`). Holds are per network handle.
//!
//! # Batching
//! When the first provider of a fresh round uses the `aliyun-batch` format, hosts due in
//! the same tick share one query, up to [`MAX_BATCH_HOSTS`]; for other formats each host
//! gets its own round. A batch round failing over to a single-host format splits.

use crate::config::model::HttpDnsConfig;
use crate::config::provider_auth::ProviderAuth;
use crate::dns::providers::{auth, ProviderFormat};
use crate::net::NetworkKey;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Most hosts in one `aliyun-batch` query.
pub const MAX_BATCH_HOSTS: usize = 5;

/// Most `(host, network)` pairs queued or in flight at once; more are dropped (logged).
pub const MAX_ACTIVE: usize = 1_024;

/// Most held-off hosts remembered; expired holds are pruned first.
pub const MAX_HOLDS: usize = 4_096;

/// Provider failure back-off per consecutive failure of one provider.
pub type BackoffPolicy = super::backoff::Backoff;

/// One configured provider and its back-off state.
#[derive(Debug, Clone)]
pub struct Provider {
    /// Config id (traces, logs, record provenance).
    pub id: Arc<str>,
    /// Answer format.
    pub format: ProviderFormat,
    /// Endpoint URL (never logged).
    pub url: Arc<str>,
    /// Whether this build can parse the format (`doh-wire` needs its cargo feature).
    pub supported: bool,
    /// Consecutive failures.
    pub failures: u32,
    /// Backing off while `now < until_ms`.
    pub until_ms: u64,
    /// Request signing or encryption (its `Debug` hides every secret).
    pub auth: Option<Arc<ProviderAuth>>,
}

impl Provider {
    /// Whether the provider is backing off at `now_ms`.
    pub fn backing_off(&self, now_ms: u64) -> bool {
        now_ms < self.until_ms
    }
}

/// One refresh attempt for some hosts on one network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// Hosts (normalized), never empty.
    pub hosts: Vec<Arc<str>>,
    /// The network the round was started on (handle and generation).
    pub network: NetworkKey,
    /// Provider ids already tried in this round.
    pub tried: Vec<Arc<str>>,
}

/// What [`Refresher::enqueue`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueue {
    /// Queued; `tick` says the caller must schedule a drain (none is pending yet).
    Queued {
        /// No drain is scheduled yet.
        tick: bool,
    },
    /// Already queued or in flight.
    Coalesced,
    /// Held off (failed round or NXDOMAIN) until the given time.
    Held(u64),
    /// No usable provider is configured.
    NoProvider,
    /// Too many refreshes active.
    Full,
}

/// One HTTP request for a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// HTTP method.
    pub method: &'static str,
    /// Full URL (never logged).
    pub url: String,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
}

/// Which record type a DoH query asks for. The DoH formats query `A` then `AAAA` and merge
/// the two answers before inserting; the other formats answer both families at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The only query (non-DoH formats).
    Both,
    /// DoH `A` query.
    A,
    /// DoH `AAAA` query.
    Aaaa,
}

impl Stage {
    /// The first stage for `format`.
    pub fn first(format: ProviderFormat) -> Stage {
        match format {
            ProviderFormat::DohJson | ProviderFormat::DohWire => Stage::A,
            _ => Stage::Both,
        }
    }
}

/// The refresh state (see the module docs).
#[derive(Debug, Default)]
pub struct Refresher {
    providers: Vec<Provider>,
    backoff: BackoffPolicy,
    active: HashSet<(Arc<str>, NetworkKey)>,
    queue: Vec<(Arc<str>, NetworkKey)>,
    holds: HashMap<(Arc<str>, u64), u64>,
    tick_pending: bool,
}

impl Refresher {
    /// State for the providers of `cfg`.
    pub fn new(cfg: &HttpDnsConfig, backoff: BackoffPolicy) -> Self {
        let mut r = Refresher {
            backoff,
            ..Refresher::default()
        };
        r.set_providers(cfg);
        r
    }

    /// Replaces the provider list (config update); a provider with the same id, format and
    /// URL keeps its back-off. Unknown formats are dropped (validation rejects them).
    pub fn set_providers(&mut self, cfg: &HttpDnsConfig) {
        let old = std::mem::take(&mut self.providers);
        for p in &cfg.providers {
            let Ok(format) = p.format.parse::<ProviderFormat>() else {
                log::warn!("linekit: httpdns provider {} has an unknown format", p.id);
                continue;
            };
            let supported = format != ProviderFormat::DohWire || cfg!(feature = "doh-wire");
            if !supported {
                log::warn!(
                    "linekit: httpdns provider {} (doh-wire) skipped: the doh-wire feature is not compiled in",
                    p.id
                );
            }
            let auth = p.auth.clone().map(Arc::new);
            let kept = old.iter().find(|o| {
                *o.id == *p.id && o.format == format && *o.url == *p.url && o.auth == auth
            });
            self.providers.push(Provider {
                id: Arc::from(p.id.as_str()),
                format,
                url: Arc::from(p.url.as_str()),
                supported,
                failures: kept.map_or(0, |o| o.failures),
                until_ms: kept.map_or(0, |o| o.until_ms),
                auth,
            });
        }
    }

    /// The query for `hosts` at `stage` on provider `index` at wall-clock `wall_ms`
    /// (authenticated when the provider has `auth`; see [`provider_query`]). The IV of an
    /// encrypted (`dnspod-aes`) query comes from the operating system's cryptographic
    /// generator, never from a seeded one: an IV that can be predicted from the install
    /// seed would let an observer tell repeated names apart and prepare answers. `None`
    /// when the query cannot be built (or the system generator fails).
    pub fn query_for(
        &mut self,
        index: usize,
        hosts: &[Arc<str>],
        stage: Stage,
        wall_ms: u64,
    ) -> Option<Query> {
        let p = self.providers.get(index)?;
        let iv = match p.auth.as_deref() {
            Some(ProviderAuth::DnspodAes { .. }) => auth::fresh_iv()?,
            _ => [0; auth::AES_IV_LEN],
        };
        provider_query(
            p.format,
            &p.url,
            p.auth.as_deref(),
            hosts,
            stage,
            wall_ms,
            &iv,
        )
    }

    /// The providers in config order.
    pub fn providers(&self) -> &[Provider] {
        &self.providers
    }

    /// Index of the provider with `id`.
    pub fn provider_index(&self, id: &str) -> Option<usize> {
        self.providers.iter().position(|p| *p.id == *id)
    }

    /// Number of `(host, network)` pairs queued or in flight.
    pub fn active(&self) -> usize {
        self.active.len()
    }

    /// Asks for a refresh of `host` (normalized) on `network` at `now_ms`.
    pub fn enqueue(&mut self, host: &str, network: NetworkKey, now_ms: u64) -> Enqueue {
        if !self.providers.iter().any(|p| p.supported) {
            return Enqueue::NoProvider;
        }
        if let Some(&until) = self.holds.get(&(Arc::<str>::from(host), network.handle())) {
            if now_ms < until {
                return Enqueue::Held(until);
            }
        }
        let key: (Arc<str>, NetworkKey) = (Arc::from(host), network);
        if self.active.contains(&key) {
            return Enqueue::Coalesced;
        }
        if self.active.len() >= MAX_ACTIVE {
            return Enqueue::Full;
        }
        self.active.insert(key.clone());
        self.queue.push(key);
        let tick = !self.tick_pending;
        self.tick_pending = true;
        Enqueue::Queued { tick }
    }

    /// Whether `host` on `network` is queued or in flight.
    pub fn is_active(&self, host: &str, network: NetworkKey) -> bool {
        self.active.contains(&(Arc::from(host), network))
    }

    /// Drains the queue at a tick: pairs for another network than `current`, or while
    /// HTTPDNS is bypassed, are dropped; the rest become rounds with their first provider
    /// (index), batched when that provider is `aliyun-batch`.
    pub fn drain(
        &mut self,
        current: NetworkKey,
        bypassed: bool,
        now_ms: u64,
    ) -> Vec<(Round, usize)> {
        self.tick_pending = false;
        let queue = std::mem::take(&mut self.queue);
        let mut hosts: Vec<Arc<str>> = Vec::new();
        for (host, network) in queue {
            if network != current || bypassed {
                self.active.remove(&(host, network));
            } else {
                hosts.push(host);
            }
        }
        if hosts.is_empty() {
            return Vec::new();
        }
        let Some(first) = self.pick(&[], now_ms) else {
            for h in hosts {
                self.active.remove(&(h, current));
            }
            return Vec::new();
        };
        let chunk = if self.providers[first].format == ProviderFormat::AliyunBatch {
            MAX_BATCH_HOSTS
        } else {
            1
        };
        hosts
            .chunks(chunk)
            .map(|c| {
                (
                    Round {
                        hosts: c.to_vec(),
                        network: current,
                        tried: Vec::new(),
                    },
                    first,
                )
            })
            .collect()
    }

    /// The next provider for a round that already tried `tried`: the first untried one not
    /// backing off, else the untried one that recovers first.
    pub fn pick(&self, tried: &[Arc<str>], now_ms: u64) -> Option<usize> {
        let untried = || {
            self.providers
                .iter()
                .enumerate()
                .filter(|(_, p)| p.supported && !tried.iter().any(|t| **t == *p.id))
        };
        untried()
            .find(|(_, p)| !p.backing_off(now_ms))
            .or_else(|| untried().min_by_key(|(_, p)| p.until_ms))
            .map(|(i, _)| i)
    }

    /// Splits `round` for provider `index`: one round when it batches, else one per host.
    pub fn split_for(&self, round: Round, index: usize) -> Vec<Round> {
        let batch = self
            .providers
            .get(index)
            .is_some_and(|p| p.format == ProviderFormat::AliyunBatch);
        if batch || round.hosts.len() <= 1 {
            return vec![round];
        }
        round
            .hosts
            .iter()
            .map(|h| Round {
                hosts: vec![h.clone()],
                network: round.network,
                tried: round.tried.clone(),
            })
            .collect()
    }

    /// Provider `index` failed: it backs off (growing) from `now_ms`.
    pub fn provider_failed(&mut self, index: usize, now_ms: u64) {
        let policy = self.backoff;
        if let Some(p) = self.providers.get_mut(index) {
            p.failures = p.failures.saturating_add(1);
            p.until_ms = now_ms.saturating_add(policy.period_ms(p.failures));
        }
    }

    /// Provider `index` answered: its back-off is cleared.
    pub fn provider_succeeded(&mut self, index: usize) {
        if let Some(p) = self.providers.get_mut(index) {
            p.failures = 0;
            p.until_ms = 0;
        }
    }

    /// The round for `hosts` on `network` ended (any way): they are no longer active.
    pub fn finished(&mut self, hosts: &[Arc<str>], network: NetworkKey) {
        for h in hosts {
            self.active.remove(&(h.clone(), network));
        }
    }

    /// Every provider failed for `hosts`: hold them off until the earliest provider leaves
    /// back-off, and for at least the base back-off period (a host that no provider
    /// answers is not re-asked on every lookup). Returns the end of the hold.
    pub fn failed_everywhere(
        &mut self,
        hosts: &[Arc<str>],
        network: NetworkKey,
        now_ms: u64,
    ) -> u64 {
        self.finished(hosts, network);
        let recovery = self
            .providers
            .iter()
            .filter(|p| p.supported)
            .map(|p| p.until_ms)
            .min()
            .unwrap_or(0);
        let until = recovery.max(now_ms.saturating_add(self.backoff.base_ms));
        for h in hosts {
            self.hold(h, network, until, now_ms);
        }
        until
    }

    /// `host` does not exist (NXDOMAIN): no query for it on this network until `until_ms`.
    pub fn nxdomain(&mut self, host: &Arc<str>, network: NetworkKey, until_ms: u64, now_ms: u64) {
        self.active.remove(&(host.clone(), network));
        self.hold(host, network, until_ms, now_ms);
    }

    fn hold(&mut self, host: &Arc<str>, network: NetworkKey, until_ms: u64, now_ms: u64) {
        if self.holds.len() >= MAX_HOLDS {
            self.holds.retain(|_, until| *until > now_ms);
        }
        if self.holds.len() < MAX_HOLDS {
            self.holds
                .insert((host.clone(), network.handle()), until_ms);
        }
    }
}

/// Builds the query for `hosts` at `stage` of a provider with `format` at `base` (see
/// `docs/config.md#httpdns-providers`): `aliyun` `?host=H`, `aliyun-batch` `?host=a,b`, `dnspod` `?dn=H`,
/// `doh-json` `?name=H&type=A|AAAA` with `accept: application/dns-json`, `doh-wire`
/// `?dns=<base64url>` with `accept: application/dns-message`. Host names must already be valid DNS names (they
/// need no escaping). `None` when the format is not compiled in or the name cannot be
/// encoded.
pub fn build_query(
    format: ProviderFormat,
    base: &str,
    hosts: &[Arc<str>],
    stage: Stage,
) -> Option<Query> {
    let first = hosts.first()?;
    let sep = if base.contains('?') { '&' } else { '?' };
    let get = |query: String| Query {
        method: "GET",
        url: format!("{base}{sep}{query}"),
        headers: Vec::new(),
    };
    let rtype = if stage == Stage::Aaaa { "AAAA" } else { "A" };
    match format {
        ProviderFormat::Aliyun => Some(get(format!("host={first}"))),
        ProviderFormat::AliyunBatch => {
            let list: Vec<&str> = hosts.iter().map(|h| &**h).collect();
            Some(get(format!("host={}", list.join(","))))
        }
        ProviderFormat::Dnspod => Some(get(format!("dn={first}"))),
        ProviderFormat::DohJson => Some(accept(
            get(format!("name={first}&type={rtype}")),
            "application/dns-json",
        )),
        ProviderFormat::DohWire => wire_query(first, stage)
            .map(|q| accept(get(format!("dns={q}")), "application/dns-message")),
    }
}

/// `q` asking for the media type `media` (DoH servers that serve both formats on one
/// path choose by it).
fn accept(mut q: Query, media: &str) -> Query {
    q.headers.push(("accept".to_string(), media.to_string()));
    q
}

/// [`build_query`] for a provider that may authenticate: with `auth` the query carries the
/// signature, the encrypted name or the token (see [`auth`]), computed at wall-clock
/// `wall_ms` with `iv` for the AES kind. `None` when the query cannot be built.
pub fn provider_query(
    format: ProviderFormat,
    base: &str,
    provider_auth: Option<&ProviderAuth>,
    hosts: &[Arc<str>],
    stage: Stage,
    wall_ms: u64,
    iv: &[u8; auth::AES_IV_LEN],
) -> Option<Query> {
    let Some(a) = provider_auth else {
        return build_query(format, base, hosts, stage);
    };
    if hosts.is_empty() {
        return None;
    }
    let list: Vec<&str> = hosts.iter().map(|h| &**h).collect();
    let joined = match format {
        ProviderFormat::AliyunBatch => list.join(","),
        _ => list[0].to_string(),
    };
    let (base, query) = auth::request_parts(a, base, &joined, wall_ms / 1_000, iv).ok()?;
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(Query {
        method: "GET",
        url: format!("{base}{sep}{query}"),
        headers: Vec::new(),
    })
}

#[cfg(feature = "doh-wire")]
fn wire_query(host: &str, stage: Stage) -> Option<String> {
    use crate::dns::providers::doh_wire::{build_query, RecordType};
    use base64::Engine as _;
    let rtype = if stage == Stage::Aaaa {
        RecordType::Aaaa
    } else {
        RecordType::A
    };
    let bytes = build_query(host, rtype).ok()?;
    Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(not(feature = "doh-wire"))]
fn wire_query(_host: &str, _stage: Stage) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::ProviderConfig;

    fn cfg(providers: &[(&str, &str)]) -> HttpDnsConfig {
        HttpDnsConfig {
            providers: providers
                .iter()
                .map(|(id, format)| ProviderConfig {
                    id: id.to_string(),
                    format: format.to_string(),
                    url: format!("https://{id}.example/q"),
                    auth: None,
                })
                .collect(),
            ..HttpDnsConfig::default()
        }
    }

    fn net(g: u64) -> NetworkKey {
        NetworkKey::new(100, g)
    }

    #[test]
    fn duplicates_coalesce_per_network_key() {
        let mut r = Refresher::new(&cfg(&[("a", "aliyun")]), BackoffPolicy::default());
        assert_eq!(r.enqueue("h", net(1), 0), Enqueue::Queued { tick: true });
        assert_eq!(r.enqueue("h", net(1), 0), Enqueue::Coalesced);
        assert_eq!(r.enqueue("g", net(1), 0), Enqueue::Queued { tick: false });
        assert_eq!(r.enqueue("h", net(2), 0), Enqueue::Queued { tick: false });
        let rounds = r.drain(net(2), false, 0);
        assert_eq!(rounds.len(), 1, "only the current network's pairs run");
        assert!(!r.is_active("h", net(1)));
        assert!(r.is_active("h", net(2)));
        r.finished(&rounds[0].0.hosts, net(2));
        assert_eq!(r.active(), 0);
    }

    #[test]
    fn aes_ivs_are_fresh_per_query_and_per_refresher() {
        use crate::config::provider_auth::Secret;
        let config = HttpDnsConfig {
            providers: vec![ProviderConfig {
                id: "tx".to_string(),
                format: "dnspod".to_string(),
                url: "https://tx.example/d".to_string(),
                auth: Some(ProviderAuth::DnspodAes {
                    id: "1".to_string(),
                    key: Secret::new("0123456789abcdef"),
                }),
            }],
            ..HttpDnsConfig::default()
        };
        let hosts = [Arc::from("api.example.com")];
        let iv = |r: &mut Refresher| -> String {
            let q = r
                .query_for(0, &hosts, Stage::Both, 1_700_000_000_000)
                .unwrap();
            let dn = q.url.split("dn=").nth(1).unwrap();
            dn[..2 * auth::AES_IV_LEN].to_string()
        };
        // Built the same way and asked at the same instant: nothing seeds the IVs.
        let (mut a, mut b) = (
            Refresher::new(&config, BackoffPolicy::default()),
            Refresher::new(&config, BackoffPolicy::default()),
        );
        let ivs = [iv(&mut a), iv(&mut a), iv(&mut b)];
        assert_ne!(ivs[0], ivs[1]);
        assert_ne!(ivs[0], ivs[2]);
        assert_ne!(ivs[1], ivs[2]);
    }

    #[test]
    fn batch_provider_groups_up_to_five_hosts() {
        let mut r = Refresher::new(&cfg(&[("b", "aliyun-batch")]), BackoffPolicy::default());
        for i in 0..7 {
            r.enqueue(&format!("h{i}"), net(1), 0);
        }
        let rounds = r.drain(net(1), false, 0);
        let sizes: Vec<usize> = rounds.iter().map(|(r, _)| r.hosts.len()).collect();
        assert_eq!(sizes, vec![5, 2]);
    }

    #[test]
    fn pick_skips_backing_off_then_takes_earliest_recovery() {
        let mut r = Refresher::new(
            &cfg(&[("a", "aliyun"), ("b", "dnspod"), ("c", "doh-json")]),
            BackoffPolicy::default(),
        );
        assert_eq!(r.pick(&[], 0), Some(0));
        r.provider_failed(0, 0);
        assert_eq!(r.pick(&[], 1), Some(1));
        r.provider_failed(0, 0); // 60 s
        r.provider_failed(1, 10); // 30 s from 10
        r.provider_failed(2, 20);
        assert_eq!(r.pick(&[], 100), Some(1), "earliest recovery");
        assert_eq!(r.pick(&[Arc::from("b")], 100), Some(2));
        let all: Vec<Arc<str>> = vec!["a".into(), "b".into(), "c".into()];
        assert_eq!(r.pick(&all, 100), None, "each provider once per round");
        r.provider_succeeded(0);
        assert_eq!(r.pick(&[], 100), Some(0));
    }

    #[test]
    fn failed_round_and_nxdomain_hold_the_host() {
        let mut r = Refresher::new(&cfg(&[("a", "aliyun")]), BackoffPolicy::default());
        r.enqueue("h", net(1), 0);
        let (round, i) = r.drain(net(1), false, 0).remove(0);
        r.provider_failed(i, 0);
        assert_eq!(r.failed_everywhere(&round.hosts, net(1), 0), 30_000);
        assert_eq!(r.enqueue("h", net(2), 29_999), Enqueue::Held(30_000));
        assert_eq!(
            r.enqueue("h", net(2), 30_000),
            Enqueue::Queued { tick: true }
        );
        r.nxdomain(&Arc::from("x"), net(2), 60_000, 30_000);
        assert_eq!(r.enqueue("x", net(2), 59_999), Enqueue::Held(60_000));
    }

    #[test]
    fn config_update_keeps_backoff_of_unchanged_providers() {
        let mut r = Refresher::new(&cfg(&[("a", "aliyun")]), BackoffPolicy::default());
        r.provider_failed(0, 0);
        r.set_providers(&cfg(&[("z", "dnspod"), ("a", "aliyun")]));
        assert!(r.providers()[1].backing_off(1));
        assert!(!r.providers()[0].backing_off(1));
    }

    #[test]
    fn query_urls_per_format() {
        let h: Vec<Arc<str>> = vec!["a.example.com".into(), "b.example.com".into()];
        let q = |f, base, stage| build_query(f, base, &h, stage).unwrap().url;
        assert_eq!(
            q(ProviderFormat::Aliyun, "https://x/1/d", Stage::Both),
            "https://x/1/d?host=a.example.com"
        );
        assert_eq!(
            q(
                ProviderFormat::AliyunBatch,
                "https://x/1/resolve",
                Stage::Both
            ),
            "https://x/1/resolve?host=a.example.com,b.example.com"
        );
        assert_eq!(
            q(ProviderFormat::Dnspod, "https://x/d?token=t", Stage::Both),
            "https://x/d?token=t&dn=a.example.com"
        );
        assert_eq!(
            q(ProviderFormat::DohJson, "https://x/resolve", Stage::Aaaa),
            "https://x/resolve?name=a.example.com&type=AAAA"
        );
        let json = build_query(ProviderFormat::DohJson, "https://x/resolve", &h, Stage::A);
        assert_eq!(
            json.unwrap().headers,
            vec![("accept".to_string(), "application/dns-json".to_string())],
            "servers that serve both formats on one path choose by the accept header"
        );
    }

    #[cfg(feature = "doh-wire")]
    #[test]
    fn wire_query_is_base64url_without_padding() {
        let h: Vec<Arc<str>> = vec!["a.example.com".into()];
        let q = build_query(ProviderFormat::DohWire, "https://x/dns-query", &h, Stage::A).unwrap();
        let enc = q.url.split_once("?dns=").unwrap().1;
        assert!(!enc.contains('=') && !enc.contains('+') && !enc.contains('/'));
        assert_eq!(
            q.headers,
            vec![("accept".to_string(), "application/dns-message".to_string())]
        );
    }
}
