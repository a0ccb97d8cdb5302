//! `linekit config keygen|sign|verify`: the signing side of the remote config channel.
//!
//! - `keygen` prints `{"private_key":"<base64 32-byte seed>","public_key":"<base64>"}`
//!   from the operating system's random source.
//! - `sign --private-key-file F --key-id ID CONFIG` validates CONFIG (a broken config is
//!   never signed) and prints the envelope over its exact bytes. F holds the base64 seed or
//!   the `keygen` JSON; the key is never taken from the command line. When CONFIG is
//!   already an envelope, the signature is added to it (thresholds above one).
//! - `verify --trust FILE [--now-s S] ENVELOPE` prints `{"ok":true,"version":N,
//!   "key_ids":[..]}` or exits 1 with `{"error":"<reason>: .."}`. FILE is a config (its
//!   `trust` is used) or a bare `{"keys":[..],"threshold":N}`. `expires_at` is checked
//!   against S, or the system clock.

use super::{fail, read_text, Streams};
use aes_gcm::aead::rand_core::RngCore;
use aes_gcm::aead::OsRng;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::SigningKey;
use linekit_core::config::accept::verify_envelope;
use linekit_core::config::envelope::{decode_signing_key, Envelope};
use linekit_core::config::trust::{key_id_problem, trust_document, TrustConfig};
use linekit_core::config::validate::parse_config;
use serde_json::{json, Value};
use std::io::Write;

const MAX_INPUT_BYTES: usize = 4 * 1024 * 1024;
const MAX_KEY_FILE_BYTES: usize = 4 * 1024;

const USAGE: &str = "usage: linekit config keygen | config sign --private-key-file F --key-id ID CONFIG | config verify --trust FILE [--now-s S] ENVELOPE";

fn usage(err: &mut dyn Write) -> i32 {
    let _ = writeln!(err, "{}", json!({ "error": USAGE }));
    2
}

/// `--name VALUE` / `--name=VALUE` options and one positional argument.
fn options<'a>(words: &[&'a str], names: &[&str]) -> Option<(Vec<(String, &'a str)>, &'a str)> {
    let mut opts = Vec::new();
    let mut file = None;
    let mut it = words.iter();
    while let Some(&w) = it.next() {
        if let Some(flag) = w.strip_prefix("--") {
            let (name, value) = match flag.split_once('=') {
                Some((n, v)) => (n, v),
                None => (flag, *it.next()?),
            };
            if !names.contains(&name) {
                return None;
            }
            opts.push((name.to_string(), value));
        } else if file.replace(w).is_some() {
            return None;
        }
    }
    Some((opts, file?))
}

fn opt<'a>(opts: &[(String, &'a str)], name: &str) -> Option<&'a str> {
    opts.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// `config keygen`.
pub(super) fn keygen(out: &mut dyn Write) -> i32 {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    let key = SigningKey::from_bytes(&seed);
    let _ = writeln!(
        out,
        "{}",
        json!({
            "private_key": STANDARD.encode(seed),
            "public_key": STANDARD.encode(key.verifying_key().to_bytes()),
        })
    );
    0
}

/// Why a subcommand stopped: its arguments are off (usage, exit 2) or it failed (exit 1).
enum Stop {
    Usage,
    Fail(String),
}

impl From<String> for Stop {
    fn from(e: String) -> Self {
        Stop::Fail(e)
    }
}

/// Parses `words` into the options `names` and one positional argument, runs `command` on
/// them, and turns its result into the exit code (errors as JSON on `err`).
fn run(
    words: &[&str],
    names: &[&str],
    io: &mut Streams<'_>,
    command: impl FnOnce(&[(String, &str)], &str, &mut Streams<'_>) -> Result<(), Stop>,
) -> i32 {
    let result = match options(words, names) {
        Some((opts, file)) => command(&opts, file, io),
        None => Err(Stop::Usage),
    };
    match result {
        Ok(()) => 0,
        Err(Stop::Usage) => usage(io.err),
        Err(Stop::Fail(e)) => fail(io.err, &e),
    }
}

/// `config sign …`.
pub(super) fn sign(words: &[&str], io: &mut Streams<'_>) -> i32 {
    run(
        words,
        &["private-key-file", "key-id"],
        io,
        |opts, file, io| {
            let (Some(key_file), Some(key_id)) =
                (opt(opts, "private-key-file"), opt(opts, "key-id"))
            else {
                return Err(Stop::Usage);
            };
            if let Some(why) = key_id_problem(key_id) {
                return Err(Stop::Fail(format!("--key-id {why}")));
            }
            let key = read_text(key_file, io.input, MAX_KEY_FILE_BYTES)
                .and_then(|t| decode_signing_key(&t))
                .map_err(|e| format!("private key: {e}"))?;
            let text = read_text(file, io.input, MAX_INPUT_BYTES)?;
            let existing = serde_json::from_str::<Value>(&text)
                .ok()
                .filter(Envelope::is_envelope);
            let mut envelope = match existing {
                // Parsed again strictly: a repeated key refuses the envelope.
                Some(_) => Envelope::parse_text(&text).map_err(|r| r.to_string())?,
                None => Envelope {
                    signed: text.into_bytes(),
                    signatures: Vec::new(),
                },
            };
            let inner = String::from_utf8_lossy(&envelope.signed).into_owned();
            parse_config(&inner).map_err(|e| format!("refusing to sign an invalid config: {e}"))?;
            envelope.sign(key_id, &key);
            let _ = writeln!(io.out, "{}", envelope.to_json());
            Ok(())
        },
    )
}

/// `config verify …`.
pub(super) fn verify(words: &[&str], io: &mut Streams<'_>) -> i32 {
    run(words, &["trust", "now-s"], io, |opts, file, io| {
        let trust_file = opt(opts, "trust").ok_or(Stop::Usage)?;
        let now = match opt(opts, "now-s").map(str::parse::<u64>) {
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            Some(Ok(s)) => s,
            Some(Err(_)) => return Err(Stop::Fail("--now-s: expected unix seconds".into())),
        };
        let trust = read_text(trust_file, io.input, MAX_INPUT_BYTES)
            .and_then(|t| trust_of(&t))
            .map_err(|e| format!("trust: {e}"))?;
        let text = read_text(file, io.input, MAX_INPUT_BYTES)?;
        let a = verify_envelope(&text, &trust, Some(now)).map_err(|r| r.to_string())?;
        let _ = writeln!(
            io.out,
            "{}",
            json!({ "ok": true, "version": a.config.version, "key_ids": a.key_ids })
        );
        Ok(())
    })
}

/// The trust section of a config document, or a bare trust document (strict JSON,
/// validated: weak, non-canonical and repeated keys are refused).
fn trust_of(text: &str) -> Result<TrustConfig, String> {
    let trust = trust_document(text).map_err(|e| e.to_string())?;
    if !trust.is_active() {
        return Err("lists no keys".to_string());
    }
    Ok(trust)
}
