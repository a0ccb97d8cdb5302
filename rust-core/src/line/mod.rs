//! Lines and how one is chosen: per-line sliding-window statistics, ranking, the switch
//! guard and circuit breaker that keep choices stable, the pool that combines them, the
//! router that turns a request into a decision, and domain convergence.

pub mod convergence;
pub mod endpoint;
pub mod headers;
pub mod router;
pub mod outcome;

pub use endpoint::{Endpoint, Scheme, SplitUrl};
pub use outcome::{Outcome, Protocol};
