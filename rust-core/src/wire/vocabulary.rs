//! Every wire vocabulary of Linekit, declared once with [`wire_enum!`](crate::wire_enum):
//! the names that the JNI path carries as codes, that traces, replay scenarios, state files
//! and configs spell out, and that the bindings generate their Kotlin enums from. A name
//! added, dropped or moved here changes every side with it.
//!
//! Each enum's behaviour lives with the part of the engine it belongs to (what an
//! [`Outcome`] says about a line is in `line::outcome`, how a [`ConnectError`] quarantines
//! an address in `dns::quarantine`), and that module re-exports the enum, so every path
//! names it where it is used.

use super::{Table, WireEnum};
use crate::config::decode::Decode;
use crate::wire_enum;
use serde::{Deserialize, Serialize};

wire_enum! {
    /// The protocol a pool serves; each business line has one pool per protocol.
    #[derive(PartialOrd, Ord)]
    #[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
    pub enum Protocol: "protocol", listing = Or {
        /// Request/response HTTP(S).
        Http = "http",
        /// WebSocket (ws/wss).
        Ws = "ws",
    }
}

wire_enum! {
    /// The outcome of one request or probe on a line: the vocabulary of replay `report`
    /// steps, traces and the bindings' attempt reports.
    pub enum Outcome: "outcome" {
        /// The line answered (2xx/3xx).
        Ok = "ok",
        /// The line answered with a 4xx: the server is there, the request was wrong.
        Http4xx = "http_4xx",
        /// The line answered with a 5xx.
        Http5xx = "http_5xx",
        /// Connecting timed out.
        ConnectTimeout = "connect_timeout",
        /// The connection was refused (or reset) while connecting.
        ConnectRefused = "connect_refused",
        /// The line's host could not be resolved.
        DnsFailure = "dns_failure",
        /// The TLS handshake failed.
        TlsFailure = "tls_failure",
        /// The request was sent but the response (headers or body) stalled past the read timeout.
        ReadTimeout = "read_timeout",
        /// The request was sent, then the peer reset or broke the connection.
        ConnectionReset = "connection_reset",
        /// The request was sent, then the response ended early (unexpected end of stream:
        /// the headers or the declared body were cut off).
        Truncated = "truncated",
        /// The device's own network failed (offline, not validated): says nothing of the line.
        LocalNetwork = "local_network",
        /// The caller cancelled: says nothing of the line.
        Cancelled = "cancelled",
        /// A connection reused from the client's pool broke (reset, or ended) before the
        /// response began: it went stale while idle (closed by the server, a NAT or a
        /// network change). Says nothing of the line; a request that may be replayed is
        /// sent again on the same line.
        StaleConnection = "stale_connection",
    }
}

wire_enum! {
    /// How one connect attempt to one address failed.
    pub enum ConnectError: "connect_error" {
        /// The address refused the connection (RST / ECONNREFUSED).
        Refused = "connect_refused",
        /// Connecting to the address timed out.
        Timeout = "connect_timeout",
        /// No route to the address (EHOSTUNREACH / ENETUNREACH).
        NoRoute = "no_route",
        /// The TLS handshake failed (certificate, protocol): not the address's fault.
        Tls = "tls_failure",
        /// The server answered 5xx: the address is reachable.
        Http5xx = "http_5xx",
        /// The response was slow after connecting: the address is reachable.
        ReadTimeout = "read_timeout",
        /// Connecting through a proxy failed: the address was never tried.
        ProxyConnect = "proxy_connect",
        /// OkHttp cancelled the attempt because another fast-fallback race won.
        CancelledRace = "cancelled",
    }
}

wire_enum! {
    /// Why a request was routed the way it was.
    pub enum Reason: "reason" {
        /// `X-Line-Keep-Original-Host: true`: the request was left alone.
        KeepOriginal = "keep_original",
        /// `X-Line-Fixed-Host` pinned the request.
        FixedHost = "fixed_host",
        /// `X-Line-Fixed-Host` was invalid; the request was left unchanged.
        FixedHostInvalid = "fixed_host_invalid",
        /// No business line owns the host; the request was left alone.
        Unmanaged = "unmanaged",
        /// The kill switch is on: first line by priority.
        Downgrade = "downgrade",
        /// The pool's current line was kept.
        Sticky = "sticky",
        /// The pool (re)ranked its lines and chose the best.
        Ranked = "ranked",
        /// Ranking preferred another line but the switch guard kept the current one.
        Guarded = "guarded",
        /// Every line's recent cost is over `timeout_ms`: first line by priority.
        AllSlowFallback = "all_slow_fallback",
        /// Every line's breaker is open: first line by priority.
        AllOpenFallback = "all_open_fallback",
        /// A converged legacy host was rewritten onto its unified line.
        Merged = "merged",
        /// A converged legacy host is outside this install's gray bucket.
        MergeGrayOut = "merge_gray_out",
        /// Every unified line is open: the original URL was kept.
        MergeFallbackOriginal = "merge_fallback_original",
        /// A retry within one call, excluding lines already tried.
        RetryExcluded = "retry_excluded",
        /// A half-open line admitted this request as its single trial.
        HalfOpenTrial = "half_open_trial",
        /// The current line answered slowly several times in a row and another line is known
        /// to be fast: traffic moved, even inside the switch interval.
        SlowSwitch = "slow_switch",
        /// A response on the current line was cut off, reset or stalled after it was sent,
        /// and another line is known to be fast: traffic moved, even inside the switch
        /// interval.
        ReadFaultSwitch = "read_fault_switch",
        /// The business line's rollout mode is `off` on this install: the request was left
        /// alone.
        RolloutOff = "rollout_off",
        /// The business line's rollout mode is `observe` on this install: the request went
        /// to its original URL; the decision records what `on` would have chosen.
        Observe = "observe",
        /// `X-Line-Fixed-Host` named an origin the config does not know (no line's and not
        /// in `fixed_hosts`): the header was ignored and the request was routed as if it
        /// were absent.
        FixedHostRefused = "fixed_host_refused",
        /// `X-Line-Biz` named a business line whose `match` does not accept the request's
        /// host: the header was ignored and the request was routed by its host.
        BizRefused = "biz_refused",
    }
}

