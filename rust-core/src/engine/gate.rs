//! The engine's callback gate: what makes [`super::LineKit::close`] return only once no
//! engine callback is running, and keeps any from starting afterwards.
//!
//! Transport completions, deadline timers and trace emission run *inside* the gate.
//! Entering never blocks and may nest on one thread (a completion that emits an event, a
//! transport that completes inside `start`, a config fetch that applies a config and emits
//! on the way), so entering is not a lock in the engine's lock order. [`Gate::close`] refuses
//! every later entry and then waits until the last callback inside has left; it must be
//! called holding no engine lock, which debug builds assert.
//!
//! (A read-write lock would not do: a thread that takes its read side twice deadlocks as
//! soon as a closing writer queues between the two.)

use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

/// Counts the callbacks inside; closes once.
#[derive(Debug, Default)]
pub(super) struct Gate {
    /// Entries not yet left (a nested entry counts again).
    inside: AtomicUsize,
    closed: AtomicBool,
    /// `close` waits here for `inside` to reach zero.
    idle: Mutex<()>,
    left: Condvar,
}

/// Proof that the holder is inside an open gate; leaving happens on drop.
#[must_use]
pub(super) struct Inside<'a>(&'a Gate);

impl Gate {
    /// Enters, unless the gate is closed (then `None`: do nothing).
    pub(super) fn enter(&self) -> Option<Inside<'_>> {
        // SeqCst on both sides: an entry that counts itself before reading `closed` as
        // false is seen by `close`, which sets `closed` before reading the count.
        self.inside.fetch_add(1, SeqCst);
        if self.closed.load(SeqCst) {
            self.leave();
            return None;
        }
        Some(Inside(self))
    }

    /// Whether [`Self::close`] has not been called.
    pub(super) fn is_open(&self) -> bool {
        !self.closed.load(SeqCst)
    }

    /// Closes the gate and waits until no callback is inside. Returns `false` when it was
    /// already closed (without waiting).
    pub(super) fn close(&self) -> bool {
        super::lock_order::assert_none_held("closing the engine");
        if self.closed.swap(true, SeqCst) {
            return false;
        }
        let mut idle = self.idle.lock();
        while self.inside.load(SeqCst) > 0 {
            self.left.wait(&mut idle);
        }
        true
    }

    fn leave(&self) {
        if self.inside.fetch_sub(1, SeqCst) == 1 && self.closed.load(SeqCst) {
            // Under `idle`, so the wake-up cannot fall between `close`'s check and its wait.
            let _idle = self.idle.lock();
            self.left.notify_all();
        }
    }
}

impl Drop for Inside<'_> {
    fn drop(&mut self) {
        self.0.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::{mpsc, Arc};

    #[test]
    fn entries_nest_and_none_is_let_in_after_close() {
        let gate = Gate::default();
        let outer = gate.enter().expect("open");
        let inner = gate.enter().expect("nested entry while open");
        drop(inner);
        drop(outer);
        assert!(gate.close());
        assert!(gate.enter().is_none());
        assert!(!gate.is_open());
        assert!(!gate.close(), "the second close is a no-op");
    }

    /// A callback inside the gate enters again while `close` waits for it: the nested
    /// entry is refused at once instead of blocking behind the closer, and `close` returns
    /// only after the callback has left.
    #[test]
    fn close_waits_for_the_callback_inside_which_may_enter_again_meanwhile() {
        let gate = Arc::new(Gate::default());
        let returned = Arc::new(AtomicBool::new(false));
        let (entered_tx, entered_rx) = mpsc::channel();
        let (leave_tx, leave_rx) = mpsc::channel::<()>();
        let callback = {
            let gate = gate.clone();
            let returned = returned.clone();
            std::thread::spawn(move || {
                let inside = gate.enter().expect("open");
                entered_tx.send(()).unwrap();
                while gate.is_open() {
                    std::thread::yield_now();
                }
                // `close` has begun and is waiting for this callback.
                assert!(gate.enter().is_none(), "no entry once closing");
                assert!(
                    !returned.load(SeqCst),
                    "close returned with a callback inside"
                );
                leave_rx.recv().unwrap();
                drop(inside);
            })
        };
        entered_rx.recv().unwrap();
        let closer = {
            let gate = gate.clone();
            let returned = returned.clone();
            std::thread::spawn(move || {
                assert!(gate.close());
                returned.store(true, SeqCst);
            })
        };
        leave_tx.send(()).unwrap();
        callback.join().expect("callback checks");
        closer.join().unwrap();
        assert!(returned.load(SeqCst));
    }
}
