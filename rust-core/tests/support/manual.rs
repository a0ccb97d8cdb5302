//! Engines on a manual clock, as the tests and benchmarks build them: the config, a
//! [`ManualClock`] the caller keeps to move time, and a fixed seed. Benchmarks include this
//! file with `#[path]`, so it depends on `linekit_core` alone.

#![allow(dead_code)]

use linekit_core::clock::ManualClock;
use linekit_core::engine::{LineKit, LineKitBuilder, RuntimeMode};
use linekit_core::transport::Transport;
use std::sync::Arc;

/// Wall-clock start of a fresh manual clock (unix ms): 2023-11-14.
pub const WALL_START_MS: u64 = 1_700_000_000_000;

/// A builder for `config` with `seed`, on `clock`.
pub fn builder_on(config: impl Into<String>, seed: u64, clock: &ManualClock) -> LineKitBuilder {
    LineKit::builder()
        .config_json(config)
        .clock(Arc::new(clock.clone()))
        .seed(seed)
}

/// A builder for `config` with `seed` on a fresh clock (monotonic 0, wall
/// [`WALL_START_MS`]), and that clock.
pub fn builder(config: impl Into<String>, seed: u64) -> (LineKitBuilder, ManualClock) {
    let clock = ManualClock::new(0, WALL_START_MS);
    (builder_on(config, seed, &clock), clock)
}

/// An engine for `config` with `seed` on a fresh clock, sending through `transport`, whose
/// runtime tasks run only when the caller calls `run_due`; panics naming the config error.
pub fn engine<T: Transport + 'static>(
    config: impl Into<String>,
    seed: u64,
    transport: &Arc<T>,
) -> (LineKit, ManualClock) {
    let (builder, clock) = builder(config, seed);
    let kit = builder
        .transport(transport.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap_or_else(|e| panic!("engine config: {e}"));
    (kit, clock)
}
