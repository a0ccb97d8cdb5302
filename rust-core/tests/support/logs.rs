//! Log capture for tests: one process-wide `log` logger that keeps each thread's lines
//! apart, so tests running in parallel in one binary each read only their own.

#![allow(dead_code)]

use log::{LevelFilter, Log, Metadata, Record};
use std::cell::RefCell;

thread_local! {
    /// This thread's level and lines, once it called [`capture`].
    static LINES: RefCell<Option<(LevelFilter, Vec<String>)>> = const { RefCell::new(None) };
}

struct PerThread;

impl Log for PerThread {
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        LINES.with(|l| {
            l.try_borrow()
                .is_ok_and(|l| l.as_ref().is_some_and(|(max, _)| m.level() <= *max))
        })
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = record.args().to_string();
        LINES.with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                if let Some((_, lines)) = l.as_mut() {
                    lines.push(line);
                }
            }
        });
    }

    fn flush(&self) {}
}

static LOGGER: PerThread = PerThread;

/// Starts capturing this thread's log lines at `max` and more severe, dropping the ones
/// captured so far.
pub fn capture(max: LevelFilter) {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(LevelFilter::Trace);
    LINES.with(|l| *l.borrow_mut() = Some((max, Vec::new())));
}

/// The lines this thread captured since [`capture`], oldest first.
pub fn lines() -> Vec<String> {
    LINES.with(|l| {
        l.borrow()
            .as_ref()
            .map(|(_, lines)| lines.clone())
            .unwrap_or_default()
    })
}
