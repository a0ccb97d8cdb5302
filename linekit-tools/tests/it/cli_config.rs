//! `linekit config check|seal|open` driven in-process through `cli::run` (`docs/architecture.md#cli`).

use crate::support;

use serde_json::{json, Value};
use std::path::PathBuf;
use support::cli::{error_of, json_of, run as cli};

const KEY_HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const OTHER_KEY_HEX: &str = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const REFERENCE_EXAMPLE: &str =
    include_str!("../../../rust-core/tests/fixtures/reference_example.json");

fn json_lines(text: &str) -> Vec<Value> {
    text.lines().map(json_of).collect()
}

/// A file under the system temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!(
            "linekit-cli-{name}-{}-{nanos}.json",
            std::process::id()
        ));
        std::fs::write(&path, contents).expect("write temp file");
        TempFile(path)
    }

    fn arg(&self) -> &str {
        self.0.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn check_accepts_the_reference_example() {
    let file = TempFile::new("reference", REFERENCE_EXAMPLE.as_bytes());
    let o = cli(&["config", "check", file.arg()], b"");
    assert_eq!(o.code, 0, "{}", o.err);
    assert_eq!(
        o.out.trim(),
        r#"{"ok":true,"version":3,"biz_lines":["cdn","spot"]}"#
    );
    assert!(o.err.is_empty());
    // `-` reads stdin.
    let o = cli(&["config", "check", "-"], REFERENCE_EXAMPLE.as_bytes());
    assert_eq!(o.code, 0);
    assert_eq!(json_of(&o.out)["version"], 3);
}

#[test]
fn check_reports_every_error_on_both_streams() {
    let bad = json!({
        "version": 1,
        "biz_lines": {
            "spot": {"http": [
                {"id": "a", "url": "https://a.example.com"},
                {"id": "a", "url": "http://b.example.com"}
            ]}
        },
        "merge_hosts": [{"host": "img.example.com", "biz": "cdn", "rate": 2}]
    });
    let o = cli(&["config", "check", "-"], bad.to_string().as_bytes());
    assert_eq!(o.code, 1);
    let want = json!([
        {"path": "biz_lines.spot.http[1].id", "error": "duplicate line id (already used by http[0])"},
        {"path": "biz_lines.spot.http[1].url", "error": "cleartext http is not allowed (set allow_cleartext)"},
        {"path": "merge_hosts[0].biz", "error": "unknown business line"},
        {"path": "merge_hosts[0].rate", "error": "must be a number in [0, 1]"},
    ]);
    assert_eq!(Value::Array(json_lines(&o.err)), want);
    assert_eq!(json_of(&o.out), json!({"ok": false, "errors": want}));
}

#[test]
fn check_reports_non_json_non_utf8_and_oversized_input_as_config_errors() {
    for input in [
        b"not json".to_vec(),
        vec![0xff, 0xfe, b'{'],
        vec![b' '; 2 * 1024 * 1024],
    ] {
        let o = cli(&["config", "check", "-"], &input);
        assert_eq!(o.code, 1);
        let lines = json_lines(&o.err);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["path"], "");
        assert_eq!(json_of(&o.out)["ok"], false);
    }
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let o = cli(&["config", "check", "/definitely/not/here.json"], b"");
    assert_eq!(o.code, 1);
    let e = error_of(&o.err);
    assert!(e.contains("no such file"), "{e}");
    let o = cli(
        &[
            "config",
            "open",
            "--key-hex",
            KEY_HEX,
            "/definitely/not/here",
        ],
        b"",
    );
    assert_eq!(o.code, 1);
    // A directory is unreadable as a file.
    let o = cli(
        &[
            "config",
            "check",
            std::env::temp_dir().to_str().unwrap_or("/"),
        ],
        b"",
    );
    assert_eq!(o.code, 1);
    assert!(json_of(&o.err)["error"].is_string());
}

#[test]
fn seal_then_open_round_trips() {
    let plain = TempFile::new("plain", REFERENCE_EXAMPLE.as_bytes());
    let sealed = cli(&["config", "seal", "--key-hex", KEY_HEX, plain.arg()], b"");
    assert_eq!(sealed.code, 0, "{}", sealed.err);
    let doc = json_of(&sealed.out);
    let text = doc["sealed"]
        .as_str()
        .expect("sealed is a string")
        .to_string();
    assert!(
        !sealed.out.contains("spot-ali"),
        "sealed output leaks plaintext"
    );

    // The JSON wrapper as a file…
    let wrapped = TempFile::new("sealed", sealed.out.as_bytes());
    let opened = cli(
        &["config", "open", "--key-hex", KEY_HEX, wrapped.arg()],
        b"",
    );
    assert_eq!(opened.code, 0, "{}", opened.err);
    assert_eq!(json_of(&opened.out), json_of(REFERENCE_EXAMPLE));
    // …and raw base64 on stdin, with the flag after the file.
    let opened = cli(
        &["config", "open", "-", &format!("--key-hex={KEY_HEX}")],
        format!("{text}\n").as_bytes(),
    );
    assert_eq!(opened.code, 0, "{}", opened.err);
    assert_eq!(json_of(&opened.out), json_of(REFERENCE_EXAMPLE));
}

