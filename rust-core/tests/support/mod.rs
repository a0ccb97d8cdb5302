//! Helpers shared by integration tests.

pub mod dns;
pub mod ed25519_points;
pub mod lines;
pub mod logs;
pub mod manual;
pub mod signing;
pub mod temp;
pub mod transport;
