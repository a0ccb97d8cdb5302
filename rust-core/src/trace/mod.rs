//! Observability: why each decision was taken ([`Reason`]), structured [`TraceEvent`]s (one typed body per kind) sent
//! to a [`TraceSink`] with sampling, and redaction helpers so that logs name line ids and
//! host *groups*, never full URLs, host lists, keys or tokens; [`format`] is the trace file
//! format (JSON Lines of [`TraceEvent`]s) and its checked reader.

pub mod event;
pub mod format;
pub mod record;
internal_mod!(reason);
internal_mod!(redact);
internal_mod!(sampler);

pub use event::{
    AttemptTrace, BreakerTrace, ConfigTrace, MemorySink, RouteTrace, TraceBody, TraceEvent,
    TraceKind, TraceLine, TraceNetwork, TraceSink, WouldTrace,
};
pub use reason::Reason;
pub use redact::redact_url;
pub use sampler::Sampler;
