//! WebSocket pools through `linekit replay` (`docs/architecture.md#websocket-quality`): a line that refuses the
//! upgrade is left for the next `ws` line and triggers a detect; an abnormal close right
//! after open demotes a line while a normal (or network-change / background) close does
//! not; `http` and `ws` pools never affect each other.

use crate::support;

use linekit_tools::replay;
use serde_json::Value;
use support::replay::{line_at, pool_at, run};

fn routed(lines: &[Value], at: u64) -> String {
    line_at(lines, "route", at)["line"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn refused_upgrade_moves_the_ws_pool_only_and_triggers_a_detect() {
    let lines = run(include_str!("../scenarios/ws_handshake_failover.json"));
    assert_eq!(routed(&lines, 0), "ali-ws");
    assert_eq!(
        routed(&lines, 200),
        "tx-ws",
        "the next connect lands on the next ws line"
    );
    assert_eq!(routed(&lines, 201), "ali", "the http pool is unaffected");
    assert_eq!(
        routed(&lines, 60_100),
        "tx-ws",
        "a normal close keeps the line"
    );
    let probes: Vec<&Value> = lines.iter().filter(|l| l["op"] == "request").collect();
    assert!(
        !probes.is_empty(),
        "the handshake failure triggers a detect"
    );
    assert!(probes
        .iter()
        .all(|p| p["at"].as_u64().unwrap() >= 100 && p["at"].as_u64().unwrap() <= 2_100));
    assert!(probes
        .iter()
        .any(|p| p["url"] == "https://ws-tx.example.com/line/ping"));
    let ws = pool_at(&lines, 60_200, "spot/ws");
    let tx = ws.iter().find(|l| l["id"] == "tx-ws").unwrap();
    assert_eq!(
        tx["avg_latency_ms"], 120,
        "ws latency is the handshake time"
    );
}

#[test]
fn abnormal_close_right_after_open_demotes_the_line() {
    let lines = run(include_str!("../scenarios/ws_abnormal_close.json"));
    assert_eq!(routed(&lines, 0), "ali-ws");
    assert_eq!(routed(&lines, 2_200), "tx-ws");
    assert_eq!(
        routed(&lines, 2_201),
        "ali",
        "ws faults do not move http traffic"
    );
    assert_eq!(routed(&lines, 2_400), "tx-ws");
    assert_eq!(routed(&lines, 2_401), "tx", "http faults move http traffic");
    let ws = pool_at(&lines, 2_500, "spot/ws");
    assert_eq!(
        ws.iter().find(|l| l["id"] == "ali-ws").unwrap()["failures"],
        1
    );
    let http = pool_at(&lines, 2_500, "spot/http");
    assert_eq!(
        http.iter().find(|l| l["id"] == "ali").unwrap()["failures"],
        1
    );
}

#[test]
fn normal_and_blameless_closes_do_not_count() {
    let lines = run(include_str!("../scenarios/ws_normal_close.json"));
    assert_eq!(routed(&lines, 2_200), "ali-ws");
    let ws = pool_at(&lines, 2_300, "spot/ws");
    assert_eq!(
        ws.iter().find(|l| l["id"] == "ali-ws").unwrap()["failures"],
        0
    );
}

#[test]
fn malformed_ws_reports_are_rejected_with_the_step() {
    let base: Value =
        serde_json::from_str(include_str!("../scenarios/ws_normal_close.json")).unwrap();
    for (bad, needle) in [
        (
            serde_json::json!({"at": 0, "op": "report", "biz": "spot", "line": "ali-ws", "outcome": "ws_closed", "duration_ms": 5}),
            "code",
        ),
        (
            serde_json::json!({"at": 0, "op": "report", "biz": "spot", "line": "ali-ws", "outcome": "ws_closed", "code": 1006, "duration_ms": 5, "cause": "gremlins"}),
            "cause",
        ),
        (
            serde_json::json!({"at": 0, "op": "report", "biz": "spot", "line": "ali-ws", "outcome": "ws_teleported"}),
            "ws_teleported",
        ),
    ] {
        let mut s = base.clone();
        s["steps"] = serde_json::json!([bad]);
        let err = replay::run(&s.to_string(), &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("steps[0]") && err.contains(needle), "{err}");
    }
}

#[test]
fn an_upgrade_header_or_a_ws_url_routes_on_the_ws_pool() {
    let lines = run(include_str!("../scenarios/ws_inferred_pool.json"));
    let route = |t: u64| {
        lines
            .iter()
            .find(|l| l["op"] == "route" && l["at"] == t)
            .unwrap()
    };
    let upgrade = route(0);
    assert_eq!(upgrade["line"], "ali-ws", "Upgrade: websocket → ws pool");
    assert_eq!(upgrade["protocol"], "ws");
    assert_eq!(upgrade["url"], "https://ws-ali.example.com/stream");
    assert_eq!(upgrade["headers"]["Upgrade"], "websocket", "sent as is");
    let plain = route(1);
    assert_eq!(plain["line"], "ali", "without it → http pool");
    assert_eq!(plain["protocol"], "http");
    let ws_url = route(2);
    assert_eq!(ws_url["line"], "ali-ws", "a wss:// URL → ws pool");
    assert_eq!(ws_url["url"], "wss://ws-ali.example.com/stream");
    let forced = route(3);
    assert_eq!(
        forced["line"], "ali",
        "an explicit protocol overrides the inference"
    );
    assert_eq!(forced["protocol"], "http");
}
