//! The engine's background runtime: one timer queue on the injectable [`Clock`].
//!
//! Everything slow or periodic (detect probes, their deadlines, revive checks, HTTPDNS
//! refreshes, debounced persistence) is a task scheduled at a monotonic deadline. In
//! production a single thread named `linekit-runtime` sleeps until the next deadline and
//! runs due tasks; in tests and `linekit replay` there is no thread and the driver calls
//! [`Runtime::run_due`] after moving a manual clock, so the same code runs in virtual time
//! and deterministically.
//!
//! Tasks must not block: network work goes through the callback-based
//! [`crate::transport::Transport`]. A dedicated thread with a binary heap costs far less
//! `.so` size than an async runtime, and async runtimes' timers cannot follow an injected
//! clock outside of test builds.
//!
//! [`Runtime::close`] cancels every timer, wakes and joins the thread, and returns once no
//! task is running; nothing scheduled afterwards ever runs.

use crate::clock::Clock;
use parking_lot::{Condvar, Mutex};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A unit of background work.
pub type Task = Box<dyn FnOnce() + Send>;

/// Identifies a scheduled task (for cancellation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId(u64);

#[derive(Default)]
struct Timers {
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    tasks: HashMap<u64, Task>,
    next_seq: u64,
}

struct Shared {
    timers: Mutex<Timers>,
    wake: Condvar,
    clock: Arc<dyn Clock>,
    closed: AtomicBool,
}

