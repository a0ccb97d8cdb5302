//! The integration tests of linekit-core, one module per capability, linked into one test
//! binary (test names are `module::test`). Shared helpers live in `tests/support/` (the
//! benchmarks and linekit-tools' tests include some of them by path); fixtures in
//! `tests/fixtures/`.
//!
//! `route_alloc` is a binary of its own: it counts the allocations of every thread, which
//! only works with no other test running. `line_sticky_alloc` counts per thread, so its
//! counting allocator (which forwards to the system one) is this binary's allocator.

#[path = "../support/mod.rs"]
mod support;

mod config_decode_paths;
mod config_decoder;
mod config_fleet_sim;
mod config_offer;
mod config_schema;
mod config_signing;
mod config_sources;
mod config_startup;
mod config_trust_chain;
mod config_trust_strict;
mod config_unsupported;
mod config_validation;
mod convergence;
mod diagnosis;
mod dns_cache;
mod dns_concurrency;
mod dns_policy;
mod dns_providers;
mod fleet_sim;
mod httpdns_auth;
mod httpdns_engine;
mod httpdns_secrets;
mod line_breaker;
mod line_guard;
mod line_in_flight;
mod line_ranking;
mod line_stats;
mod line_sticky_alloc;
mod lock_order;
mod persistence;
mod provider_bounds;
mod remote_fetch;
mod revive_return;
mod routing;
mod runtime_close;
mod trace_events;
mod version_guard;
mod warm_connections;
