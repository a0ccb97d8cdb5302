//! The Rust side of the JNI fast path: what `route`, `report` and `lookup` pack for
//! Kotlin, and the codes Kotlin sends back (the records of `linekit::jni_records`).
//!
//! Input layout: byte 0 = flags (keep-original, ws, one-shot body, ask-only; the high bits
//! pick the outcome/connect-error code and a retry's call mode),
//! then NUL-separated fields `url`, `method`, `headers` (the request's `X-Line-*` headers
//! as Kotlin joins them, `name\nvalue` pairs, fed raw to the core's header rule),
//! `fixed_host`, `exclude` (ids joined by `\n`, as Kotlin joins them), `ips` (raw bytes, 4
//! or 16 per address, for the lookup packing). Every packed answer must unpack to what it
//! stands for.

use linekit::fast::{route_answer, Handle};
use linekit::fast_codes::{method_code, OTHER_METHOD};
use linekit::fast_dns::connect_error_from_code;
use linekit::jni_records::{RouteAnswer, RouteQuery, LOOKUP_ANSWER};
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

fn handle() -> &'static Handle {
    static HANDLE: OnceLock<Handle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let config = parse_config(CONFIG).expect("fuzz config validates");
        let clock = Arc::new(ManualClock::new(0, 0));
        let sink = Arc::new(linekit_core::trace::event::NoopSink);
        let engine = LineKit::new(config, clock, sink, 1).expect("fuzz engine builds");
        Handle::new(Arc::new(engine))
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

    let query = RouteQuery {
        method: method_code(method),
        ws: u64::from(flags & 2 != 0),
        one_shot_body: u64::from(flags & 4 != 0),
        // A retry's call mode (0: a first attempt) and ask-only routes, from bits the
        // outcome code below reuses.
        mode: u64::from(flags >> 6),
        ask_only: u64::from(flags & 8 != 0),
    };
    let (answer, decision) = route_answer(
        handle(),
        url,
        query,
        Some(method),
        Some(private.as_str()),
        exclude,
    )
    .expect("a method code from the list, or the method as text");
    check_route(answer, decision.target.is_some());
    if query.method != OTHER_METHOD {
        assert!(route_answer(handle(), url, query, None, None, None).is_ok());
    }

    let code = i32::from(flags >> 3) - 8;
    if let Some(outcome) = Outcome::from_code(code) {
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

/// A known reason code, the config's retries (none for a request the replay rule
/// forbids), a line entry that names a configured line or none, and a target entry
/// exactly when the decision has a target, naming a known scheme.
fn check_route(answer: RouteAnswer, has_target: bool) {
    assert_eq!(
        RouteAnswer::from_bits(answer.to_bits()),
        answer,
        "round trip"
    );
    assert!(
        Reason::ALL
            .iter()
            .any(|r| u64::from(r.code()) == answer.reason),
        "unknown reason {}",
        answer.reason
    );
    let thresholds = linekit_core::config::model::Thresholds::default();
    assert!(
        answer.max_retries == u64::from(thresholds.max_retries) || answer.max_retries == 0,
        "max_retries {}",
        answer.max_retries
    );
    let codes = &handle().codes;
    codes.with_line(answer.generation as u8, answer.line as u16, |entry| {
        assert_eq!(
            entry.is_some(),
            answer.line != 0,
            "line code {}",
            answer.line
        );
        if let Some(e) = entry {
            assert!(
                matches!(
                    e.line.as_deref(),
                    None | Some("ali" | "tx" | "ali-ws" | "main")
                ),
                "unknown line {:?}",
                e.line
            );
            assert!(
                matches!(e.biz.as_deref(), None | Some("spot" | "cdn")),
                "unknown biz {:?}",
                e.biz
            );
            assert!(
                e.version_header.is_none(),
                "no business line sets a version header"
            );
            assert_eq!(e.buffer_body_max_bytes, thresholds.buffer_body_max_bytes);
        }
    });
    assert_eq!(
        answer.version_mismatch, 0,
        "no version mismatch without a version header"
    );
    assert_eq!(
        answer.target != 0,
        has_target,
        "target code {}",
        answer.target
    );
    if answer.target != 0 {
        codes.with_entries(
            answer.generation as u8,
            0,
            answer.target as usize - 1,
            |e| {
                assert_eq!(
                    u64::from(e.generation),
                    answer.generation,
                    "generation held"
                );
                let t = e.targets.first().expect("the target entry");
                assert!(!t.host.is_empty(), "a target names a host");
            },
        );
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
    let keep = u32::from(ips.first().copied().unwrap_or(0)) << 20;
    let packed = pack_lookup(&lookup, keep);
    if addrs.is_empty() {
        assert!(packed.is_none(), "an empty lookup must pack as none");
        return;
    }
    let packed = packed.expect("a non-empty HTTPDNS lookup packs");
    let (head, entries) = LOOKUP_ANSWER.read(&packed).expect("a well-formed answer");
    assert_eq!(head, [u64::from(keep)], "keep time");
    let unpacked: Vec<IpAddr> = entries
        .into_iter()
        .map(|b| match b.len() {
            4 => IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3])),
            16 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(b).expect("16 bytes"))),
            len => panic!("bad address length {len}"),
        })
        .collect();
    assert_eq!(unpacked, addrs, "lookup packing does not round-trip");
}
