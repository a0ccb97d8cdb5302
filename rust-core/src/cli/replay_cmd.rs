//! `linekit replay SCENARIO.json`: runs a scenario (see [`crate::replay`]) and prints its
//! JSON Lines; a bad scenario prints one error and exits 1 before any output.

use std::io::{Read, Write};

/// Runs `linekit replay FILE` (`-` reads standard input).
pub fn run(file: &str, input: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let text = match super::read_text(file, input, crate::replay::MAX_SCENARIO_BYTES) {
        Ok(t) => t,
        Err(e) => return super::fail(err, &e),
    };
    let mut buf = Vec::new();
    match crate::replay::run(&text, &mut buf) {
        Ok(()) => match out.write_all(&buf) {
            Ok(()) => 0,
            Err(e) => super::fail(err, &format!("output: {e}")),
        },
        Err(e) => super::fail(err, &e.to_string()),
    }
}
