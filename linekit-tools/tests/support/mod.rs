//! Helpers shared by the tools' integration tests: the core's test helpers (included by
//! path, so each is written once) and the tools' own.

pub mod cli;
pub mod replay;
pub mod trace;
pub mod world;

#[path = "../../../rust-core/tests/support/manual.rs"]
pub mod manual;
#[path = "../../../rust-core/tests/support/signing.rs"]
pub mod signing;
#[path = "../../../rust-core/tests/support/temp.rs"]
pub mod temp;
#[path = "../../../rust-core/tests/support/transport.rs"]
pub mod transport;
