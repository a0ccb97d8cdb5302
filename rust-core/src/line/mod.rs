//! Lines and how one is chosen: per-line sliding-window statistics, ranking, the switch
//! guard and circuit breaker that keep choices stable, the pool that combines them, the
//! router that turns a request into a decision, the staged rollout that says how much of
//! that a business line gets, and domain convergence.

pub mod breaker;
pub mod convergence;
pub mod endpoint;
pub mod guard;
pub mod headers;
pub mod outcome;
pub mod pool;
pub mod rank;
pub mod replay;
pub mod rollout;
pub mod router;
pub mod stats;
pub mod timings;
pub mod upgrade;
pub mod version;
pub mod ws;

pub use breaker::{Admission, Breaker, BreakerParams, BreakerState, PersistedBreaker};
pub use endpoint::{Endpoint, Scheme, SplitUrl};
pub use guard::SwitchGuard;
pub use outcome::{Outcome, Protocol};
pub use pool::{LinePool, LineSnapshot, LineState, PersistedLine, PoolSnapshot, Selection};
pub use stats::{PersistedBucket, WindowStats, WindowSummary};
pub use timings::Timings;
pub use version::VersionGuard;
pub use ws::{CloseCause, WsEvent};
