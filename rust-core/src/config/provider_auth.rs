//! How an HTTPDNS provider authenticates (`httpdns.providers[].auth`), and the [`Secret`]
//! type that keeps keys and tokens out of every `Debug` and log line.
//!
//! ```json
//! {"kind": "aliyun-sign", "secret": "...", "validity_s": 600}
//! {"kind": "dnspod-des", "id": "1234", "key": "..."}
//! {"kind": "dnspod-aes", "id": "1234", "key": "..."}
//! {"kind": "dnspod-https", "token": "..."}
//! ```
//!
//! Secrets live only in the config (normally the sealed asset or a signed remote config).
//! They serialize as themselves (the last good config is persisted whole), but `Debug`
//! prints `Secret(..)`, and nothing else in the engine formats them: request signing and
//! encryption happen in `dns::providers::auth`, whose errors name the problem only.

use super::decode::Decode;
use crate::dns::providers::ProviderFormat;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::wire::vocabulary::AuthKind;

/// Default `validity_s` of an Alibaba signature.
pub const DEFAULT_SIGN_VALIDITY_S: u64 = 600;

/// The `validity_s` of an `aliyun-sign` auth that names none.
fn default_sign_validity_s() -> u64 {
    DEFAULT_SIGN_VALIDITY_S
}

/// A key, secret or token: serializes as the plain string, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself: only for signing and encryption.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// One provider's authentication.
///
/// Serialized through the flat [`AuthFields`] (`kind` plus the fields of every kind)
/// rather than serde's internally tagged enums, whose buffering machinery costs ~14 KB of
/// the stripped `.so` (measured). The lenient decoder reads it directly: `kind` names the
/// variant ([`AuthKind`]), the variant's fields sit beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Decode)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(description = "Request signing or encryption: `kind` and the fields that kind uses.")
)]
#[serde(try_from = "AuthFields", into = "AuthFields")]
#[decode(tag = "kind", kinds = "AuthKind")]
pub enum ProviderAuth {
    /// Alibaba Cloud signed requests: `sign_d` / `sign_resolve` with `t` and `s`.
    AliyunSign {
        /// The account's signing secret.
        secret: Secret,
        /// How long a signature stays valid, in seconds.
        #[decode(default = "default_sign_validity_s")]
        validity_s: u64,
    },
    /// Tencent DNSPod with a DES-encrypted `dn` and answer.
    DnspodDes {
        /// Authorization id (sent in the clear).
        id: String,
        /// DES key (its first 8 bytes are used).
        key: Secret,
    },
    /// Tencent DNSPod with an AES-128-CBC-encrypted `dn` and answer.
    DnspodAes {
        /// Authorization id (sent in the clear).
        id: String,
        /// AES key (16 characters; shorter keys are padded with `0` as the vendor SDK does).
        key: Secret,
    },
    /// Tencent DNSPod over HTTPS with a token.
    DnspodHttps {
        /// The HTTPS token.
        token: Secret,
    },
}

/// The wire form of [`ProviderAuth`]: `kind` and the fields of every kind.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuthFields {
    /// `aliyun-sign`, `dnspod-des`, `dnspod-aes` or `dnspod-https`.
    kind: String,
    /// `aliyun-sign`: the account's signing secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secret: Option<Secret>,
    /// `aliyun-sign`: how long a signature stays valid, in seconds (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    validity_s: Option<u64>,
    /// `dnspod-des`, `dnspod-aes`: authorization id (sent in the clear).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    /// `dnspod-des`, `dnspod-aes`: the encryption key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<Secret>,
    /// `dnspod-https`: the HTTPS token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    token: Option<Secret>,
}

impl TryFrom<AuthFields> for ProviderAuth {
    type Error = String;

    fn try_from(f: AuthFields) -> Result<Self, String> {
        let need = |v: Option<Secret>, field: &str| v.ok_or_else(|| format!("missing {field}"));
        let kind: AuthKind = f.kind.parse().map_err(|_| "unknown auth kind")?;
        Ok(match kind {
            AuthKind::AliyunSign => ProviderAuth::AliyunSign {
                secret: need(f.secret, "secret")?,
                validity_s: f.validity_s.unwrap_or_else(default_sign_validity_s),
            },
            AuthKind::DnspodDes => ProviderAuth::DnspodDes {
                id: f.id.ok_or("missing id")?,
                key: need(f.key, "key")?,
            },
            AuthKind::DnspodAes => ProviderAuth::DnspodAes {
                id: f.id.ok_or("missing id")?,
                key: need(f.key, "key")?,
            },
            AuthKind::DnspodHttps => ProviderAuth::DnspodHttps {
                token: need(f.token, "token")?,
            },
        })
    }
}

impl From<ProviderAuth> for AuthFields {
    fn from(a: ProviderAuth) -> Self {
        let kind = a.kind().to_string();
        match a {
            ProviderAuth::AliyunSign { secret, validity_s } => AuthFields {
                kind,
                secret: Some(secret),
                validity_s: Some(validity_s),
                ..AuthFields::default()
            },
            ProviderAuth::DnspodDes { id, key } | ProviderAuth::DnspodAes { id, key } => {
                AuthFields {
                    kind,
                    id: Some(id),
                    key: Some(key),
                    ..AuthFields::default()
                }
            }
            ProviderAuth::DnspodHttps { token } => AuthFields {
                kind,
                token: Some(token),
                ..AuthFields::default()
            },
        }
    }
}

impl ProviderAuth {
    /// The `kind`.
    pub fn kind(&self) -> AuthKind {
        match self {
            ProviderAuth::AliyunSign { .. } => AuthKind::AliyunSign,
            ProviderAuth::DnspodDes { .. } => AuthKind::DnspodDes,
            ProviderAuth::DnspodAes { .. } => AuthKind::DnspodAes,
            ProviderAuth::DnspodHttps { .. } => AuthKind::DnspodHttps,
        }
    }

    /// The provider formats this kind applies to.
    pub fn formats(&self) -> &'static [ProviderFormat] {
        match self {
            ProviderAuth::AliyunSign { .. } => {
                &[ProviderFormat::Aliyun, ProviderFormat::AliyunBatch]
            }
            _ => &[ProviderFormat::Dnspod],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_secret() {
        let a = ProviderAuth::DnspodHttps {
            token: Secret::new("tok-PLANTED"),
        };
        assert!(!format!("{a:?}").contains("PLANTED"));
    }

    #[test]
    fn round_trips_with_kebab_kinds_and_default_validity() {
        let a: ProviderAuth =
            serde_json::from_str(r#"{"kind":"aliyun-sign","secret":"s"}"#).unwrap();
        assert_eq!(
            a,
            ProviderAuth::AliyunSign {
                secret: Secret::new("s"),
                validity_s: 600
            }
        );
        let back = serde_json::to_value(&a).unwrap();
        assert_eq!(back["kind"], "aliyun-sign");
        assert_eq!(back["secret"], "s");
    }
}