wire_enum! {
    /// Why a WebSocket closed, as far as the app knows. Only `remote` drops can count
    /// against a line.
    pub enum CloseCause: "close_cause", default = Remote {
        /// The server or the path ended it (the default).
        Remote = "remote",
        /// The default network changed since the socket last heard from its server.
        NetworkChanged = "network_changed",
        /// The app was in the background (or went there since the socket last heard from
        /// its server).
        Background = "background",
        /// The app closed or cancelled it.
        Local = "local",
    }
}

wire_enum! {
    /// The Private DNS mode reported by Android (`LinkProperties.isPrivateDnsActive` /
    /// `getPrivateDnsServerName`).
    pub enum PrivateDnsMode: "private_dns", default = Off {
        /// Private DNS off.
        Off = "off",
        /// Automatic: DNS-over-TLS when the network's resolver supports it.
        Opportunistic = "opportunistic",
        /// A named DNS-over-TLS resolver is required; HTTPDNS must not bypass it.
        Strict = "strict",
    }
}

wire_enum! {
    /// How much of Linekit a business line gets on an install.
    #[derive(Serialize, Deserialize, Decode)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(rename_all = "lowercase")]
    pub enum RolloutMode: "rollout mode", default = On, listing = Or {
        /// Requests are left alone: no rewrite, no retry, no probes of the pools.
        Off = "off",
        /// Requests go to their original URL, unchanged and never retried; the pools are
        /// probed and every route records what `on` would have done.
        Observe = "observe",
        /// Full behaviour: routing, retries and probes.
        On = "on",
    }
}

wire_enum! {
    /// The observable state of a breaker (a line's `breaker` in the engine's state).
    pub enum BreakerState: "breaker" {
        /// Traffic flows; consecutive line faults are counted.
        Closed = "closed",
        /// The line is kept out until its cooldown elapses.
        Open = "open",
        /// The cooldown elapsed; one trial request or probe may go.
        HalfOpen = "half_open",
    }
}

wire_enum! {
    /// One level of the source chain (its wire name is the one logs, traces and the
    /// engine's state use).
    pub enum ConfigSource: "config_source" {
        /// A config fetched from the config server.
        Remote = "remote",
        /// The last remote config that was applied, persisted on disk.
        LastGood = "last_good",
        /// The sealed default config shipped in the app.
        Sealed = "sealed",
        /// The config built in code by the app (always valid).
        HardCoded = "hard_coded",
    }
}

wire_enum! {
    /// Why HTTPDNS is bypassed on a network (see the module docs for each reason).
    pub enum HttpDnsBypass: "httpdns_bypass" {
        /// There is no default network.
        NoNetwork = "no_network",
        /// A VPN is active.
        Vpn = "vpn",
        /// Private DNS is in strict mode.
        StrictPrivateDns = "strict_private_dns",
        /// A proxy is configured.
        Proxy = "proxy",
        /// The network is not validated (captive portal or no internet yet).
        NotValidated = "not_validated",
    }
}

wire_enum! {
    /// The `auth.kind` names this build understands.
    pub enum AuthKind: "auth kind" {
        /// Alibaba Cloud signed requests.
        AliyunSign = "aliyun-sign",
        /// DNSPod with DES-encrypted queries and answers.
        DnspodDes = "dnspod-des",
        /// DNSPod with AES-encrypted queries and answers.
        DnspodAes = "dnspod-aes",
        /// DNSPod over HTTPS with a token.
        DnspodHttps = "dnspod-https",
    }
}

wire_enum! {
    /// The answer formats named by `httpdns.providers[].format`.
    pub enum ProviderFormat: "provider format", listing = Or {
        /// Alibaba Cloud `/d` single-host JSON.
        Aliyun = "aliyun",
        /// Alibaba Cloud `/resolve` batch JSON.
        AliyunBatch = "aliyun-batch",
        /// DNSPod / Tencent D+ text.
        Dnspod = "dnspod",
        /// Google/Cloudflare `application/dns-json`.
        DohJson = "doh-json",
        /// RFC 8484 `application/dns-message`.
        DohWire = "doh-wire",
    }
}

/// The tables of every wire enum that crosses into Kotlin, keyed by [`WireEnum::KIND`].
pub fn kotlin_vocabularies() -> Vec<(&'static str, Table)> {
    use crate::config::source::ConfigSource;
    use crate::config::RolloutMode;
    use crate::dns::ConnectError;
    use crate::line::{BreakerState, CloseCause, Outcome};
    use crate::net::{HttpDnsBypass, PrivateDnsMode};
    use crate::trace::Reason;
    vec![
        (Outcome::KIND, Outcome::table()),
        (ConnectError::KIND, ConnectError::table()),
        (Reason::KIND, Reason::table()),
        (CloseCause::KIND, CloseCause::table()),
        (PrivateDnsMode::KIND, PrivateDnsMode::table()),
        (RolloutMode::KIND, RolloutMode::table()),
        (BreakerState::KIND, BreakerState::table()),
        (ConfigSource::KIND, ConfigSource::table()),
        (HttpDnsBypass::KIND, HttpDnsBypass::table()),
    ]
}
