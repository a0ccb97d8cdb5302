//! # linekit-tools
//!
//! The developer tools around the Linekit engine, built on `linekit-core`'s public API and
//! never linked into the shipped library:
//! - [`replay`]: drives the real engine from a JSON scenario in virtual time
//!   (`docs/replay.md`).
//! - [`whatif`]: re-runs a recorded trace under another policy; compare, timeline and the
//!   self-contained HTML report (`docs/trace-format.md`).
//! - [`cli`]: the `linekit` command (`docs/architecture.md#cli`); `src/bin/linekit.rs`
//!   only forwards the process's arguments and streams to [`cli::run`].
//!
//! Every output is a function of its inputs: the same scenario or trace prints the same
//! bytes.
#![deny(missing_docs)]

pub mod cli;
pub mod replay;
pub mod whatif;
