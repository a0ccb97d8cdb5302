//! Lines and how one is chosen: per-line sliding-window statistics, ranking, the switch
//! guard and circuit breaker that keep choices stable, the pool that combines them, the
//! router that turns a request into a decision, the staged rollout that says how much of
//! that a business line gets, and domain convergence.

internal_mod!(breaker);
internal_mod!(convergence);
internal_mod!(endpoint);
internal_mod!(guard);
internal_mod!(in_flight);
pub mod headers;
internal_mod!(outcome);
internal_mod!(pool);
internal_mod!(rank);
pub mod replay;
pub mod rollout;
pub mod router;
internal_mod!(stats);
internal_mod!(timings);
internal_mod!(upgrade);
internal_mod!(version);
internal_mod!(warm);
internal_mod!(ws);

pub use breaker::{Admission, Breaker, BreakerParams, BreakerState, PersistedBreaker};
pub use endpoint::{Endpoint, Scheme, SplitUrl};
pub use guard::SwitchGuard;
pub use in_flight::InFlight;
pub use outcome::{Outcome, Protocol};
pub use pool::{LinePool, LineSnapshot, LineState, PersistedLine, PoolSnapshot, Selection};
pub use stats::{PersistedBucket, WindowStats, WindowSummary};
pub use timings::Timings;
pub use version::VersionGuard;
pub use warm::{WarmMark, WARM_STALE_MS};
pub use ws::{CloseCause, WsEvent};
