//! Writes the generated Kotlin of the core's wire vocabularies and of the JNI records
//! under OUT_DIR and removes UniFFI's async scaffolding from the bindings `uniffi-bindgen`
//! wrote there (`linekit::kotlin_unbind`), or prints `docs/jni-records.md` with `--doc`:
//! `cargo run -p linekit-android --features bindgen --bin kotlin-vocabulary -- OUT_DIR`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: kotlin-vocabulary OUT_DIR | --doc");
        return ExitCode::from(2);
    };
    if out.as_os_str() == "--doc" {
        print!("{}", linekit::kotlin_records::markdown());
        return ExitCode::SUCCESS;
    }
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
    if let Err(e) = linekit::kotlin_unbind::unbind_dir(&out) {
        eprintln!("kotlin-vocabulary: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
