//! The JNI path's Rust half allocates nothing per call once an answer's codes are known:
//! `route_answer` (the core's route, the replay rule, the codes) and `report_head`.
//! A counting global allocator (the core tests' `support/counting_alloc.rs`) wraps the
//! system one for this test binary only.

use linekit::fast::{report_head, route_answer, Handle};
use linekit::fast_codes::method_code;
use linekit::jni_records::{ReportHead, RouteQuery};
use linekit_core::engine::LineKitBuilder;
use std::sync::Arc;

#[path = "../../rust-core/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{allocations, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_route_answer_and_its_report_allocate_nothing_once_the_codes_are_known() {
    let config = r#"{"version":1,"trace":{"sample_rate":0.0},
        "biz_lines":{"spot":{"match":["api.example.com"],
        "http":[{"id":"l0","url":"https://line0.example.com"},{"id":"l1","url":"https://line1.example.com"}]}}}"#;
    let engine = LineKitBuilder::new()
        .config_json(config)
        .build()
        .expect("valid config");
    let handle = Handle::new(Arc::new(engine));
    let url = "https://api.example.com/v1/ticker?sym=BTC";
    let query = RouteQuery {
        method: method_code("GET"),
        ws: 0,
        one_shot_body: 0,
        mode: 0,
        // Counted in flight like the interceptor's requests: the line's list of them is
        // allocated with the line.
        ask_only: 0,
    };
    let route = || route_answer(&handle, url, query, None, None, None).expect("routes");
    let start = allocations();
    let (first, _) = route();
    assert!(
        allocations() > start,
        "the first answer adds its entries to the code table"
    );
    let head = ReportHead {
        generation: first.generation,
        line: first.line,
        ws: 0,
        outcome: 0,
        has_status: 1,
        status: 200,
    };
    let times = [40, -1, -1, -1, 30];
    report_head(&handle, head, times, None).expect("reports");
    route();

    let before = allocations();
    let (answer, decision) = route();
    let after_route = allocations();
    let verdict = report_head(&handle, head, times, None).expect("reports");
    let after_report = allocations();

    assert_eq!(after_route - before, 0, "route: no allocation");
    assert_eq!(after_report - after_route, 0, "report: no allocation");
    assert_eq!((answer.line, answer.target), (first.line, first.target));
    assert_eq!(decision.line.as_deref(), Some("l0"));
    assert_eq!(verdict.line_fault, 0);
}
