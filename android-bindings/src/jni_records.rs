//! Every record that crosses the JNI path, declared once.
//!
//! The per-request calls (`route`, `report`, `lookup`, connect results) take and answer
//! primitives: each argument or answer that holds more than one value is a record
//! declared here (shapes in [`crate::record_layout`]). From these declarations:
//!
//! - the Rust exports ([`crate::fast`], [`crate::fast_dns`]) pack and unpack with the
//!   generated `to_bits`/`from_bits` and the layouts below;
//! - the build generates the Kotlin encoders and decoders
//!   ([`crate::kotlin_records`], run by the `kotlin-vocabulary` tool next to the enums);
//! - `docs/jni-records.md` is generated from them too ([`crate::kotlin_records::markdown`];
//!   a test fails while the committed file is stale);
//! - the JVM suite compares every generated record with the layout the loaded library
//!   reports (`NativeFast.records()`), field by field.
//!
//! A route answer names its strings (business line, line id, version header, the line's
//! origin) by codes: [`crate::fast_codes`] hands each distinct set of strings a code per
//! engine handle, and Kotlin fetches the strings of a code it has not seen yet once, with
//! `codes()` ([`CODES_HEAD`], [`LINE_ENTRY`], [`TARGET_ENTRY`]).

use crate::record_layout::{bit_record, Field, Record, Shape, Writer};

bit_record! {
    /// What `route` is asked besides the URL (`route`'s `query` argument).
    pub struct RouteQuery: Int, written by Kotlin {
        /// The request method's code: its position in the `HttpMethods` list, or
        /// `HttpMethods.OTHER` for a method outside it, which then travels as `route`'s
        /// `method` string argument.
        method: 4,
        /// 1: route on the business line's `ws` pool (a WebSocket upgrade).
        ws: 1,
        /// 1: the request body cannot be written twice.
        one_shot_body: 1,
        /// A retry: the rollout mode its call's first attempt was routed under
        /// (`RolloutMode`'s code) plus one, so the call finishes under the mode it started
        /// with; 0 for a first attempt (the business line's mode now).
        mode: 2,
        /// 1: the caller only asks where a request would go (`LineKit.route`) and reports
        /// nothing, so the request is not counted in flight on its line.
        ask_only: 1,
    }
}

bit_record! {
    /// The answer of `route`.
    pub struct RouteAnswer: Long, written by Rust {
        /// The reason's code (`RouteReason`).
        reason: 6,
        /// 1: the line's deployment fingerprint differs from the business line's reference.
        version_mismatch: 1,
        /// How many more lines the call may try after a line fault:
        /// `thresholds.max_retries`, or 0 when the core's replay rule forbids sending the
        /// request again.
        max_retries: 4,
        /// 1: the final URL is the request URL byte for byte (the line is the request's
        /// own origin), so the request is sent as it is.
        same_url: 1,
        /// The code table generation that `line` and `target` belong to.
        generation: 8,
        /// The code of the answer's `LineEntry` (business line, line id, version header,
        /// body limit); 0 for none.
        line: 16,
        /// The code of the answer's `TargetEntry` (where the request goes); 0 when the URL
        /// stays as it is.
        target: 16,
        /// The rollout mode the request was routed under (`RolloutMode`'s code).
        mode: 2,
        /// Under `observe`: the code of the reason `on` would have routed with
        /// (`RouteReason`) plus one; 0 under the other modes.
        would_reason: 6,
    }
}

bit_record! {
    /// What `report` is told about one attempt besides its times (`report`'s `head`
    /// argument).
    pub struct ReportHead: Long, written by Kotlin {
        /// The generation of `line` (the route answer's).
        generation: 8,
        /// The route answer's line entry code; 0 for none.
        line: 16,
        /// 1: the attempt was a WebSocket upgrade.
        ws: 1,
        /// The outcome's code plus one (`AttemptOutcome`); 0 when a response arrived with
        /// `status` and the core maps the status.
        outcome: 6,
        /// 1: `status` holds the response's HTTP status.
        has_status: 1,
        /// The HTTP status.
        status: 16,
    }
}

bit_record! {
    /// The answer of `report`.
    pub struct ReportAnswer: Int, written by Rust {
        /// The code of the outcome the core recorded (`AttemptOutcome`).
        outcome: 6,
        /// 1: the outcome is a line fault (the core's rule), so the call may move.
        line_fault: 1,
        /// 1: the attempt may be sent again on the same line, on a new connection, without
        /// counting as a try (a stale pooled connection).
        resend: 1,
    }
}

