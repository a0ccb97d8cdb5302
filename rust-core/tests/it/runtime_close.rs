//! `LineKit::close` under load (`docs/architecture.md#runtime`): with requests routed on several threads and
//! probes in flight on a transport that answers late, `close` returns promptly, stops the
//! runtime thread, and no trace event (a user callback) is emitted after it returns.

use crate::support;

use linekit_core::engine::{LineKit, Report, RouteRequest};
use linekit_core::line::Outcome;
use linekit_core::trace::{TraceEvent, TraceSink};
use linekit_core::transport::{Completion, Transport, TransportRequest, TransportResult};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::transport::RecordingTransport;

#[derive(Default)]
struct WatchingSink {
    closed: AtomicBool,
    after_close: AtomicUsize,
    events: AtomicUsize,
}

impl TraceSink for WatchingSink {
    fn emit(&self, _event: &TraceEvent) {
        self.events.fetch_add(1, Ordering::SeqCst);
        if self.closed.load(Ordering::SeqCst) {
            self.after_close.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The tests of this file count the process's `linekit-runtime` threads, so they must not
/// run at the same time (cargo runs a binary's tests on parallel threads).
static SERIAL: Mutex<()> = Mutex::new(());

fn runtime_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.trim() == "linekit-runtime")
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn close_under_load_is_prompt_and_final() {
    let _serial = SERIAL.lock();
    let config = r#"{"version": 1, "trace": {"sample_rate": 1.0},
        "thresholds": {"startup_detect_delay_ms": 1, "detect_jitter_ms": 1, "timeout_ms": 60000},
        "biz_lines": {"spot": {"match": ["api.example.com"], "http": [
            {"id": "a", "url": "https://a.example.com"}, {"id": "b", "url": "https://b.example.com"}]}}}"#;
    let transport = Arc::new(RecordingTransport::default());
    let sink = Arc::new(WatchingSink::default());
    let before = runtime_threads();
    let kit = Arc::new(
        LineKit::builder()
            .config_json(config)
            .transport(transport.clone())
            .trace_sink(sink.clone())
            .seed(3)
            .build()
            .unwrap(),
    );
    // Wait (bounded) for the runtime thread to name itself and the start-up probes to
    // be in flight.
    let deadline = Instant::now() + Duration::from_secs(10);
    while (transport.waiting() < 2 || runtime_threads() < before + 1) && Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(runtime_threads(), before + 1);
    assert_eq!(kit.in_flight(), 2, "start-up probes in flight");

    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (kit, stop) = (kit.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let d = kit.route(&RouteRequest::new("https://api.example.com/x", "GET"));
                    let line = d.line.unwrap();
                    kit.report(&Report::new("spot", &line, Outcome::Ok, 2_500));
                    n += 1;
                }
                n
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(50));

    let started = Instant::now();
    kit.close();
    let took = started.elapsed();
    sink.closed.store(true, Ordering::SeqCst);
    println!("close() under load took {took:?}");
    assert!(took < Duration::from_secs(1), "close took {took:?}");
    // `close()` joins the runtime thread; the kernel drops its `/proc/self/task` entry a
    // moment after the join returns (seen under qemu-user), so allow that, bounded.
    let deadline = Instant::now() + Duration::from_secs(2);
    while runtime_threads() > before && Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(runtime_threads(), before, "the runtime thread is gone");
    assert_eq!(kit.in_flight(), 0);

    // Late answers after close are ignored, routing still works, no callback fires.
    for (_, done) in transport.take_waiting() {
        done.complete(TransportResult::Response {
            status: 200,
            body: Vec::new(),
            headers: Vec::new(),
        });
    }
    stop.store(true, Ordering::Relaxed);
    let routed: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert!(routed > 0);
    let d = kit.route(&RouteRequest::new("https://api.example.com/x", "GET"));
    assert!(d.line.is_some());
    assert!(!kit.detect("spot"), "no detect after close");
    assert_eq!(
        sink.after_close.load(Ordering::SeqCst),
        0,
        "callbacks after close"
    );
    assert!(sink.events.load(Ordering::SeqCst) > 0);
}

/// Answers `cancel` synchronously with a "cancelled" completion, as OkHttp can.
#[derive(Default)]
struct CancellingTransport {
    waiting: Mutex<Vec<(u64, Completion)>>,
}

impl Transport for CancellingTransport {
    fn start(&self, request: TransportRequest, done: Completion) {
        self.waiting.lock().push((request.id, done));
    }
    fn cancel(&self, id: u64) {
        let done = {
            let mut w = self.waiting.lock();
            w.iter().position(|(i, _)| *i == id).map(|p| w.remove(p).1)
        };
        if let Some(done) = done {
            done.complete(TransportResult::Failed(
                linekit_core::transport::TransportError::Cancelled,
            ));
        }
    }
}

#[test]
fn a_deadline_counts_as_a_timeout_even_if_cancel_answers_first() {
    let _serial = SERIAL.lock();
    let config = r#"{"version": 1,
        "thresholds": {"startup_detect_delay_ms": 10, "detect_jitter_ms": 0, "timeout_ms": 1000},
        "biz_lines": {"spot": {"http": [{"id": "a", "url": "https://a.example.com"}]}}}"#;
    let clock = linekit_core::ManualClock::new(1, 0);
    let kit = LineKit::builder()
        .config_json(config)
        .clock(Arc::new(clock.clone()))
        .transport(Arc::new(CancellingTransport::default()))
        .runtime_mode(linekit_core::engine::RuntimeMode::Manual)
        .seed(1)
        .build()
        .unwrap();
    clock.advance(10);
    kit.run_due();
    assert_eq!(kit.in_flight(), 1, "the start-up probe is in flight");
    clock.advance(1_000);
    kit.run_due();
    let pools = serde_json::to_value(kit.pools()).unwrap();
    assert_eq!(
        pools["spot/http"][0]["failures"], 1,
        "the hung probe failed: {pools}"
    );
    assert_eq!(pools["spot/http"][0]["last_error"], "connect_timeout");
}
