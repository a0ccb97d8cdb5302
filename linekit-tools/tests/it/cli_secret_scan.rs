//! No `linekit` command prints a secret: a config planting a secret of every provider
//! `auth` kind, a DNSPod id and a token in a remote config URL's query is run through every
//! command (each match arm of the CLI's dispatch is driven, checked against its source),
//! and nothing any of them writes — stdout, stderr, the trace file, the HTML report —
//! contains a planted value. Two commands print the config document itself by design:
//! `config open` (it recovers the sealed asset) and `config sign` (the envelope carries
//! the config's bytes, base64-encoded); their outputs are checked to be exactly that.

use crate::support;

use serde_json::{json, Value};
use support::signing::{key, public, NOW_S};
use support::temp::TempDir;

/// Every planted value starts with this mark, except the DNSPod id (digits).
const MARK: &str = "PLANTED";
const DNSPOD_ID: &str = "90210773";
const REMOTE_URL: &str = "https://cfg.example.com/lk.json?token=PLANTED-remote-token";
const SEAL_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn config() -> Value {
    json!({
        "version": 1,
        "allow_cleartext": true,
        "biz_lines": {"spot": {"match": ["api.example.com"],
            "http": [{"id": "a", "url": "https://spot-a.example.com"},
                     {"id": "b", "url": "https://spot-b.example.com"}]}},
        "thresholds": {"startup_detect_delay_ms": 10, "detect_jitter_ms": 0},
        "httpdns": {
            "hosts": ["*.example.com"],
            "providers": [
                {"id": "ali", "format": "aliyun", "url": "https://203.107.1.1/1/d",
                 "auth": {"kind": "aliyun-sign", "secret": "PLANTED-ali-secret"}},
                {"id": "des", "format": "dnspod", "url": "http://119.29.29.98/d",
                 "auth": {"kind": "dnspod-des", "id": DNSPOD_ID, "key": "PLANTED-des-key"}},
                {"id": "aes", "format": "dnspod", "url": "http://119.29.29.98/d",
                 "auth": {"kind": "dnspod-aes", "id": DNSPOD_ID, "key": "PLANTED-aes-key!"}},
                {"id": "https", "format": "dnspod", "url": "https://119.29.29.99/d",
                 "auth": {"kind": "dnspod-https", "token": "PLANTED-token"}}
            ]
        },
        "remote": {"urls": [REMOTE_URL], "interval_s": 600, "jitter_s": 0}
    })
}

/// A scenario over [`config`] that makes every provider and the config server be asked,
/// answers some of them badly, lets the rest time out, shows the state and offers a
/// config whose planted values are malformed.
fn scenario() -> Value {
    let mut bad = config();
    bad["version"] = json!(2);
    bad["httpdns"]["providers"][1]["auth"]["key"] = json!("PLANTED");
    bad["httpdns"]["providers"][0]["format"] = json!("dnspod");
    let mut steps = vec![json!({"at": 0, "op": "network", "handle": 1, "validated": true})];
    for (i, host) in ["api.example.com", "b.example.com"].iter().enumerate() {
        steps.push(json!({"at": 1 + i as u64, "op": "lookup", "host": host}));
    }
    steps.push(
        json!({"at": 5, "op": "route", "url": "https://api.example.com/x",
                      "method": "GET", "headers": {"X-Line-Fixed-Host": "https://[::1]:22"}}),
    );
    steps.push(json!({"at": 20, "op": "respond", "id": 1, "status": 403,
                      "body": "{\"code\":\"InvalidSignature\"}"}));
    for at in (1_000..=60_000).step_by(1_000) {
        steps.push(json!({"at": at, "op": "tick"}));
    }
    steps.push(json!({"at": 60_001, "op": "lookup", "host": "c.example.com"}));
    steps.push(json!({"at": 120_000, "op": "state"}));
    steps.push(json!({"at": 120_001, "op": "config", "config": bad}));
    json!({"config": config(), "seed": 5, "wall_start_ms": NOW_S * 1000, "steps": steps})
}

/// Everything one command wrote.
struct Ran {
    args: Vec<String>,
    code: i32,
    texts: Vec<String>,
}

fn run(args: &[&str], stdin: &[u8]) -> Ran {
    let o = support::cli::run(args, stdin);
    Ran {
        args: args.iter().map(|a| a.to_string()).collect(),
        code: o.code,
        texts: vec![o.out, o.err],
    }
}

/// The command words of each arm of the CLI's dispatch (`["config", "sign", rest @ ..]`
/// → `config sign`), read from its source so a new command cannot escape this test.
fn dispatched_commands() -> Vec<Vec<String>> {
    include_str!("../../src/cli/mod.rs")
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("[\"") && l.contains("=>"))
        .map(|l| {
            let pattern = &l[1..l.find(']').unwrap()];
            pattern
                .split(',')
                .map(str::trim)
                .take_while(|w| w.starts_with('"'))
                .map(|w| w.trim_matches('"').to_string())
                .collect()
        })
        .collect()
}

