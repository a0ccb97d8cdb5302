//! The privacy consent gate (`docs/architecture.md#consent`): an engine built to wait for
//! consent sends no probe, HTTPDNS query or config fetch until it is granted, routes the
//! app's requests from local data meanwhile, stops its own traffic again when consent is
//! revoked, and refuses a diagnosis; `clear_data` deletes everything it persisted; the
//! install seed that places an install in a rollout survives restarts.

use crate::support;

use linekit_core::engine::{LineKit, Report, RuntimeMode};
use linekit_core::error::Error;
use linekit_core::line::Outcome;
use std::sync::Arc;
use support::replay::{line_at, request_field, run_deterministic};
use support::temp::TempDir;

const GATE: &str = include_str!("../scenarios/consent_gate.json");

/// The kinds of the requests started in `[from, to)`, sorted and deduplicated.
fn kinds_between(requests: &[(u64, String)], from: u64, to: u64) -> Vec<String> {
    let mut kinds: Vec<String> = requests
        .iter()
        .filter(|(at, _)| (from..to).contains(at))
        .map(|(_, k)| k.clone())
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

#[test]
fn nothing_of_its_own_is_sent_before_consent_and_everything_after() {
    let lines = run_deterministic(GATE);
    let requests = request_field(&lines, "kind");
    // Before the grant at 60 s: a validated network, a lookup of an HTTPDNS host, a manual
    // detect, failed reports and the revive timer all stay local.
    assert_eq!(kinds_between(&requests, 0, 60_000), Vec::<String>::new());
    // The app's own requests are routed meanwhile, from the config and live statistics.
    for at in [0, 40, 59_000] {
        let r = line_at(&lines, "route", at);
        assert!(
            r["url"].as_str().unwrap().starts_with("https://spot-"),
            "at {at}: {r}"
        );
    }
    assert_eq!(
        line_at(&lines, "route", 40)["line"],
        "tx",
        "reports still count"
    );
    assert_eq!(line_at(&lines, "lookup", 10)["source"], "system");
    // After the grant: pre-resolve at once, the start-up detect and first config fetch
    // after the start-up delay, and lookups refresh again.
    assert_eq!(
        kinds_between(&requests, 60_000, 65_000),
        ["config", "httpdns", "probe"]
    );
    assert!(requests.contains(&(60_000, "httpdns".to_string())));
    assert!(requests.contains(&(61_000, "probe".to_string())));
    assert!(requests.contains(&(61_000, "config".to_string())));
    assert!(requests.contains(&(62_000, "httpdns".to_string())));
    // Revoked at 65 s: a detect, a lookup, a new validated network, the config retry and
    // the revive timer send nothing until the next grant at 200 s.
    assert_eq!(
        kinds_between(&requests, 65_000, 200_000),
        Vec::<String>::new()
    );
    assert_eq!(line_at(&lines, "route", 65_004)["line"], "tx");
    assert_eq!(
        kinds_between(&requests, 200_000, 260_001),
        ["config", "httpdns", "probe"]
    );
}

/// A config with one business line, HTTPDNS for its hosts and a remote URL.
const CONFIG: &str = r#"{"version": 1,
  "thresholds": {"startup_detect_delay_ms": 10, "detect_jitter_ms": 0},
  "biz_lines": {"spot": {"match": ["api.example.com"],
    "http": [{"id": "ali", "url": "https://spot-ali.example.com"}]}},
  "remote": {"urls": ["https://config.example.com/c.json"], "interval_s": 60, "jitter_s": 0}}"#;

#[test]
fn a_diagnosis_before_consent_is_a_clear_error() {
    let transport = Arc::new(support::transport::RecordingTransport::default());
    let (builder, clock) = support::manual::builder(CONFIG, 1);
    let kit = builder
        .transport(transport.clone())
        .runtime_mode(RuntimeMode::Manual)
        .require_consent(true)
        .build()
        .unwrap();
    assert!(!kit.consent_granted());
    let err = kit.diagnosis_plan(Some("spot")).unwrap_err();
    assert!(matches!(err, Error::ConsentRequired(_)), "{err:?}");
    assert!(err.to_string().contains("consent"), "{err}");
    assert!(!kit.refresh_config(), "no config fetch before consent");
    clock.set_now(120_000);
    kit.run_due();
    assert!(transport.requests().is_empty());
    kit.grant_consent();
    assert!(kit.diagnosis_plan(Some("spot")).is_ok());
    clock.set_now(121_000);
    kit.run_due();
    assert!(
        !transport.requests().is_empty(),
        "own traffic follows the grant"
    );
    kit.revoke_consent();
    assert!(matches!(
        kit.diagnosis_plan(None),
        Err(Error::ConsentRequired(_))
    ));
    // An engine that does not wait for consent has it from the start.
    let (builder, _clock) = support::manual::builder(CONFIG, 1);
    assert!(builder.build().unwrap().consent_granted());
}

/// An engine on `dir` without an explicit seed (the install seed file decides).
fn on_dir(dir: &TempDir, config: &str) -> LineKit {
    LineKit::builder()
        .config_json(config)
        .storage_dir(dir.path())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap()
}

#[test]
fn the_install_seed_keeps_a_rollout_across_restarts_until_clear_data() {
    let dir = TempDir::new("consent-seed");
    // Half of all installs observe: over restarts one install stays on its side.
    let config = r#"{"version": 1, "rollout": {"mode": "observe", "percent": 50, "others": "on"},
      "biz_lines": {"spot": {"match": ["api.example.com"],
        "http": [{"id": "ali", "url": "https://spot-ali.example.com"}]}}}"#;
    let first = on_dir(&dir, config).rollout_modes();
    for _ in 0..5 {
        assert_eq!(on_dir(&dir, config).rollout_modes(), first);
    }
    assert!(dir.path().join("install.seed").is_file());
    // Without the file each start is a new install: over a few starts both sides appear.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..64 {
        let kit = on_dir(&dir, config);
        seen.insert(kit.rollout_modes()["spot"].as_str());
        kit.clear_data().unwrap();
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

#[test]
fn clear_data_deletes_linekits_files_and_writes_nothing_after() {
    let dir = TempDir::new("consent-clear");
    let kit = on_dir(&dir, CONFIG);
    kit.run_due(); // the state load
    assert!(
        kit.update_config(&CONFIG.replace("\"version\": 1", "\"version\": 2"))
            .applied
    );
    kit.report(&Report::new("spot", "ali", Outcome::Ok, 20));
    // The app's own entries in the directory.
    std::fs::create_dir_all(dir.path().join("nested")).unwrap();
    std::fs::write(dir.path().join("nested/x"), "x").unwrap();
    std::fs::write(dir.path().join("app.json"), "{}").unwrap();
    let names = || {
        let mut n: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    let before = names();
    assert!(
        before.contains(&"install.seed".to_string())
            && before.contains(&"config.last_good".to_string()),
        "config and install seed written: {before:?}"
    );
    kit.clear_data().unwrap();
    let apps = ["app.json", "nested"];
    assert_eq!(names(), apps, "only Linekit's own files go");
    // A later config, report and the closing flush write nothing.
    assert!(
        kit.update_config(&CONFIG.replace("\"version\": 1", "\"version\": 3"))
            .applied
    );
    kit.report(&Report::new("spot", "ali", Outcome::Ok, 20));
    kit.close();
    assert_eq!(names(), apps);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("nested/x")).unwrap(),
        "x"
    );
    // Without a storage directory there is nothing to delete.
    let (builder, _clock) = support::manual::builder(CONFIG, 1);
    assert_eq!(builder.build().unwrap().clear_data(), Ok(()));
}