/// The timer queue and, in threaded mode, its thread.
pub struct Runtime {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("pending", &self.shared.timers.lock().tasks.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// Longest single sleep of the runtime thread; bounds the effect of a wall-clock jump on a
/// platform whose monotonic clock misbehaves.
const MAX_SLEEP: Duration = Duration::from_secs(60);

impl Runtime {
    /// A runtime without a thread: the caller drives it with [`Runtime::run_due`].
    pub fn manual(clock: Arc<dyn Clock>) -> Runtime {
        Runtime {
            shared: Arc::new(Shared {
                timers: Mutex::new(Timers::default()),
                wake: Condvar::new(),
                clock,
                closed: AtomicBool::new(false),
            }),
            thread: Mutex::new(None),
        }
    }

    /// A runtime with its own thread that runs tasks when they are due.
    pub fn threaded(clock: Arc<dyn Clock>) -> std::io::Result<Runtime> {
        let rt = Runtime::manual(clock);
        let shared = rt.shared.clone();
        let handle = std::thread::Builder::new()
            .name("linekit-runtime".to_string())
            .spawn(move || run_thread(&shared))?;
        *rt.thread.lock() = Some(handle);
        Ok(rt)
    }

    /// Runs `task` at monotonic `at_ms` (at once if that has passed). Returns `None` after
    /// [`Runtime::close`].
    pub fn schedule_at(&self, at_ms: u64, task: Task) -> Option<TimerId> {
        if self.is_closed() {
            return None;
        }
        let mut t = self.shared.timers.lock();
        let seq = t.next_seq;
        t.next_seq += 1;
        t.heap.push(Reverse((at_ms, seq)));
        t.tasks.insert(seq, task);
        drop(t);
        self.shared.wake.notify_one();
        Some(TimerId(seq))
    }

    /// Runs `task` after `delay_ms`.
    pub fn schedule_in(&self, delay_ms: u64, task: Task) -> Option<TimerId> {
        let at = self.shared.clock.now_ms().saturating_add(delay_ms);
        self.schedule_at(at, task)
    }

    /// Cancels a scheduled task (no effect if it already ran).
    pub fn cancel(&self, id: TimerId) {
        self.shared.timers.lock().tasks.remove(&id.0);
    }

    /// The earliest pending deadline.
    pub fn next_deadline(&self) -> Option<u64> {
        let mut t = self.shared.timers.lock();
        next_live(&mut t).map(|(at, _)| at)
    }

    /// Number of pending tasks.
    #[cfg(any(test, feature = "testing"))]
    pub fn pending(&self) -> usize {
        self.shared.timers.lock().tasks.len()
    }

    /// Runs every task due at the clock's current time, earliest first (tasks scheduled
    /// meanwhile run too if due). Returns how many ran.
    pub fn run_due(&self) -> usize {
        let mut ran = 0;
        while let Some(task) = pop_due(&self.shared) {
            task();
            ran += 1;
        }
        ran
    }

    /// Whether [`Runtime::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Cancels every task and stops the thread; returns once no task is running (unless
    /// called from a task itself, which cannot wait for itself).
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Release);
        {
            let mut t = self.shared.timers.lock();
            t.tasks.clear();
            t.heap.clear();
        }
        self.shared.wake.notify_all();
        let handle = self.thread.lock().take();
        if let Some(handle) = handle {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.close();
    }
}

/// Drops cancelled heap entries and returns the earliest live `(deadline, seq)`.
fn next_live(t: &mut Timers) -> Option<(u64, u64)> {
    while let Some(Reverse((at, seq))) = t.heap.peek().copied() {
        if t.tasks.contains_key(&seq) {
            return Some((at, seq));
        }
        t.heap.pop();
    }
    None
}

fn pop_due(shared: &Shared) -> Option<Task> {
    if shared.closed.load(Ordering::Acquire) {
        return None;
    }
    let now = shared.clock.now_ms();
    let mut t = shared.timers.lock();
    let (at, seq) = next_live(&mut t)?;
    if at > now {
        return None;
    }
    t.heap.pop();
    t.tasks.remove(&seq)
}

fn run_thread(shared: &Shared) {
    loop {
        while let Some(task) = pop_due(shared) {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(task)).is_err() {
                log::error!("linekit: a background task panicked; continuing");
            }
        }
        let mut t = shared.timers.lock();
        if shared.closed.load(Ordering::Acquire) {
            return;
        }
        let wait = match next_live(&mut t) {
            Some((at, _)) => {
                let now = shared.clock.now_ms();
                if at <= now {
                    continue;
                }
                Duration::from_millis(at - now).min(MAX_SLEEP)
            }
            None => MAX_SLEEP,
        };
        shared.wake.wait_for(&mut t, wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ManualClock, SystemClock};
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn manual_runtime_runs_due_tasks_in_deadline_order() {
        let clock = ManualClock::new(0, 0);
        let rt = Runtime::manual(Arc::new(clock.clone()));
        let log = Arc::new(Mutex::new(Vec::new()));
        for (at, name) in [(30, "c"), (10, "a"), (20, "b"), (10, "a2")] {
            let log = log.clone();
            rt.schedule_at(at, Box::new(move || log.lock().push(name)));
        }
        let cancelled = rt
            .schedule_at(15, Box::new(|| panic!("cancelled task ran")))
            .unwrap();
        rt.cancel(cancelled);
        assert_eq!(rt.run_due(), 0);
        clock.set_now(20);
        assert_eq!(rt.run_due(), 3);
        assert_eq!(*log.lock(), ["a", "a2", "b"]);
        assert_eq!(rt.next_deadline(), Some(30));
    }

    #[test]
    fn tasks_scheduled_by_tasks_run_when_due() {
        let clock = ManualClock::new(0, 0);
        let rt = Arc::new(Runtime::manual(Arc::new(clock.clone())));
        let count = Arc::new(AtomicUsize::new(0));
        let (rt2, c2) = (rt.clone(), count.clone());
        rt.schedule_at(
            0,
            Box::new(move || {
                c2.fetch_add(1, Ordering::SeqCst);
                let c3 = c2.clone();
                rt2.schedule_at(
                    0,
                    Box::new(move || {
                        c3.fetch_add(1, Ordering::SeqCst);
                    }),
                );
                let c4 = c2.clone();
                rt2.schedule_at(
                    5,
                    Box::new(move || {
                        c4.fetch_add(1, Ordering::SeqCst);
                    }),
                );
            }),
        );
        rt.run_due();
        assert_eq!(count.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn close_cancels_everything_and_refuses_new_tasks() {
        let clock = ManualClock::new(0, 0);
        let rt = Runtime::manual(Arc::new(clock.clone()));
        rt.schedule_at(1, Box::new(|| panic!("ran after close")));
        rt.close();
        clock.set_now(10);
        assert_eq!(rt.run_due(), 0);
        assert!(rt.schedule_at(1, Box::new(|| {})).is_none());
        assert_eq!(rt.pending(), 0);
    }

    #[test]
    fn threaded_runtime_runs_tasks_and_joins_on_close() {
        let rt = Runtime::threaded(Arc::new(SystemClock::new())).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        rt.schedule_in(0, Box::new(move || tx.send(1).unwrap()));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(1));
        rt.schedule_in(3_600_000, Box::new(|| panic!("far future task ran")));
        let started = std::time::Instant::now();
        rt.close();
        assert!(rt.thread.lock().is_none());
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
