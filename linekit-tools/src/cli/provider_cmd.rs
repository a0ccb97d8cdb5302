//! The provider-aware HTTPDNS commands: the configured provider decides the format and the
//! authentication.
//!
//! - `httpdns request --config F --provider ID --host H[,H2] [--now-s S] [--reveal]` prints
//!   `{"method":"GET","url":".."}` (plus `headers` when the format sends any): the request
//!   the engine would send at wall-clock `S` (Unix seconds; default now), signed or
//!   encrypted as the provider's `auth` says. DoH formats print their first (`A`) query.
//!   The URL is redacted like every other output (its query as a digest, see
//!   [`linekit_core::trace::redact_url`]); `--reveal` prints it exactly, token, DNSPod id
//!   and signature included, for checking a provider by hand.
//! - `httpdns parse --config F --provider ID [--host H] [FILE|-]` is handled by
//!   `dns_cmd`, which asks [`load_provider`] for the format and decrypts with its `auth`.
//!
//! Only `--reveal` prints a token, id or signature. Errors never echo keys, secrets or
//! tokens.

use super::{fail, read_text, Streams};
use linekit_core::config::model::ProviderConfig;
use linekit_core::config::{parse_config, MAX_CONFIG_BYTES};
use linekit_core::dns::providers::ProviderFormat;
use linekit_core::dns::refresh::{provider_query, Stage};
use serde_json::json;
use std::io::Read;
use std::sync::Arc;

/// The provider `id` of config file `path` and its parsed format.
pub fn load_provider(
    path: &str,
    id: &str,
    input: &mut dyn Read,
) -> Result<(ProviderConfig, ProviderFormat), String> {
    let text = read_text(path, input, MAX_CONFIG_BYTES)?;
    let config = parse_config(&text).map_err(|e| format!("{path}: {e}"))?;
    let provider = config
        .httpdns
        .providers
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| format!("{path}: no httpdns provider with that id"))?;
    let format = provider.format.parse::<ProviderFormat>()?;
    Ok((provider, format))
}

/// `httpdns request …`.
pub fn httpdns_request(args: &[&str], io: &mut Streams<'_>) -> i32 {
    let usage =
        "usage: linekit httpdns request --config F --provider ID --host H[,H2] [--now-s S] [--reveal]";
    let (mut config, mut provider, mut now_s) = (None, None, None);
    let mut reveal = false;
    let mut hosts: Vec<Arc<str>> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if *arg == "--reveal" {
            reveal = true;
            continue;
        }
        let Some(value) = it.next() else {
            return fail(io.err, usage);
        };
        match *arg {
            "--config" => config = Some(*value),
            "--provider" => provider = Some(*value),
            "--host" => hosts.extend(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                    .map(|h| Arc::from(linekit_core::dns::policy::normalize_host(h))),
            ),
            "--now-s" => match value.parse::<u64>() {
                Ok(s) => now_s = Some(s),
                Err(_) => return fail(io.err, "--now-s needs Unix seconds"),
            },
            _ => return fail(io.err, usage),
        }
    }
    let (Some(config), Some(id), false) = (config, provider, hosts.is_empty()) else {
        return fail(io.err, usage);
    };
    let (p, format) = match load_provider(config, id, io.input) {
        Ok(found) => found,
        Err(e) => return fail(io.err, &e),
    };
    let wall_ms = match now_s {
        Some(s) => s.saturating_mul(1_000),
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
    };
    let mut iv = [0u8; linekit_core::dns::providers::auth::AES_IV_LEN];
    fastrand::fill(&mut iv);
    let stage = Stage::first(format);
    let Some(q) = provider_query(format, &p.url, p.auth.as_ref(), &hosts, stage, wall_ms, &iv)
    else {
        return fail(
            io.err,
            "cannot build a query for these hosts with this provider",
        );
    };
    let url = if reveal {
        q.url.clone()
    } else {
        linekit_core::trace::redact_url(&q.url)
    };
    let mut doc = json!({"method": q.method, "url": url});
    if !q.headers.is_empty() {
        doc["headers"] = q
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
    }
    let _ = writeln!(io.out, "{doc}");
    0
}
