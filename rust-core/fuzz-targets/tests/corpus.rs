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

#[test]
fn the_small_order_and_non_canonical_key_seeds_are_refused() {
    use base64::Engine as _;
    let dir = seeds_dir().join("trust_keys");
    let mut refused = 0;
    for entry in std::fs::read_dir(&dir).expect("trust_keys seeds") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("small_order_") || name.starts_with("noncanon_")) {
            continue;
        }
        let raw = std::fs::read(&path).expect("seed");
        assert_eq!(raw.len(), 32, "{name}");
        let b64 = base64::engine::general_purpose::STANDARD.encode(&raw);
        assert!(
            linekit_core::config::trust::decode_key(&b64).is_err(),
            "{name} was accepted as a trust key"
        );
        refused += 1;
    }
    // The eight small-order points and eight non-canonical encodings.
    assert_eq!(refused, 16);
}
