//! Writes the generated Kotlin enums of the core's wire vocabularies under OUT_DIR:
//! `cargo run -p linekit-android --features bindgen --bin kotlin-vocabulary -- OUT_DIR`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: kotlin-vocabulary OUT_DIR");
        return ExitCode::from(2);
    };
    for (rel, src) in linekit::kotlin_vocabulary::kotlin_sources() {
        let path = out.join(rel);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, src));
        if let Err(e) = written {
            eprintln!("kotlin-vocabulary: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