#[test]
fn open_with_the_wrong_key_or_tampered_text_fails_without_leaking() {
    let sealed = cli(
        &["config", "seal", "--key-hex", KEY_HEX, "-"],
        REFERENCE_EXAMPLE.as_bytes(),
    );
    assert_eq!(sealed.code, 0);
    let o = cli(
        &["config", "open", "--key-hex", OTHER_KEY_HEX, "-"],
        sealed.out.as_bytes(),
    );
    assert_eq!(o.code, 1);
    assert!(o.out.is_empty());
    let why = json_of(&o.err)["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("wrong key"), "{why}");
    assert!(!o.err.contains(OTHER_KEY_HEX) && !o.err.contains("example.com"));

    for junk in ["", "%%%", "{\"sealed\": 5}", "{\"sealed\":", "QUJD"] {
        let o = cli(
            &["config", "open", "--key-hex", KEY_HEX, "-"],
            junk.as_bytes(),
        );
        assert_eq!(o.code, 1, "{junk}");
        assert!(json_of(&o.err)["error"].is_string(), "{junk}: {}", o.err);
    }
}

#[test]
fn seal_refuses_an_invalid_config_and_bad_keys() {
    let o = cli(
        &["config", "seal", "--key-hex", KEY_HEX, "-"],
        br#"{"version": 1}"#,
    );
    assert_eq!(o.code, 1);
    assert_eq!(json_lines(&o.err)[0]["path"], "biz_lines");
    assert_eq!(json_of(&o.out)["ok"], false);

    for key in ["abc", &KEY_HEX.replace('0', "g"), ""] {
        let o = cli(
            &["config", "seal", "--key-hex", key, "-"],
            REFERENCE_EXAMPLE.as_bytes(),
        );
        assert_eq!(o.code, 1, "{key}");
        let why = json_of(&o.err)["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(why.contains("key"), "{why}");
        if !key.is_empty() {
            assert!(!why.contains(key));
        }
    }
}

#[test]
fn open_validates_what_it_opened() {
    let sealed = linekit_core::config::seal(
        br#"{"version": 1, "biz_lines": {"spot": {}}}"#,
        &linekit_core::config::parse_key_hex(KEY_HEX).expect("key"),
    )
    .expect("seal");
    let o = cli(
        &["config", "open", "--key-hex", KEY_HEX, "-"],
        sealed.as_bytes(),
    );
    assert_eq!(o.code, 1);
    assert_eq!(json_lines(&o.err)[0]["path"], "biz_lines.spot");
    assert_eq!(json_of(&o.out)["ok"], false);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["config"],
        vec!["config", "check"],
        vec!["config", "check", "a", "b"],
        vec!["config", "check", "--key-hex", KEY_HEX, "a"],
        vec!["config", "seal", "a"],
        vec!["config", "open", "--key-hex"],
        vec!["config", "frobnicate", "a"],
        vec!["config", "check", "--verbose", "a"],
    ] {
        let o = cli(&args, b"");
        assert_eq!(o.code, 2, "{args:?}");
        assert!(json_of(&o.err)["error"].is_string());
        assert!(o.out.is_empty());
    }
}

#[test]
fn schema_prints_the_documented_config_schema() {
    let o = cli(&["config", "schema"], b"");
    assert_eq!(o.code, 0, "{}", o.err);
    assert_eq!(o.out, include_str!("../../../docs/config.schema.json"));
}

#[cfg(unix)]
#[test]
fn checking_a_fifo_or_a_directory_fails_at_once() {
    let dir = support::temp::TempDir::new("cli-fifo");
    let fifo = dir.file("config.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    for path in [fifo, dir.path().to_string_lossy().into_owned()] {
        // No writer ever opens the FIFO: a blocking read would never return, so the check
        // runs on its own thread with a generous bound.
        let (tx, rx) = std::sync::mpsc::channel();
        let arg = path.clone();
        std::thread::spawn(move || {
            let _ = tx.send(cli(&["config", "check", &arg], b""));
        });
        let o = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("`config check {path}` blocked"));
        assert_eq!(o.code, 1, "{path}");
        assert!(error_of(&o.err).contains("not a regular file"), "{}", o.err);
    }
}
