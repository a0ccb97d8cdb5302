//! The sticky fast path of `LinePool::select`, the `record` path and the in-flight list of
//! routed requests allocate nothing.
//!
//! A counting global allocator (per thread, so parallel tests do not interfere) measures
//! allocations around the calls.

use crate::support;

use linekit_core::config::Thresholds;
use linekit_core::line::{LinePool, Outcome, Protocol};
use linekit_core::trace::Reason;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

#[test]
fn sticky_select_record_and_rerank_do_not_allocate() {
    let mut pool = LinePool::new(
        Protocol::Http,
        &support::lines::cdn_lines(8),
        &Thresholds::default(),
        false,
    )
    .expect("pool");
    for i in 0..8 {
        pool.record(0, i, Outcome::Ok, Some(200), 50);
    }
    pool.select(1, &[]);

    // The counter sees allocations on this thread.
    let probe = allocs();
    let v = std::hint::black_box(vec![1u8; 16]);
    assert!(allocs() > probe && v.len() == 16);

    let before = allocs();
    for now in 2..1_000 {
        let s = pool.select(now, &[]);
        assert_eq!(s.reason, Reason::Sticky);
        pool.record(now, s.index, Outcome::Ok, Some(200), 40);
        pool.record(now, s.index, Outcome::LocalNetwork, None, 40);
        // A routed request is in flight until its answer (the list is allocated with
        // the line).
        pool.start_request(s.index, now);
        pool.finish_request(now, s.index, Outcome::Ok, 0);
        pool.record(now, s.index, Outcome::Ok, Some(200), 0);
    }
    // Requests left unanswered fill the list to its bound and no further.
    for now in 1_000..1_100 {
        pool.start_request(pool.current(), now);
    }
    // Re-ranking reuses the pool's buffer; in-call failover too.
    pool.record(1_000, pool.current(), Outcome::DnsFailure, None, 40);
    pool.select(1_001, &[]);
    pool.select(1_002, &["line0", "line1"]);
    assert_eq!(allocs() - before, 0);
}
