//! The `linekit` command line (`docs/architecture.md#cli`), as a library module so tests can drive it
//! in-process. `src/bin/linekit.rs` only forwards `std::env::args` here.
//!
//! Every command writes one JSON document (or JSON Lines) to `out`, and errors as JSON to
//! `err`; the return value is the process exit code. No input makes it panic.

use std::io::{Read, Write};

mod config_cmd;
mod replay_cmd;
mod sign_cmd;
mod whatif_cmd;

mod dns_cmd;
mod provider_cmd;

/// The streams a command works with: standard input (read where a file is given as `-`),
/// `out` for its result and `err` for its errors.
struct Streams<'a> {
    input: &'a mut dyn Read,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

/// Runs one command line (without the program name) and returns the exit code.
pub fn run(
    args: &[String],
    input: &mut dyn std::io::Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let io = &mut Streams { input, out, err };
    match words.as_slice() {
        ["httpdns", "parse", rest @ ..] => dns_cmd::httpdns_parse(rest, io),
        ["httpdns", "request", rest @ ..] => provider_cmd::httpdns_request(rest, io),
        ["ip", "classify", rest @ ..] => dns_cmd::ip_classify(rest, io.out, io.err),
        ["ip", "order", rest @ ..] => dns_cmd::ip_order(rest, io.out, io.err),
        ["version"] => {
            let _ = writeln!(
                io.out,
                "{}",
                serde_json::json!({ "version": env!("CARGO_PKG_VERSION") })
            );
            0
        }
        ["replay", rest @ ..] if rest.iter().any(|a| a.starts_with("--")) => {
            whatif_cmd::replay(rest, io)
        }
        ["replay", file] => replay_cmd::run(file, io),
        ["config", "keygen"] => sign_cmd::keygen(io.out),
        ["config", "sign", rest @ ..] => sign_cmd::sign(rest, io),
        ["config", "verify", rest @ ..] => sign_cmd::verify(rest, io),
        ["trace", "schema"] => whatif_cmd::schema(io.out),
        ["config", "schema"] => config_cmd::schema(io.out),
        ["config", rest @ ..] => config_cmd::run(rest, io),
        _ => usage(io.err),
    }
}

/// Reads a text file (or standard input for `-`), refusing more than `limit` bytes.
pub fn read_text(file: &str, input: &mut dyn Read, limit: usize) -> Result<String, String> {
    let bytes = read_bytes(file, input, limit)?;
    String::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8 text"))
}

/// Reads a file (or standard input for `-`), refusing more than `limit` bytes.
pub fn read_bytes(file: &str, input: &mut dyn Read, limit: usize) -> Result<Vec<u8>, String> {
    if file == "-" {
        let mut buf = Vec::new();
        input
            .take(limit as u64 + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        if buf.len() > limit {
            return Err(format!("stdin is larger than {limit} bytes"));
        }
        return Ok(buf);
    }
    match linekit_core::store::read_limited(std::path::Path::new(file), limit) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(format!("cannot read {file}: no such file")),
        Err(linekit_core::Error::Store(why)) => Err(why),
        Err(other) => Err(other.to_string()),
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
        serde_json::json!({"error": "usage: linekit config check|seal|open|keygen|sign|verify … | config schema | httpdns parse|request … | ip classify|order … | trace schema | replay SCENARIO.json [--trace-out TRACE.jsonl] | replay --from-trace TRACE.jsonl --config POLICY.json [--compare] [--html OUT.html]"})
    );
    2
}
