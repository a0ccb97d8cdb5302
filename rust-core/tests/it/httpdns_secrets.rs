//! Provider secrets live only in the config: a planted secret of every `auth` kind, a
//! planted DNSPod id and a token in a remote config URL's query never appear in a trace
//! event, a log line, any field of `state()` / `state_json()`, a `Debug` dump of the config
//! or any error text, whatever the providers and config servers answer.

use crate::support;

use linekit_core::config::parse_config;
use linekit_core::dns::providers::auth::{aes_decrypt_hex, aes_encrypt_hex, aes_key};
use linekit_core::engine::RuntimeMode;
use linekit_core::trace::{TraceEvent, TraceSink};
use linekit_core::transport::{TransportError, TransportResult};
use parking_lot::Mutex;
use serde_json::json;
use std::sync::Arc;
use support::transport::RecordingTransport;

const MARK: &str = "PLANTED";
const ALI_SECRET: &str = "PLANTED-ali-secret";
const DES_KEY: &str = "PLANTED-des-key";
const AES_KEY: &str = "PLANTED-aes-key!";
const TOKEN: &str = "PLANTED-token";
/// A DNSPod account id (digits, as DNSPod issues them), planted: it travels in queries.
const DNSPOD_ID: &str = "90210773";
/// A remote config URL whose query carries a token.
const REMOTE_URL: &str = "https://cfg.example.com/lk.json?token=PLANTED-remote-token";

#[derive(Default)]
struct Traces(Mutex<Vec<String>>);

impl TraceSink for Traces {
    fn emit(&self, event: &TraceEvent) {
        self.0.lock().push(format!(
            "{} {event:?}",
            serde_json::to_string(event).unwrap_or_default()
        ));
    }
}

fn config(version: u64) -> String {
    json!({
        "version": version,
        // DNSPod DES/AES over http:// (confidentiality only) needs the app's consent.
        "allow_cleartext": true,
        "biz_lines": {"spot": {"match": ["api.example.com"],
            "http": [{"id": "a", "url": "https://spot-a.example.com"}]}},
        "thresholds": {"startup_detect_delay_ms": 100000000, "revive_interval_ms": 100000000},
        "trace": {"sample_rate": 1.0},
        "httpdns": {
            "hosts": ["*.example.com"], "min_ttl_s": 30,
            "providers": [
                {"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/1/d",
                 "auth": {"kind": "aliyun-sign", "secret": ALI_SECRET, "validity_s": 600}},
                {"id": "alib", "format": "aliyun-batch", "url": "https://203.107.1.1/1/resolve",
                 "auth": {"kind": "aliyun-sign", "secret": ALI_SECRET}},
                {"id": "des", "format": "dnspod", "url": "http://119.29.29.98/d",
                 "auth": {"kind": "dnspod-des", "id": DNSPOD_ID, "key": DES_KEY}},
                {"id": "aes", "format": "dnspod", "url": "http://119.29.29.98/d",
                 "auth": {"kind": "dnspod-aes", "id": DNSPOD_ID, "key": AES_KEY}},
                {"id": "https", "format": "dnspod", "url": "https://119.29.29.99/d",
                 "auth": {"kind": "dnspod-https", "token": TOKEN}}
            ]
        },
        "remote": {"urls": [REMOTE_URL], "interval_s": 600, "jitter_s": 0}
    })
    .to_string()
}

