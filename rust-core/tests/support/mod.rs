//! Helpers shared by integration tests.

#[cfg(feature = "cli")]
pub mod cli;
pub mod dns;
pub mod lines;
pub mod manual;
pub mod replay;
pub mod signing;
pub mod temp;
pub mod trace;
pub mod transport;
