//! A trace sink that keeps every event as its JSON line, for the tests and benchmarks that
//! read back or replay a recorded trace. Benchmarks include this file with `#[path]`, so it
//! depends on `linekit_core` and `parking_lot` alone.

#![allow(dead_code)]

use linekit_core::trace::{TraceEvent, TraceSink};
use parking_lot::Mutex;

/// Every emitted event, as [`TraceEvent::to_json`], oldest first.
#[derive(Default)]
pub struct TraceLines(Mutex<Vec<String>>);

impl TraceLines {
    /// The lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().clone()
    }

    /// The lines so far as a trace file: one event a line, each ending in a newline.
    pub fn text(&self) -> String {
        self.0.lock().iter().map(|l| format!("{l}\n")).collect()
    }
}

impl TraceSink for TraceLines {
    fn emit(&self, e: &TraceEvent) {
        self.0.lock().push(e.to_json());
    }
}
