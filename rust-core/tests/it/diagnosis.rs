//! The core's half of a network diagnosis: the plan (lines, ports, TLS, probe requests on
//! each line's own origin, probes within the global budget, nothing when the platform
//! reported no network) and the report (each failure named, system answers the address
//! policy refuses listed, no URLs or paths, platform details cleaned).

use linekit_core::diagnose::{
    AddressObservation, DiagnosisPlan, HostObservation, Observations, ProbeObservation,
};
use linekit_core::engine::RuntimeMode;
use linekit_core::net::NetworkState;
use linekit_core::transport::{Completion, Transport, TransportRequest};
use linekit_core::{LineKit, ManualClock};
use serde_json::Value;
use std::sync::Arc;

struct Silent;
impl Transport for Silent {
    fn start(&self, _: TransportRequest, _: Completion) {}
}

fn kit(budget: u32) -> LineKit {
    let config = format!(
        r#"{{"version":1,"allow_cleartext":true,
        "thresholds":{{"probe_budget_per_min":{budget},"startup_detect_delay_ms":600000}},
        "biz_lines":{{
          "spot":{{"match":["api.example.com"],"detect_path":"/line/ping",
            "http":[{{"id":"refused","url":"http://127.0.0.1:1001"}},
                    {{"id":"busy","url":"http://127.0.0.1:1002"}},
                    {{"id":"good","url":"https://spot.example.com"}}]}},
          "cdn":{{"http":[{{"id":"main","url":"https://cdn.example.net:8443"}}]}}}}}}"#
    );
    LineKit::builder()
        .config_json(config)
        .clock(Arc::new(ManualClock::new(0, 1_700_000_000_000)))
        .transport(Arc::new(Silent))
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap()
}

fn ip(s: &str) -> std::net::IpAddr {
    s.parse().unwrap()
}

#[test]
fn the_plan_lists_every_line_with_its_own_probe_and_the_budget_limits_probes() {
    let kit = kit(3);
    let plan = kit.diagnosis_plan(Some("spot")).unwrap();
    let summary: Vec<(String, u16, bool, &str, bool)> = plan
        .lines
        .iter()
        .map(|l| {
            (
                l.key(),
                l.port,
                l.tls,
                l.probe_url.as_str(),
                l.probe_allowed,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "spot/refused".into(),
                1001,
                false,
                "http://127.0.0.1:1001/line/ping",
                true
            ),
            (
                "spot/busy".into(),
                1002,
                false,
                "http://127.0.0.1:1002/line/ping",
                true
            ),
            (
                "spot/good".into(),
                443,
                true,
                "https://spot.example.com/line/ping",
                true
            ),
        ]
    );
    assert_eq!(plan.hosts.len(), 2, "127.0.0.1 is listed once");
    assert_eq!(plan.hosts[0].httpdns_source, "literal");
    assert!(!plan.network_reported);
    // The budget (3 per minute) is spent: the next plan gets no probe.
    let all = kit.diagnosis_plan(None).unwrap();
    assert_eq!(all.lines.len(), 4);
    assert!(all
        .lines
        .iter()
        .all(|l| !l.probe_allowed && l.probe_skipped.as_deref() == Some("probe_budget")));
    assert!(kit.diagnosis_plan(Some("nope")).is_err());
}

#[test]
fn no_network_plans_nothing_and_says_so() {
    let kit = kit(20);
    kit.on_network_changed(NetworkState::default());
    let plan = kit.diagnosis_plan(None).unwrap();
    assert!(plan.network_reported && !plan.network_available());
    assert!(plan.lines.iter().all(|l| !l.probe_allowed));
    let r = kit.diagnosis_report(&plan, &Observations::default());
    let v: Value = serde_json::from_str(&r.json).unwrap();
    assert_eq!(v["network"]["available"], false);
    assert_eq!(v["lines"]["spot/good"]["result"], "no_network");
    assert!(r.text.contains("Network: NONE"), "{}", r.text);
}

fn observed(plan: &DiagnosisPlan) -> Observations {
    let _ = plan;
    Observations {
        hosts: vec![HostObservation {
            host: "spot.example.com".into(),
            addresses: vec![ip("93.184.216.34"), ip("10.1.2.3")],
            error: None,
            ms: Some(4),
        }],
        addresses: vec![
            AddressObservation {
                line: "spot/refused".into(),
                addr: ip("127.0.0.1"),
                tcp_ms: None,
                tcp_error: Some("connect_refused".into()),
                tls_ms: None,
                tls_error: None,
            },
            AddressObservation {
                line: "spot/busy".into(),
                addr: ip("127.0.0.1"),
                tcp_ms: Some(1),
                tcp_error: None,
                tls_ms: None,
                tls_error: None,
            },
            AddressObservation {
                line: "spot/good".into(),
                addr: ip("93.184.216.34"),
                tcp_ms: Some(12),
                tcp_error: None,
                tls_ms: None,
                tls_error: Some(
                    "tls_failure (SSLHandshakeException: https://spot.example.com/a?token=s3cr3t)"
                        .into(),
                ),
            },
        ],
        probes: vec![
            ProbeObservation {
                line: "spot/refused".into(),
                status: None,
                ms: Some(1),
                error: Some("connect_refused".into()),
            },
            ProbeObservation {
                line: "spot/busy".into(),
                status: Some(503),
                ms: Some(3),
                error: None,
            },
        ],
        elapsed_ms: 40,
        timed_out: false,
    }
}

#[test]
fn the_report_names_each_failure_and_is_redacted() {
    let kit = kit(20);
    let plan = kit.diagnosis_plan(Some("spot")).unwrap();
    let r = kit.diagnosis_report(&plan, &observed(&plan));
    let v: Value = serde_json::from_str(&r.json).unwrap();
    let lines = &v["lines"];
    assert_eq!(lines["spot/refused"]["result"], "tcp_failed");
    assert_eq!(
        lines["spot/refused"]["addresses"][0]["tcp_error"],
        "connect_refused"
    );
    assert_eq!(lines["spot/busy"]["result"], "probe_failed");
    assert_eq!(lines["spot/busy"]["probe"]["status"], 503);
    assert_eq!(lines["spot/busy"]["addresses"][0]["tcp_ms"], 1);
    assert_eq!(lines["spot/good"]["result"], "tls_failed");
    assert_eq!(lines["spot/good"]["host"], "*.example.com");
    let host = v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == "*.example.com")
        .unwrap();
    assert_eq!(host["rejected"][0]["addr"], "10.1.2.3");
    assert_eq!(host["rejected"][0]["why"], "private");
    assert_eq!(host["rejected"][0]["source"], "system");
    assert!(
        r.text
            .contains("spot/refused [http] ip:1001: FAILED: tcp connect_refused"),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains("spot/busy [http] ip:1002: FAILED: probe HTTP 503"),
        "{}",
        r.text
    );
    for out in [&r.json, &r.text] {
        assert!(
            !out.contains("spot.example.com"),
            "host names are grouped: {out}"
        );
        assert!(
            !out.contains("/line/ping") && !out.contains("://"),
            "no URLs: {out}"
        );
        assert!(
            !out.contains("token=") && !out.contains("?"),
            "no queries: {out}"
        );
    }
}