#[test]
fn no_command_prints_a_planted_secret() {
    let dir = TempDir::new("cli-secret-scan");
    let config_text = config().to_string();
    let config_file = dir.write("config.json", &config_text);
    let mut broken = config();
    broken["httpdns"]["providers"][3]["auth"]["token"] = json!(["PLANTED-in-a-list"]);
    broken["httpdns"]["providers"][2]["auth"]["key"] = json!("PLANTED-much-too-long-for-aes");
    let broken_file = dir.write("broken.json", &broken.to_string());
    let scenario_file = dir.write("scenario.json", &scenario().to_string());
    let trace_file = dir.file("trace.jsonl");
    let html_file = dir.file("report.html");
    let k = key(1);
    let key_file = dir.write(
        "k1.json",
        &json!({"private_key": base64_seed(&k), "public_key": public(&k)}).to_string(),
    );
    let trust_file = dir.write(
        "trust.json",
        &json!({"keys": [{"id": "k1", "ed25519": public(&k)}], "threshold": 1}).to_string(),
    );

    let mut runs = vec![
        run(&["version"], b""),
        run(&["config", "check", &config_file], b""),
        run(&["config", "check", &broken_file], b""),
        run(&["config", "check", "-"], broken.to_string().as_bytes()),
        run(&["config", "schema"], b""),
        run(&["trace", "schema"], b""),
        run(&["config", "keygen"], b""),
        run(
            &["config", "seal", "--key-hex", SEAL_KEY, &broken_file],
            b"",
        ),
        run(&["ip", "classify", "10.0.0.1", "93.184.216.34"], b""),
        run(&["ip", "order", "10.0.0.1", "2001:db8::1"], b""),
        run(
            &["httpdns", "parse", "--format", "aliyun", "-"],
            b"{\"ips\":[]}",
        ),
        run(
            &[
                "httpdns",
                "parse",
                "--config",
                &config_file,
                "--provider",
                "des",
                "--host",
                "a.example.com",
                "-",
            ],
            b"not hex",
        ),
        run(&["replay", &scenario_file, "--trace-out", &trace_file], b""),
        run(&["replay", &scenario_file], b""),
    ];
    for provider in ["ali", "des", "aes", "https"] {
        runs.push(run(
            &[
                "httpdns",
                "request",
                "--config",
                &config_file,
                "--provider",
                provider,
                "--host",
                "a.example.com",
                "--now-s",
                "1700000000",
            ],
            b"",
        ));
    }
    let replayed = runs.iter().find(|r| r.args[0] == "replay").unwrap();
    assert_eq!(replayed.code, 0, "{:?}", replayed.texts);
    let printed = &replayed.texts[0];
    for kind in [
        "\"kind\":\"httpdns\"",
        "\"kind\":\"config\"",
        "\"op\":\"state\"",
    ] {
        assert!(
            printed.contains(kind),
            "the scenario shows {kind}: {printed}"
        );
    }
    runs.push(run(
        &[
            "replay",
            "--from-trace",
            &trace_file,
            "--config",
            &config_file,
            "--compare",
            "--html",
            &html_file,
        ],
        b"",
    ));
    let last = runs.last_mut().unwrap();
    assert_eq!(last.code, 0, "{:?}", last.texts);
    last.texts
        .push(std::fs::read_to_string(&trace_file).unwrap());
    last.texts
        .push(std::fs::read_to_string(&html_file).unwrap());

    // The two commands that print the config itself, by design.
    let sealed = run(
        &["config", "seal", "--key-hex", SEAL_KEY, &config_file],
        b"",
    );
    assert_eq!(sealed.code, 0, "{:?}", sealed.texts);
    let sealed_file = dir.write("sealed.json", &sealed.texts[0]);
    let opened = run(
        &["config", "open", "--key-hex", SEAL_KEY, &sealed_file],
        b"",
    );
    let doc: Value = serde_json::from_str(opened.texts[0].trim()).unwrap();
    assert_eq!(
        doc,
        config(),
        "open prints the sealed config, secrets included"
    );
    let signed = run(
        &[
            "config",
            "sign",
            "--private-key-file",
            &key_file,
            "--key-id",
            "k1",
            &config_file,
        ],
        b"",
    );
    assert_eq!(signed.code, 0, "{:?}", signed.texts);
    let envelope_file = dir.write("envelope.json", &signed.texts[0]);
    runs.push(sealed);
    runs.push(run(
        &[
            "config",
            "verify",
            "--trust",
            &trust_file,
            "--now-s",
            "1700000000",
            &envelope_file,
        ],
        b"",
    ));
    let by_design = [opened, signed];

    for r in &runs {
        for t in &r.texts {
            assert!(
                !t.contains(MARK),
                "linekit {:?} printed a secret: {t}",
                r.args
            );
            assert!(
                !t.contains(DNSPOD_ID),
                "linekit {:?} printed a DNSPod id: {t}",
                r.args
            );
        }
    }
    let all: Vec<&Ran> = runs.iter().chain(&by_design).collect();
    for words in dispatched_commands() {
        assert!(
            all.iter().any(|r| r.args.starts_with(&words)),
            "`linekit {}` is not driven by this test",
            words.join(" ")
        );
    }
}

/// The base64 seed of `k`, as `config keygen` prints it.
fn base64_seed(k: &ed25519_dalek::SigningKey) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(k.to_bytes())
}
