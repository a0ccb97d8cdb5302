//! HTTPDNS (`docs/architecture.md#httpdns`): provider answer parsers, the address policy, validated
//! records, the network-scoped snapshot cache read by `Dns.lookup`, and the per-address
//! quarantine.
//!
//! Data flow: a provider body → [`providers::ProviderFormat::parse`] → [`HostAnswer`]s →
//! [`DnsCache::insert`] (address policy, TTL clamping, refresh jitter) → an immutable
//! snapshot → [`DnsCache::lookup`] (lock-free read, quarantine filter, v6/v4 order).
//! Refreshes (coalescing, provider failover and back-off, batching) are bookkept by
//! [`refresh::Refresher`] and driven by the engine's runtime.
//! Network changes come from [`crate::net::NetworkMonitor`] via [`DnsCache::set_network`].
//!
//! Production accounts: [`providers::auth`] signs or encrypts queries and decrypts answers
//! before parsing; [`stale`] serves expired records of opted-in hosts during a refresh;
//! [`bootstrap`] holds the app's built-in last-resort addresses; [`connect_rank`] orders
//! each family by smoothed connect time.

internal_mod!(backoff);
internal_mod!(bootstrap);
internal_mod!(cache);
internal_mod!(connect_rank);
internal_mod!(order);
pub mod policy;
pub mod providers;
internal_mod!(quarantine);
internal_mod!(record);
pub mod refresh;
internal_mod!(stale);

pub use cache::{
    DnsCache, DnsImport, DnsSettings, InsertError, Inserted, Lookup, PersistedDns,
    PersistedQuarantine, PersistedRecord, Source,
};
pub use order::order_addresses;
pub use policy::{classify, is_public, AddrClass, AddressPolicy, HostMatcher, HostPattern};
pub use providers::{HostAnswer, ProviderError, ProviderFormat};
pub use quarantine::{ConnectError, HostQuarantine, QuarantinePolicy};
pub use record::{DnsRecord, TtlPolicy};
