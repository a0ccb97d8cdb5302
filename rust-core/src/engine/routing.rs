//! The routing service: the [`Topology`] in force (line pools, host index, convergence) and
//! the trace sampler built from the same config, published together behind one `ArcSwap`,
//! plus the runtime kill switch.
//!
//! `route` and `report` load the published state without a lock and take only the short
//! lock of the one pool they touch (rank [`Rank::Pool`]; two pools are never held at
//! once). A new config's topology is built off to the side, carrying line statistics over
//! by line id, and replaces the old one in one store.

use super::lock_order::{lock_as, Guard, Rank};
use crate::config::Config;
use crate::line::pool::LinePool;
use crate::line::router::Topology;
use crate::trace::Sampler;
use crate::Result;
use arc_swap::{ArcSwap, Guard as Loaded};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What routing needs from one config.
pub(super) struct State {
    pub(super) topology: Topology,
    pub(super) sampler: Sampler,
}

impl State {
    /// Builds the topology (and sampler) of `config`, carrying statistics over from
    /// `previous`.
    pub(super) fn build(
        config: Arc<Config>,
        seed: u64,
        previous: Option<&Topology>,
    ) -> Result<Self> {
        let sampler = Sampler::new(config.trace.sample_rate, seed, config.trace.window_ms);
        Ok(State {
            topology: Topology::new(config, seed, previous)?,
            sampler,
        })
    }
}

/// The published routing state and the kill switch.
pub(super) struct Routing {
    current: ArcSwap<State>,
    manual_downgrade: AtomicBool,
}

impl Routing {
    /// Routing over `state` until the first [`Self::apply`].
    pub(super) fn new(state: State) -> Self {
        Routing {
            current: ArcSwap::from_pointee(state),
            manual_downgrade: AtomicBool::new(false),
        }
    }

    /// Puts `state` in force.
    pub(super) fn apply(&self, state: State) {
        self.current.store(Arc::new(state));
    }

    /// The state in force (no lock).
    #[inline]
    pub(super) fn load(&self) -> Loaded<Arc<State>> {
        self.current.load()
    }

    /// The config in force.
    pub(super) fn config(&self) -> Arc<Config> {
        self.load().topology.config.clone()
    }

    /// The runtime kill switch.
    #[inline]
    pub(super) fn manual_downgrade(&self) -> bool {
        self.manual_downgrade.load(Ordering::Relaxed)
    }

    pub(super) fn set_manual_downgrade(&self, on: bool) {
        self.manual_downgrade.store(on, Ordering::Relaxed);
    }
}

/// Locks one pool of the topology in force.
#[inline]
pub(super) fn lock_pool(pool: &Mutex<LinePool>) -> Guard<'_, LinePool> {
    lock_as(Rank::Pool, pool)
}