#[test]
fn no_secret_reaches_traces_logs_state_or_error_texts() {
    support::logs::capture(log::LevelFilter::Trace);
    let transport = Arc::new(RecordingTransport::default());
    let traces = Arc::new(Traces::default());
    let (builder, clock) = support::manual::builder(config(1), 9);
    let kit = builder
        .transport(transport.clone())
        .trace_sink(traces.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    let key = aes_key(AES_KEY).unwrap();
    // Every kind of bad answer, in turn, on every provider.
    let answers: Vec<TransportResult> = vec![
        TransportResult::Response {
            status: 403,
            body: br#"{"code":"SignatureExpired"}"#.to_vec(),
            headers: Vec::new(),
        },
        TransportResult::Response {
            status: 403,
            body: br#"{"code":"InvalidSignature"}"#.to_vec(),
            headers: Vec::new(),
        },
        TransportResult::Response {
            status: 200,
            body: b"0123456789abcdef0".to_vec(),
            headers: Vec::new(),
        },
        TransportResult::Response {
            status: 200,
            body: aes_encrypt_hex(b"evil.example.net.:1.2.3.4,60", &key, &[7; 16]).into_bytes(),
            headers: Vec::new(),
        },
        TransportResult::Failed(TransportError::Other("connection reset".into())),
    ];
    // The config server is asked now and refuses; a later round is left unanswered.
    assert!(kit.refresh_config(), "a fetch round starts");
    kit.run_due();
    for (r, done) in transport.take_waiting() {
        assert_eq!(r.url, REMOTE_URL);
        done.complete(TransportResult::Response {
            status: 403,
            body: b"denied".to_vec(),
            headers: Vec::new(),
        });
    }
    let mut i = 0;
    for round in 0..40u64 {
        for host in ["api.example.com", "b.example.com", "c.example.com"] {
            kit.lookup(host);
        }
        kit.run_due();
        for (_, done) in transport.take_waiting() {
            done.complete(answers[i % answers.len()].clone());
            i += 1;
        }
        kit.run_due();
        clock.advance(31_000 + round * 17_000);
        kit.run_due();
    }
    assert!(i >= 10, "the providers were asked ({i} answers)");
    let state = kit.state();
    assert_eq!(
        state
            .config
            .fetch
            .iter()
            .map(|f| f.url.as_str())
            .collect::<Vec<_>>(),
        [linekit_core::trace::redact_url(REMOTE_URL)],
        "the fetch is listed, redacted"
    );
    let config_debug = format!("{:?}", kit.config());
    let mut texts: Vec<String> = Vec::new();
    texts.push(kit.state_json());
    // Every field of the typed state, whatever a binding reads.
    texts.push(format!("{state:?}"));
    texts.extend(traces.0.lock().iter().cloned());
    texts.extend(support::logs::lines());
    // A config update with bad auth values: refused, its error text scanned too.
    let mut bad: serde_json::Value = serde_json::from_str(&config(2)).unwrap();
    bad["httpdns"]["providers"][2]["auth"]["key"] = json!("PLANTED");
    bad["httpdns"]["providers"][3]["auth"]["key"] = json!("PLANTED-much-too-long-for-aes");
    bad["httpdns"]["providers"][0]["format"] = json!("dnspod");
    let u = kit.update_config(&bad.to_string());
    assert!(!u.applied);
    texts.push(format!("{:?}", u));
    texts.push(parse_config(&bad.to_string()).unwrap_err().to_string());
    assert!(
        texts.iter().any(|t| t.contains("SignatureExpired")),
        "the logs were captured"
    );
    for t in &texts {
        assert!(!t.contains(MARK), "a secret leaked: {t}");
        assert!(!t.contains(DNSPOD_ID), "a DNSPod id leaked: {t}");
    }
    // The config's `Debug` keeps keys, secrets and URL tokens out (the DNSPod id is a
    // plain config field there).
    assert!(
        !config_debug.contains(MARK),
        "a secret leaked: {config_debug}"
    );
}

#[test]
fn each_aes_query_carries_its_own_iv() {
    let transport = Arc::new(RecordingTransport::default());
    let (builder, _clock) = support::manual::builder(config(1), 9);
    let kit = builder
        .transport(transport.clone())
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .unwrap();
    // Every provider before the AES one fails, so each host reaches it.
    for host in ["api.example.com", "b.example.com"] {
        kit.lookup(host);
        for _ in 0..6 {
            kit.run_due();
            for (r, done) in transport.take_waiting() {
                if !r.url.contains("alg=aes") {
                    done.complete(TransportResult::Failed(TransportError::Other(
                        "reset".into(),
                    )));
                }
            }
        }
    }
    let key = aes_key(AES_KEY).unwrap();
    let ivs: Vec<(String, Vec<u8>)> = transport
        .requests()
        .iter()
        .filter_map(|r| {
            let dn = r.url.split("dn=").nth(1)?.split('&').next()?.to_string();
            r.url.contains("alg=aes").then(|| {
                let host = aes_decrypt_hex(dn.as_bytes(), &key).expect("decrypts");
                (dn[..32].to_string(), host)
            })
        })
        .collect();
    assert!(
        ivs.len() >= 2,
        "both hosts reached the AES provider: {ivs:?}"
    );
    assert_ne!(ivs[0].1, ivs[1].1, "two hosts");
    assert_ne!(ivs[0].0, ivs[1].0, "each query has its own IV");
}
