//! The Rust side of the JNI fast path: what `route` and `lookup` pack for Kotlin, and the
//! integer codes Kotlin sends back.
//!
//! Input layout: byte 0 = flags (keep-original, ws, one-shot body, which outcome/connect-error code),
//! then NUL-separated fields `url`, `method`, `headers` (the request's `X-Line-*` headers
//! as Kotlin joins them, `name\nvalue` pairs, fed raw to the core's header rule),
//! `fixed_host`, `exclude` (ids joined by `\n`, as Kotlin joins them), `ips` (raw bytes, 4
//! or 16 per address, for the lookup packing). Every packed answer must unpack to what it
//! stands for.

use linekit::fast::{outcome_from_code, route_packed};
use linekit::fast_dns::connect_error_from_code;
use linekit::pack_lookup;
use linekit_core::config::validate::parse_config;
use linekit_core::dns::{Lookup, Source};
use linekit_core::line::Outcome;
use linekit_core::trace::reason::Reason;
use linekit_core::{LineKit, ManualClock};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, OnceLock};

const CONFIG: &str = r#"{
  "version": 1,
  "biz_lines": {
    "spot": { "match": ["api.example.com"],
              "http": [ {"id": "ali", "url": "https://spot-ali.example.com"},
                        {"id": "tx",  "url": "https://spot-tx.example.com:8443"} ],
              "ws":   [ {"id": "ali-ws", "url": "wss://ws-ali.example.com"} ] },
    "cdn":  { "match": ["*.static.example.com"],
              "http": [ {"id": "main", "url": "https://cdn.example.com"} ] }
  },
  "merge_hosts": [ {"host": "image.example.com", "biz": "cdn", "path_prefix": "/image", "rate": 1.0} ]
}"#;

fn engine() -> &'static LineKit {
    static ENGINE: OnceLock<LineKit> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let config = parse_config(CONFIG).expect("fuzz config validates");
        let clock = Arc::new(ManualClock::new(0, 0));
        let sink = Arc::new(linekit_core::trace::event::NoopSink);
        LineKit::new(config, clock, sink, 1).expect("fuzz engine builds")
    })
}

/// Runs one fuzzed fast-path call and checks its packing.
pub fn jni_pack(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut fields = rest.split(|&b| b == 0);
    let mut next = || std::str::from_utf8(fields.next().unwrap_or_default()).ok();
    let (Some(url), Some(method), headers, fixed, exclude) =
        (next(), next(), next(), next(), next())
    else {
        return;
    };
    let mut private = headers.unwrap_or_default().to_string();
    if let Some(f) = fixed.filter(|f| !f.is_empty()) {
        private.push_str("\nX-Line-Fixed-Host\n");
        private.push_str(f);
    }
    if flags & 1 != 0 {
        private.push_str("\nX-Line-Keep-Original-Host\ntrue");
    }
    let ips = rest.split(|&b| b == 0).nth(5).unwrap_or_default();

    let packed = route_packed(
        engine(),
        url,
        method,
        Some(private.as_str()),
        flags & 2 != 0,
        flags & 4 != 0,
        exclude,
    );
    check_route(&packed, url);

    let code = i32::from(flags >> 3) - 8;
    if let Some(outcome) = outcome_from_code(code) {
        let i = Outcome::ALL.iter().position(|o| *o == outcome);
        assert_eq!(
            i,
            usize::try_from(code).ok(),
            "outcome code does not round-trip"
        );
    }
    let _ = connect_error_from_code(code);

    check_lookup(ips);
}

/// `reason\nmax_retries\nbuffer_body_max_bytes\nline\nbiz\nversion_header\nversion_mismatch\nscheme\nhost\nport\nprefix\nrest_at`:
/// twelve fields (for a URL without a newline, as OkHttp builds them), a known reason code,
/// the config's limits (no retries for a request the replay rule forbids), a configured
/// line id or none, and a rewrite that is either absent or names a known line host.
fn check_route(packed: &str, url: &str) {
    if url.contains('\n') {
        return;
    }
    let parts: Vec<&str> = packed.split('\n').collect();
    assert_eq!(parts.len(), 12, "packed route has {} fields", parts.len());
    let code: u8 = parts[0].parse().expect("reason code is a decimal");
    assert!(
        Reason::ALL.iter().any(|r| r.code() == code),
        "unknown reason {:?}",
        parts[0]
    );
    let thresholds = linekit_core::config::model::Thresholds::default();
    assert!(
        parts[1] == thresholds.max_retries.to_string() || parts[1] == "0",
        "max_retries {:?}",
        parts[1]
    );
    assert_eq!(parts[2], thresholds.buffer_body_max_bytes.to_string());
    assert!(
        matches!(parts[3], "" | "ali" | "tx" | "ali-ws" | "main"),
        "unknown line {:?}",
        parts[3]
    );
    assert!(
        matches!(parts[4], "" | "spot" | "cdn"),
        "unknown biz {:?}",
        parts[4]
    );
    assert_eq!(parts[5], "", "no business line sets a version header");
    assert_eq!(parts[6], "", "no version mismatch without a version header");
    if parts[7].is_empty() {
        assert!(
            parts[8..].iter().all(|p| p.is_empty()),
            "parts without a scheme"
        );
    } else {
        assert!(
            matches!(parts[7], "http" | "https" | "ws" | "wss"),
            "scheme {:?}",
            parts[7]
        );
        let at: usize = parts[11].parse().expect("rest_at is a decimal");
        assert!(at <= url.encode_utf16().count(), "rest_at past the URL");
    }
}

/// Packs the addresses in `ips` (whole 4- or 16-byte groups, the length taken from the
/// first byte's parity) and unpacks them again.
fn check_lookup(ips: &[u8]) {
    let width = if ips.first().is_some_and(|b| b % 2 == 1) {
        16
    } else {
        4
    };
    let addrs: Vec<IpAddr> = ips
        .chunks_exact(width)
        .map(|c| match <[u8; 16]>::try_from(c) {
            Ok(b) => IpAddr::V6(Ipv6Addr::from(b)),
            Err(_) => IpAddr::V4(Ipv4Addr::new(c[0], c[1], c[2], c[3])),
        })
        .collect();
    let lookup = Lookup {
        addrs: addrs.clone().into(),
        source: Source::HttpDns,
        refresh_due: false,
        bypass: None,
        fallback: None,
        memo_until_ms: 0,
    };
    let packed = pack_lookup(&lookup);
    if addrs.is_empty() {
        assert!(packed.is_none(), "an empty lookup must pack as none");
        return;
    }
    let packed = packed.expect("a non-empty HTTPDNS lookup packs");
    let mut unpacked = Vec::new();
    let mut rest = packed.as_slice();
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len);
        assert!(len == 4 || len == 16, "bad address length {len}");
        let (b, tail) = tail.split_at(len);
        unpacked.push(if len == 4 {
            IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3]))
        } else {
            IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(b).expect("16 bytes")))
        });
        rest = tail;
    }
    assert_eq!(unpacked, addrs, "lookup packing does not round-trip");
}
