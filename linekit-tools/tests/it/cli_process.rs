//! The `linekit` binary as a process: arguments, standard input and output, and the exit
//! code reach `cli::run` and come back unchanged. The other CLI tests drive `cli::run`
//! in-process; these prove the binary's own wiring.
//!
//! When the suite is cross-tested under qemu-user the test process cannot `exec` a foreign
//! binary directly (no binfmt_misc registration is assumed), so `LINEKIT_TEST_RUNNER`
//! (whitespace-separated, e.g. `qemu-aarch64 -L /usr/aarch64-linux-gnu`) is put in front
//! of the binary when it is set. `./build.sh test` sets it for its ARM runs.

use crate::support;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const REFERENCE_EXAMPLE: &str =
    include_str!("../../../rust-core/tests/fixtures/reference_example.json");

/// A `Command` for the `linekit` binary built with this test, behind the runner if any.
fn linekit() -> Command {
    let bin = env!("CARGO_BIN_EXE_linekit");
    let runner = std::env::var("LINEKIT_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.args(words).arg(bin);
            cmd
        }
        None => Command::new(bin),
    }
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = linekit()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the linekit binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("stdin accepts the input");
    child.wait_with_output().expect("the linekit binary exits")
}

fn text_of(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8 output")
}

fn json_of(bytes: &[u8]) -> Value {
    support::cli::json_of(text_of(bytes))
}

#[test]
fn a_valid_config_on_stdin_exits_zero_with_the_report_on_stdout() {
    let out = run(&["config", "check", "-"], REFERENCE_EXAMPLE.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = json_of(&out.stdout);
    assert_eq!(report["ok"], true);
    assert_eq!(report["version"], 3);
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn an_invalid_config_exits_one_with_field_errors_on_stderr() {
    let out = run(&["config", "check", "-"], br#"{"version": 1}"#);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(json_of(&out.stdout)["ok"], false);
    let first = String::from_utf8_lossy(&out.stderr);
    let first = first.lines().next().expect("one error line at least");
    assert_eq!(json_of(first.as_bytes())["path"], "biz_lines");
}

#[test]
fn an_unknown_command_exits_two_with_the_usage() {
    let out = run(&["no-such-command"], b"");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = support::cli::error_of(text_of(&out.stderr));
    assert!(err.starts_with("usage:"), "{err}");
}