bit_record! {
    /// How one connect to one address ended (`connectResult`'s `result` argument).
    pub struct ConnectResult: Long, written by Kotlin {
        /// 1: the connect failed.
        failed: 1,
        /// The failure's code (`ConnectFailureKind`) when `failed`.
        error: 4,
        /// 1: `connect_ms` holds the measured connect time (a success only).
        measured: 1,
        /// The connect time in milliseconds (saturated).
        connect_ms: 32,
    }
}

/// The answer of `lookup` (`null` instead when the caller must use the system resolver).
pub const LOOKUP_ANSWER: Record = Record {
    name: "LookupAnswer",
    shape: Shape::Bytes {
        entry: "one address: its 4 (IPv4) or 16 (IPv6) raw bytes.",
    },
    writer: Writer::Rust,
    doc: "The addresses the core answers for a host, in connect order.",
    fields: &[Field::unsigned(
        "keep_ms",
        4,
        "How many milliseconds the answer may be kept (0: ask again next time).",
    )],
};

/// The head of `codes()`'s answer.
pub const CODES_HEAD: Record = Record {
    name: "CodesHead",
    shape: Shape::Texts,
    writer: Writer::Rust,
    doc: "The head of the answer of `codes()`: the answer is this head, then `lines` \
          `LineEntry` groups, then `targets` `TargetEntry` groups.",
    fields: &[
        Field::number(
            "generation",
            "The code table generation the entries belong to (the current one).",
        ),
        Field::number(
            "line_from",
            "The code of the first line entry that follows, minus one.",
        ),
        Field::number("lines", "How many line entries follow."),
        Field::number(
            "target_from",
            "The code of the first target entry that follows, minus one.",
        ),
        Field::number(
            "targets",
            "How many target entries follow the line entries.",
        ),
    ],
};

/// The strings a route answer's line code stands for.
pub const LINE_ENTRY: Record = Record {
    name: "LineEntry",
    shape: Shape::Texts,
    writer: Writer::Rust,
    doc: "The strings a route answer's `line` code stands for.",
    fields: &[
        Field::text("biz", "The business line owning the request, if any."),
        Field::text(
            "line",
            "The chosen line's id, if the request was put on a line.",
        ),
        Field::text(
            "version_header",
            "The response header whose value belongs in the attempt's report, if any.",
        ),
        Field::number(
            "buffer_body_max_bytes",
            "`thresholds.buffer_body_max_bytes` of the config that routed.",
        ),
        Field::text(
            "would_line",
            "Under `observe`: the line id `on` would have chosen, if any.",
        ),
    ],
};

/// Where a route answer's target code sends the request.
pub const TARGET_ENTRY: Record = Record {
    name: "TargetEntry",
    shape: Shape::Texts,
    writer: Writer::Rust,
    doc: "Where a route answer's `target` code sends the request: the parts of the final \
          URL that differ from the request's (its path, query and fragment stay).",
    fields: &[
        Field::text(
            "scheme",
            "`http`, `https`, `ws` or `wss` (the request's family, the line's security).",
        ),
        Field::text("host", "Host name or IP literal (IPv6 without brackets)."),
        Field::number("port", "Explicit port; null for the scheme's default."),
        Field::text(
            "path_prefix",
            "A converged host's path prefix, put before the request's path; null for none.",
        ),
    ],
};

/// The request headers `route` reads.
pub const ROUTE_HEADERS: Record = Record {
    name: "RouteHeaders",
    shape: Shape::List { separator: '\n' },
    writer: Writer::Kotlin,
    doc: "The request's `X-Line-*` and idempotency-key headers, in order (`route`'s \
          `headers` argument; null for none). The core reads them with its one header rule.",
    fields: &[Field::text("name", ""), Field::text("value", "")],
};

/// The lines a call already tried.
pub const EXCLUDED_LINES: Record = Record {
    name: "ExcludedLines",
    shape: Shape::List { separator: '\n' },
    writer: Writer::Kotlin,
    doc: "Line ids this call already tried (`route`'s `exclude` argument; null for none).",
    fields: &[Field::text("line", "")],
};

