//! Helpers shared by integration tests.

pub mod lines;
pub mod replay;
pub mod signing;
pub mod temp;
pub mod transport;
