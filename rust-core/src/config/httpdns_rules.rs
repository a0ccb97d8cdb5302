//! Semantic rules of the HTTPDNS production fields: provider `auth`, `serve_stale` and
//! `bootstrap`. Messages name the problem only; they never echo a key, secret or token.

use super::limits::{MAX_BOOTSTRAP_ADDRS, MAX_SIGN_VALIDITY_S, MAX_STALE_S};
use super::model::{HttpDnsConfig, ProviderConfig};
use super::provider_auth::ProviderAuth;
use super::rules::{is_valid_host, is_valid_host_pattern, provider_url, quoted_key, Findings};
use crate::dns::providers::auth::{AES_KEY_LEN, DES_KEY_LEN};
use std::net::IpAddr;

/// Whether `p` encrypts the queried name and its answer without authenticating them: the
/// DNSPod DES and AES kinds carry no MAC (and the AES answer carries its own IV), so over
/// plain HTTP anyone on the path can alter an answer's addresses or replay an old answer.
/// They keep the name confidential, nothing more.
pub(crate) fn unauthenticated_encryption(p: &ProviderConfig) -> bool {
    matches!(
        p.auth,
        Some(ProviderAuth::DnspodDes { .. } | ProviderAuth::DnspodAes { .. })
    )
}

/// The rule of `httpdns.providers[i].url` (`path` is the provider's path): a provider
/// URL, `http` only with `allow_cleartext`, and for the unauthenticated encrypting kinds
/// a message that says what plain HTTP exposes.
pub(crate) fn provider_endpoint(
    p: &ProviderConfig,
    path: &str,
    allow_cleartext: bool,
    f: &mut Findings,
) {
    let url_path = format!("{path}.url");
    let cleartext = p
        .url
        .split_once("://")
        .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case("http"));
    if cleartext && !allow_cleartext && unauthenticated_encryption(p) {
        f.rule(
            &url_path,
            "cleartext http is not allowed (set allow_cleartext): dnspod-des and dnspod-aes \
             answers are encrypted but not authenticated, so anyone on the path can alter \
             their addresses or replay old answers",
        );
        return;
    }
    if let Err(why) = provider_url(&p.url, allow_cleartext) {
        f.rule(&url_path, why);
    }
}

/// Rules of `httpdns.providers[i].auth` (`path` is the provider's path).
pub(crate) fn provider_auth(p: &ProviderConfig, path: &str, f: &mut Findings) {
    let Some(auth) = &p.auth else {
        return;
    };
    let at = |field: &str| format!("{path}.auth.{field}");
    let formats = auth.formats();
    if !formats.iter().any(|x| x.as_str() == p.format) && !f.covered(&format!("{path}.format")) {
        f.rule(
            &at("kind"),
            format!(
                "{} applies to format {} only",
                auth.kind(),
                formats
                    .iter()
                    .map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        );
    }
    match auth {
        ProviderAuth::AliyunSign { secret, validity_s } => {
            if secret.is_empty() {
                f.rule(&at("secret"), "must not be empty");
            }
            if !(1..=MAX_SIGN_VALIDITY_S).contains(validity_s) {
                f.rule(
                    &at("validity_s"),
                    format!("must be in 1..={MAX_SIGN_VALIDITY_S}"),
                );
            }
        }
        ProviderAuth::DnspodDes { id, key } => {
            id_rule(id, &at("id"), f);
            if key.expose().len() < DES_KEY_LEN {
                f.rule(&at("key"), "a DES key has at least 8 bytes");
            }
        }
        ProviderAuth::DnspodAes { id, key } => {
            id_rule(id, &at("id"), f);
            if key.is_empty() || key.expose().len() > AES_KEY_LEN {
                f.rule(&at("key"), "an AES key has 1 to 16 bytes");
            }
        }
        ProviderAuth::DnspodHttps { token } => {
            if token.is_empty() {
                f.rule(&at("token"), "must not be empty");
            }
            if !p
                .url
                .get(..8)
                .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
            {
                f.rule(&format!("{path}.url"), "dnspod-https needs an https:// URL");
            }
        }
    }
}

fn id_rule(id: &str, path: &str, f: &mut Findings) {
    if id.is_empty() {
        f.rule(path, "must not be empty");
    }
}

/// Rules of `httpdns.serve_stale` and `httpdns.bootstrap`.
pub(crate) fn serve_stale_and_bootstrap(h: &HttpDnsConfig, f: &mut Findings) {
    if let Some(stale) = &h.serve_stale {
        for (i, host) in stale.hosts.iter().enumerate() {
            if !is_valid_host_pattern(host) {
                f.rule(
                    &format!("httpdns.serve_stale.hosts[{i}]"),
                    "not a valid host name or *.suffix pattern",
                );
            }
        }
        if !(1..=MAX_STALE_S).contains(&stale.max_stale_s) {
            f.rule(
                "httpdns.serve_stale.max_stale_s",
                format!("must be in 1..={MAX_STALE_S}"),
            );
        }
    }
    for (host, addrs) in &h.bootstrap {
        let path = format!("httpdns.bootstrap{}", quoted_key(host));
        if host.starts_with('*') || !is_valid_host(host) {
            f.rule(&path, "not a valid host name");
        }
        if addrs.is_empty() || addrs.len() > MAX_BOOTSTRAP_ADDRS {
            f.rule(&path, format!("list 1 to {MAX_BOOTSTRAP_ADDRS} addresses"));
        }
        for (i, a) in addrs.iter().enumerate() {
            if a.trim().parse::<IpAddr>().is_err() {
                f.rule(&format!("{path}[{i}]"), "not an IP address");
            }
        }
    }
}
