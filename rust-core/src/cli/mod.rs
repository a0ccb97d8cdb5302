//! The `linekit` command line (DESIGN 3.1), as a library module so tests can drive it
//! in-process. `src/bin/linekit.rs` only forwards `std::env::args` here.
//!
//! Every command writes one JSON document (or JSON Lines) to `out`, and errors as JSON to
//! `err`; the return value is the process exit code. No input makes it panic.

use std::io::Write;

mod config_cmd;

/// Runs one command line (without the program name) and returns the exit code.
pub fn run(
    args: &[String],
    input: &mut dyn std::io::Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let _ = input;
    match words.as_slice() {
        ["version"] => {
            let _ = writeln!(
                out,
                "{}",
                serde_json::json!({ "version": env!("CARGO_PKG_VERSION") })
            );
            0
        }
        ["config", rest @ ..] => config_cmd::run(rest, input, out, err),
        _ => usage(err),
    }
}

/// Writes `{"error": msg}` to `err` and returns exit code 1.
pub fn fail(err: &mut dyn Write, msg: &str) -> i32 {
    let _ = writeln!(err, "{}", serde_json::json!({ "error": msg }));
    1
}

fn usage(err: &mut dyn Write) -> i32 {
    let _ = writeln!(
        err,
        "{}",
        serde_json::json!({"error": "usage: linekit config check|seal|open … | httpdns parse … | ip classify|order … | replay SCENARIO.json"})
    );
    2
}
