//! `linekit config check|seal|open|schema` (`docs/architecture.md#cli`).
//!
//! - `check FILE` prints `{"ok":true,"version":N,"biz_lines":[…]}`; an invalid config exits 1
//!   with one `{"path","error"}` line per problem on stderr and the same list as
//!   `{"ok":false,"errors":[…]}` on stdout, so tools can read either stream.
//! - `seal --key-hex HEX FILE` validates the config first (a broken asset is never sealed),
//!   then prints `{"sealed":"BASE64"}`.
//! - `open --key-hex HEX FILE` accepts that JSON wrapper or the raw base64 text, and prints
//!   the opened config document itself once it validates.
//! - `schema` prints the JSON Schema of a config document, generated from the model.
//!
//! `-` as FILE reads stdin. Read failures and seal failures are `{"error":…}` on stderr with
//! exit 1; usage mistakes exit 2. Keys are never echoed.

use super::{fail, Streams};
use linekit_core::config::seal::KEY_LEN;
use linekit_core::config::{open, parse_config, parse_key_hex, seal, Config};
use linekit_core::error::{Error, FieldError};
use serde_json::json;
use std::io::{Read, Write};

/// Largest input file read, in bytes. Bigger than the config limit on purpose, so that
/// `check` can report an oversized config as a config error with its size.
const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

const USAGE: &str =
    "usage: linekit config check FILE | config seal --key-hex HEX FILE | config open --key-hex HEX FILE";

/// Runs `config …` (the words after `config`) and returns the exit code.
pub(super) fn run(words: &[&str], io: &mut Streams<'_>) -> i32 {
    let Some((&command, rest)) = words.split_first() else {
        return usage(io.err);
    };
    let Some(args) = Args::parse(rest) else {
        return usage(io.err);
    };
    match (command, &args.key_hex) {
        ("check", None) => check(&args.file, io),
        ("seal" | "open", Some(hex)) => {
            let (key, bytes) = match key_and_input(&args.file, hex, io.input) {
                Ok(k) => k,
                Err(why) => return fail(io.err, &why),
            };
            if command == "seal" {
                seal_cmd(&key, bytes, io.out, io.err)
            } else {
                open_cmd(&key, bytes, io.out, io.err)
            }
        }
        _ => usage(io.err),
    }
}

/// One positional FILE and an optional `--key-hex HEX` / `--key-hex=HEX`, in any order.
struct Args {
    file: String,
    key_hex: Option<String>,
}

impl Args {
    fn parse(words: &[&str]) -> Option<Args> {
        let mut file = None;
        let mut key_hex = None;
        let mut it = words.iter();
        while let Some(&w) = it.next() {
            if w == "--key-hex" {
                key_hex = Some(it.next()?.to_string());
            } else if let Some(hex) = w.strip_prefix("--key-hex=") {
                key_hex = Some(hex.to_string());
            } else if w.starts_with("--") || file.is_some() {
                return None;
            } else {
                file = Some(w.to_string());
            }
        }
        Some(Args {
            file: file?,
            key_hex,
        })
    }
}

fn usage(err: &mut dyn Write) -> i32 {
    let _ = writeln!(err, "{}", json!({ "error": USAGE }));
    2
}

/// Parses config bytes; non-UTF-8 input is a config error at the document path.
fn parse_bytes(bytes: Vec<u8>) -> Result<(String, Config), Error> {
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::InvalidConfig(vec![FieldError::new(
            "",
            format!(
                "config is not valid UTF-8 (at byte {})",
                e.utf8_error().valid_up_to()
            ),
        )])
    })?;
    let config = parse_config(&text)?;
    Ok((text, config))
}

/// The `check` document, fields in a fixed order: `ok`, `version`, `biz_lines`.
#[derive(serde::Serialize)]
struct CheckReport<'a> {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    biz_lines: Option<&'a [&'a str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    errors: Option<&'a [FieldError]>,
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Serializing these plain structs cannot fail; fall back to a fixed document anyway.
    serde_json::to_string(value).unwrap_or_else(|_| r#"{"error":"internal"}"#.to_string())
}

/// Reports a failed parse: field errors on both streams, anything else as `{"error"}`.
fn report(e: Error, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match e {
        Error::InvalidConfig(errors) => {
            for fe in &errors {
                let _ = writeln!(err, "{}", to_json(fe));
            }
            let _ = writeln!(
                out,
                "{}",
                to_json(&CheckReport {
                    ok: false,
                    version: None,
                    biz_lines: None,
                    errors: Some(&errors),
                })
            );
            1
        }
        other => fail(err, &other.to_string()),
    }
}

fn check(file: &str, io: &mut Streams<'_>) -> i32 {
    let bytes = match super::read_bytes(file, io.input, MAX_INPUT_BYTES) {
        Ok(b) => b,
        Err(why) => return fail(io.err, &why),
    };
    match parse_bytes(bytes) {
        Ok((_, config)) => {
            let names: Vec<&str> = config.biz_lines.keys().map(String::as_str).collect();
            let _ = writeln!(
                io.out,
                "{}",
                to_json(&CheckReport {
                    ok: true,
                    version: Some(config.version),
                    biz_lines: Some(&names),
                    errors: None,
                })
            );
            0
        }
        Err(e) => report(e, io.out, io.err),
    }
}

/// The sealing key given as hex and the bytes of `file`, as `seal` and `open` both need.
fn key_and_input(
    file: &str,
    hex: &str,
    input: &mut dyn Read,
) -> Result<([u8; KEY_LEN], Vec<u8>), String> {
    let key = parse_key_hex(hex).map_err(|e| e.to_string())?;
    let bytes = super::read_bytes(file, input, MAX_INPUT_BYTES)?;
    Ok((key, bytes))
}

fn seal_cmd(key: &[u8; KEY_LEN], bytes: Vec<u8>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let text = match parse_bytes(bytes) {
        Ok((text, _)) => text,
        Err(e) => return report(e, out, err),
    };
    match seal(text.as_bytes(), key) {
        Ok(sealed) => {
            let _ = writeln!(out, "{}", json!({ "sealed": sealed }));
            0
        }
        Err(e) => fail(err, &e.to_string()),
    }
}

fn open_cmd(key: &[u8; KEY_LEN], bytes: Vec<u8>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Ok(text) = String::from_utf8(bytes) else {
        return fail(err, "sealed config: input is not UTF-8");
    };
    let sealed = match unwrap_sealed(&text) {
        Ok(s) => s,
        Err(why) => return fail(err, &why),
    };
    let opened = match open(&sealed, key) {
        Ok(b) => b,
        Err(e) => return fail(err, &e.to_string()),
    };
    match parse_bytes(opened) {
        Ok((text, _)) => {
            let _ = writeln!(out, "{}", text.trim());
            0
        }
        Err(e) => report(e, out, err),
    }
}

/// The base64 text from `{"sealed":"…"}` or from raw text.
fn unwrap_sealed(text: &str) -> Result<String, String> {
    if !text.trim_start().starts_with('{') {
        return Ok(text.to_string());
    }
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("sealed config: input is not valid JSON: {e}"))?;
    doc.get("sealed")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| "sealed config: expected {\"sealed\":\"BASE64\"}".to_string())
}

/// `linekit config schema`: the JSON Schema of a config document (`docs/config.schema.json`).
pub fn schema(out: &mut dyn Write) -> i32 {
    let _ = out.write_all(linekit_core::config::json_schema().as_bytes());
    0
}
