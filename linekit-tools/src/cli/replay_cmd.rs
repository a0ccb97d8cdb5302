//! `linekit replay SCENARIO.json`: runs a scenario (see [`crate::replay`]) and prints its
//! JSON Lines; a bad scenario prints one error and exits 1 before any output.

use super::Streams;

/// Runs `linekit replay FILE` (`-` reads standard input).
pub(super) fn run(file: &str, io: &mut Streams<'_>) -> i32 {
    let text = match super::read_text(file, io.input, crate::replay::MAX_SCENARIO_BYTES) {
        Ok(t) => t,
        Err(e) => return super::fail(io.err, &e),
    };
    let mut buf = Vec::new();
    match crate::replay::run(&text, &mut buf) {
        Ok(()) => match io.out.write_all(&buf) {
            Ok(()) => 0,
            Err(e) => super::fail(io.err, &format!("output: {e}")),
        },
        Err(e) => super::fail(io.err, &e.to_string()),
    }
}
