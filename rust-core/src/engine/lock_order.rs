//! Ranked locks: every lock of the engine's services has a [`Rank`], and a thread may only
//! take a lock ranked above every lock it already holds. The ranks are one total order, so
//! no two threads can ever wait for each other's locks (the table is in the engine's
//! module docs).
//!
//! In debug builds (tests included) each thread keeps the set of ranks it holds in a
//! thread-local bit set, and taking a lock whose rank is not above all of them panics
//! *before* it blocks, naming both locks: an inversion fails the test that reaches it even
//! when the two threads never actually meet. In release builds a [`Ranked`] is its
//! `parking_lot::Mutex` and a [`Guard`] its `MutexGuard`: the rank is not even stored.

use parking_lot::{Mutex, MutexGuard};
use std::ops::{Deref, DerefMut};

/// A lock's place in the engine's lock order: a lock may only be taken while every lock
/// the thread holds ranks lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Rank {
    /// The remote channel's publication lock: held for a whole config publication.
    Update = 1,
    /// HTTPDNS: the network monitor (held while a network change or an answer is stored).
    Network,
    /// One line pool of the topology in force.
    Pool,
    /// The prober: the detect scheduler.
    Detect,
    /// HTTPDNS: the refresh bookkeeping (queue, rounds, provider back-off).
    Refresh,
    /// Requests: the in-flight table.
    InFlight,
    /// The remote channel: fetch rounds, ETags, expiry.
    Remote,
    /// Persistence: the state file.
    Store,
    /// Tracing: stamping and delivery (the sink runs under it, so it ranks last).
    Trace,
}

/// Every rank, in order.
#[cfg(debug_assertions)]
const ALL: [Rank; 9] = [
    Rank::Update,
    Rank::Network,
    Rank::Pool,
    Rank::Detect,
    Rank::Refresh,
    Rank::InFlight,
    Rank::Remote,
    Rank::Store,
    Rank::Trace,
];

/// A mutex with a rank.
pub(super) struct Ranked<T> {
    lock: Mutex<T>,
    #[cfg(debug_assertions)]
    rank: Rank,
}

impl<T> Ranked<T> {
    /// A lock of rank `rank` around `value`.
    pub(super) fn new(rank: Rank, value: T) -> Self {
        #[cfg(not(debug_assertions))]
        let _ = rank;
        Ranked {
            lock: Mutex::new(value),
            #[cfg(debug_assertions)]
            rank,
        }
    }

    /// Takes the lock (debug builds: after checking the order).
    #[inline]
    pub(super) fn lock(&self) -> Guard<'_, T> {
        #[cfg(debug_assertions)]
        return lock_as(self.rank, &self.lock);
        #[cfg(not(debug_assertions))]
        return Guard {
            guard: self.lock.lock(),
        };
    }
}

/// Takes `lock`, a mutex owned outside the engine (a line pool of the topology), as a lock
/// of rank `rank`.
#[inline]
pub(super) fn lock_as<T>(rank: Rank, lock: &Mutex<T>) -> Guard<'_, T> {
    #[cfg(debug_assertions)]
    held::take(rank);
    #[cfg(not(debug_assertions))]
    let _ = rank;
    Guard {
        guard: lock.lock(),
        #[cfg(debug_assertions)]
        rank,
    }
}

/// Debug builds: panics when the thread holds any ranked lock (before waiting on
/// something that callbacks holding those locks could be waiting for).
#[inline]
pub(super) fn assert_none_held(what: &str) {
    #[cfg(debug_assertions)]
    held::assert_none(what);
    #[cfg(not(debug_assertions))]
    let _ = what;
}

/// A held ranked lock.
pub(super) struct Guard<'a, T> {
    guard: MutexGuard<'a, T>,
    #[cfg(debug_assertions)]
    rank: Rank,
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Guard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

#[cfg(debug_assertions)]
impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        held::release(self.rank);
    }
}

/// The ranks this thread holds (debug builds only).
// `HELD`'s initializer is `const` already; the lint misfires on targets where
// `thread_local!` expands to OS-keyed storage (Android).
#[cfg(debug_assertions)]
#[allow(clippy::missing_const_for_thread_local)]
mod held {
    use super::{Rank, ALL};
    use std::cell::Cell;

    thread_local! {
        /// Bit `r` is set while this thread holds the lock of rank `r`.
        static HELD: Cell<u32> = const { Cell::new(0) };
    }

    fn bit(rank: Rank) -> u32 {
        1 << rank as u8
    }

    fn names(set: u32) -> String {
        let held: Vec<String> = ALL
            .iter()
            .filter(|r| set & bit(**r) != 0)
            .map(|r| format!("{r:?}"))
            .collect();
        held.join(", ")
    }

    /// Records that the thread takes `rank`; panics unless every held rank is lower.
    pub(super) fn take(rank: Rank) {
        let set = HELD.with(Cell::get);
        // Some held rank is `rank` or above it.
        if set >= bit(rank) {
            panic!(
                "lock order: taking {rank:?} while holding {} (see the engine's lock order)",
                names(set)
            );
        }
        HELD.with(|h| h.set(set | bit(rank)));
    }

    pub(super) fn release(rank: Rank) {
        HELD.with(|h| h.set(h.get() & !bit(rank)));
    }

    pub(super) fn assert_none(what: &str) {
        let set = HELD.with(Cell::get);
        assert!(
            set == 0,
            "lock order: {what} while holding {} (see the engine's lock order)",
            names(set)
        );
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;

    #[test]
    fn ranks_must_increase_whatever_order_locks_are_released_in() {
        let update = Ranked::new(Rank::Update, ());
        let detect = Ranked::new(Rank::Detect, 1);
        let trace = Ranked::new(Rank::Trace, 2);
        let u = update.lock();
        let d = detect.lock();
        let t = trace.lock();
        assert_eq!(*d + *t, 3);
        drop(d);
        drop(u);
        // Released out of order, Trace is still held: Detect, below it, is refused.
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            drop(detect.lock());
        }));
        assert!(refused.is_err(), "Detect under Trace is an inversion");
        drop(t);
        let _d = detect.lock();
        let inverted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            drop(update.lock());
        }));
        assert!(inverted.is_err(), "Update after Detect is an inversion");
    }

    #[test]
    #[should_panic(expected = "lock order: taking Network while holding Remote")]
    fn an_inversion_panics_before_it_blocks() {
        let network = Ranked::new(Rank::Network, ());
        let remote = Ranked::new(Rank::Remote, ());
        let _r = remote.lock();
        let _n = network.lock();
    }

    #[test]
    #[should_panic(expected = "lock order: taking Pool while holding Pool")]
    fn two_pools_at_once_are_an_inversion() {
        let a = Mutex::new(1);
        let b = Mutex::new(2);
        let _a = lock_as(Rank::Pool, &a);
        let _b = lock_as(Rank::Pool, &b);
    }

    #[test]
    fn a_panicking_check_leaves_the_held_set_as_it_was() {
        let remote = Ranked::new(Rank::Remote, ());
        let network = Ranked::new(Rank::Network, ());
        {
            let _r = remote.lock();
            let inverted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                drop(network.lock());
            }));
            assert!(inverted.is_err());
        }
        // Nothing is held now, so the lower rank is fine again.
        drop(network.lock());
        assert_none_held("nothing");
    }

    #[test]
    #[should_panic(expected = "lock order: closing while holding Detect")]
    fn waiting_while_holding_a_lock_is_caught() {
        let detect = Ranked::new(Rank::Detect, ());
        let _d = detect.lock();
        assert_none_held("closing");
    }
}
