//! A global allocator that counts allocations, for the tests that prove a path allocates
//! nothing. Included with `#[path]` by each such test binary (it replaces the binary's
//! allocator), never through `support`: install it with
//! `#[global_allocator] static GLOBAL: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting every allocation in [`allocations`].
pub struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Allocations so far, in every thread of the binary.
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::SeqCst)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}
