//! The remote config channel in `linekit replay`: `wall_start_ms` fixes the wall clock,
//! config fetches print `request` lines of kind `config`, `respond` carries headers, the
//! `config` op accepts a signed envelope and `state` shows the config's source, version,
//! expiry and the last outcome per URL.

use crate::support;

use linekit_tools::replay;
use serde_json::{json, Value};
use support::signing::*;

const URLS: &str = r#""remote":{"urls":["https://cfg-a.example.com/lk.json","https://cfg-b.example.net/lk.json"],"interval_s":600,"jitter_s":0,"timeout_ms":2000}"#;

fn scenario(steps: &[Value]) -> String {
    let k1 = key(1);
    let config: Value =
        serde_json::from_str(&trusted_config(1, &trust(&[("k1", &k1)], 1), LATER_S, URLS)).unwrap();
    json!({ "config": config, "seed": 3, "wall_start_ms": NOW_S * 1000, "steps": steps })
        .to_string()
}

fn run(steps: &[Value]) -> Vec<Value> {
    support::replay::run(&scenario(steps))
}

fn last_config_request(lines: &[Value]) -> Value {
    lines
        .iter()
        .rfind(|l| l["op"] == "request" && l["kind"] == "config")
        .cloned()
        .expect("a config request")
}

fn signed(version: u64) -> Value {
    let k1 = key(1);
    serde_json::from_str(&envelope(
        &trusted_config(version, &trust(&[("k1", &k1)], 1), LATER_S, URLS),
        &[("k1", &k1)],
    ))
    .unwrap()
}

#[test]
fn fetches_fail_over_apply_an_envelope_and_show_in_state() {
    let mut steps = vec![json!({"at": 1000, "op": "tick"})];
    let first = last_config_request(&run(&steps));
    assert_eq!(first["method"], "GET");
    assert_eq!(first["url"], "https://cfg-a.example.com/lk.json");
    assert_eq!(first["at"], 1000);
    steps.push(json!({"at": 1100, "op": "respond", "id": first["id"], "error": "connect_refused"}));
    let second = last_config_request(&run(&steps));
    assert_eq!(second["url"], "https://cfg-b.example.net/lk.json");
    let body = signed(2).to_string();
    steps.push(
        json!({"at": 1200, "op": "respond", "id": second["id"], "status": 200,
                      "body": body, "headers": {"ETag": "\"v2\""}}),
    );
    steps.push(json!({"at": 1300, "op": "state"}));
    let bare = trusted_config(3, &trust(&[("k1", &key(1))], 1), LATER_S, URLS);
    steps.push(json!({"at": 1400, "op": "config", "config": serde_json::from_str::<Value>(&bare).unwrap()}));
    steps.push(json!({"at": 1500, "op": "config", "config": signed(2)}));
    steps.push(json!({"at": 1600, "op": "config", "config": signed(3)}));
    steps.push(json!({"at": 601_200, "op": "tick"}));
    let lines = run(&steps);
    let state = lines.iter().find(|l| l["op"] == "state").unwrap();
    let config = &state["config"];
    assert_eq!(config["source"], "remote");
    assert_eq!(config["version"], 2);
    assert_eq!(config["expires_at"], LATER_S);
    assert_eq!(
        config["fetch"],
        json!([
            {"url": "https://cfg-a.example.com/lk.json", "last_outcome": "connect_refused"},
            {"url": "https://cfg-b.example.net/lk.json", "last_outcome": "applied"},
        ])
    );
    let configs: Vec<&Value> = lines.iter().filter(|l| l["op"] == "config").collect();
    assert_eq!(configs[0]["applied"], false);
    assert!(configs[0]["error"]
        .as_str()
        .unwrap()
        .starts_with("unsigned: "));
    assert!(configs[1]["error"]
        .as_str()
        .unwrap()
        .starts_with("not_newer: "));
    assert_eq!(configs[2]["applied"], true);
    assert_eq!(configs[2]["version"], 3);
    // The next round comes one interval after the good one.
    let next = last_config_request(&lines);
    assert_eq!(next["at"], 601_200);
    assert_eq!(next["url"], "https://cfg-a.example.com/lk.json");
    // Deterministic.
    assert_eq!(run(&steps), lines);
}

#[test]
fn wall_start_ms_decides_expiry() {
    // The same signed config is expired when the scenario's wall clock is past it.
    let k1 = key(1);
    let t1 = trust(&[("k1", &k1)], 1);
    let doc: Value = serde_json::from_str(&envelope(
        &trusted_config(2, &t1, NOW_S + 5, URLS),
        &[("k1", &k1)],
    ))
    .unwrap();
    let app: Value = serde_json::from_str(&trusted_config(1, &t1, LATER_S, "")).unwrap();
    let at = |wall_s: u64| {
        let text = json!({"config": app, "wall_start_ms": wall_s * 1000,
                          "steps": [{"at": 0, "op": "config", "config": doc}]})
        .to_string();
        let mut out = Vec::new();
        replay::run(&text, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|l| l["op"] == "config")
            .unwrap()
    };
    assert_eq!(at(NOW_S)["applied"], true);
    let late = at(NOW_S + 5);
    assert_eq!(late["applied"], false);
    assert!(late["error"].as_str().unwrap().starts_with("expired: "));
}
