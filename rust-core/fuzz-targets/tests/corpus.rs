//! Replays every fuzz target's committed corpus (`rust-core/fuzz/seeds/<target>/`): the
//! seeds, the inputs a long fuzzing run found interesting (minimised) and every input
//! that once crashed a target. Runs on the stable compiler as part of `cargo test`.

use linekit_fuzz_targets::TARGETS;
use std::path::PathBuf;

fn seeds_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds")
}

#[test]
fn every_target_has_a_corpus_and_every_corpus_a_target() {
    let mut dirs: Vec<String> = std::fs::read_dir(seeds_dir())
        .expect("seeds dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(dirs, names);
}

#[test]
fn every_corpus_input_runs_without_a_panic() {
    let mut total = 0;
    for target in TARGETS {
        let dir = seeds_dir().join(target.name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: empty corpus", target.name);
        for file in files {
            let data = std::fs::read(&file).expect("corpus file");
            let outcome = std::panic::catch_unwind(|| (target.run)(&data));
            assert!(
                outcome.is_ok(),
                "{} panicked on {}",
                target.name,
                file.display()
            );
            total += 1;
        }
    }
    assert!(total >= TARGETS.len());
}