bit_record! {
    /// How an engine is started (`NativeStart.start`'s `flags` argument).
    pub struct StartFlags: Int, written by Kotlin {
        /// 1: an invalid app config falls back down the source chain instead of
        /// refusing to start.
        fallback_on_invalid_config: 1,
        /// 1: the engine sends nothing of its own until consent is granted.
        require_consent: 1,
        /// 1: a trace sink will be attached (`bind_engine`); events wait for it.
        trace_sink: 1,
        /// 1: a transport will be attached (`bind_engine`); requests wait for it.
        transport: 1,
    }
}

/// Why `NativeStart.start` started no engine.
pub const START_FAILURE: Record = Record {
    name: "StartFailure",
    shape: Shape::Texts,
    writer: Writer::Rust,
    doc: "Why `start` started no engine (the first element of its `failure` argument): \
          this head, then `problems` `ConfigProblem` groups.",
    fields: &[
        Field::text(
            "kind",
            "`InvalidAppConfig` (strict start-up refused the app's own config: the problems \
             follow), else the name of the `LineKitError` kind.",
        ),
        Field::text(
            "message",
            "The error's message (null for `InvalidAppConfig`).",
        ),
        Field::number("problems", "How many `ConfigProblem` groups follow."),
    ],
};

/// One problem of an app config that strict start-up refused.
pub const CONFIG_PROBLEM: Record = Record {
    name: "ConfigProblem",
    shape: Shape::Texts,
    writer: Writer::Rust,
    doc: "One problem of the app's own config, in document order.",
    fields: &[
        Field::text(
            "source",
            "Which level: `remote` (the builder's `configJson`) or `sealed`.",
        ),
        Field::text(
            "path",
            "The field path, such as `biz_lines.spot.http[1].url` (empty for the whole document).",
        ),
        Field::text("error", "What is wrong with it."),
    ],
};

/// Every record of the JNI path.
pub const RECORDS: [Record; 14] = [
    RouteQuery::LAYOUT,
    RouteAnswer::LAYOUT,
    ReportHead::LAYOUT,
    ReportAnswer::LAYOUT,
    ConnectResult::LAYOUT,
    LOOKUP_ANSWER,
    CODES_HEAD,
    LINE_ENTRY,
    TARGET_ENTRY,
    ROUTE_HEADERS,
    EXCLUDED_LINES,
    StartFlags::LAYOUT,
    START_FAILURE,
    CONFIG_PROBLEM,
];

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::config::RolloutMode;
    use linekit_core::dns::ConnectError;
    use linekit_core::line::Outcome;
    use linekit_core::trace::Reason;

    #[test]
    fn codes_fit_their_fields() {
        let width = |r: &Record, name: &str| {
            let f = r.fields.iter().find(|f| f.name == name).expect("field");
            1usize << f.width
        };
        assert!(Reason::ALL.len() <= width(&RouteAnswer::LAYOUT, "reason"));
        assert!(Reason::ALL.len() < width(&RouteAnswer::LAYOUT, "would_reason"));
        assert!(RolloutMode::ALL.len() <= width(&RouteAnswer::LAYOUT, "mode"));
        assert!(Outcome::ALL.len() <= width(&ReportAnswer::LAYOUT, "outcome"));
        assert!(Outcome::ALL.len() < width(&ReportHead::LAYOUT, "outcome"));
        assert!(ConnectError::ALL.len() <= width(&ConnectResult::LAYOUT, "error"));
        assert!(crate::fast_codes::METHODS.len() < width(&RouteQuery::LAYOUT, "method"));
        assert_eq!(
            width(&RouteAnswer::LAYOUT, "generation"),
            width(&ReportHead::LAYOUT, "generation")
        );
        assert_eq!(
            width(&RouteAnswer::LAYOUT, "line"),
            width(&ReportHead::LAYOUT, "line")
        );
    }

    #[test]
    fn every_record_has_a_unique_name_and_documented_fields() {
        let mut names: Vec<&str> = RECORDS.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RECORDS.len(), "{names:?}");
        for r in &RECORDS {
            assert!(!r.doc.trim().is_empty(), "{}", r.name);
            if matches!(r.shape, Shape::List { .. }) {
                continue; // the record's doc names its parts
            }
            for f in r.fields {
                assert!(!f.doc.trim().is_empty(), "{}.{}", r.name, f.name);
            }
        }
    }
}
