//! Leaves UniFFI's async scaffolding out of the generated Kotlin.
//!
//! Every UniFFI library exports `ffi_<crate>_rust_future_{poll,cancel,complete,free}_<T>`
//! for twelve return types, and the generated Kotlin declares all of them as `external
//! fun`s of the JNA library interface, which JNA binds when the bindings load. Linekit
//! exports no async function, so nothing calls them: the release library drops them
//! (`scripts/release-hide-async.ver`), and this pass removes their declarations from the
//! generated sources, so JNA binds only what Linekit calls. The `kotlin-vocabulary`
//! binary runs it over the directory `uniffi-bindgen` wrote, in the build and in Gradle.
//!
//! The pass is strict about the shape it edits: a declaration is one `external fun` line
//! naming the function, then lines up to the one that opens with `):` (the return type).
//! Anything else (a declaration that never closes, a `rust_future` name left anywhere
//! after the pass) is an error naming the file, so a UniFFI upgrade that changes the
//! template fails the build instead of leaving a binding to a dropped function.

/// The part of a function name that marks UniFFI's async scaffolding.
const ASYNC_SCAFFOLDING: &str = "_rust_future_";

/// `source` without the `external fun` declarations of the async scaffolding, and how
/// many it removed; an error when a declaration does not have the expected shape or a
/// reference to the scaffolding is left.
pub fn without_async_scaffolding(source: &str) -> Result<(String, usize), String> {
    let mut out = String::with_capacity(source.len());
    let mut removed = 0;
    let mut lines = source.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let is_scaffolding = trimmed.strip_prefix("external fun ").is_some_and(|rest| {
            rest.starts_with("ffi_") && fn_name(rest).contains(ASYNC_SCAFFOLDING)
        });
        if !is_scaffolding {
            out.push_str(line);
            continue;
        }
        if !closes(trimmed) {
            let closed = lines
                .by_ref()
                .any(|next| next.trim_start().starts_with("):"));
            if !closed {
                return Err(format!(
                    "the declaration of {} has no closing `):` line",
                    fn_name(&trimmed["external fun ".len()..])
                ));
            }
        }
        removed += 1;
    }
    if let Some(at) = out.find(ASYNC_SCAFFOLDING) {
        let line = out[..at].matches('\n').count() + 1;
        return Err(format!(
            "line {line} still names the async scaffolding outside an `external fun` declaration"
        ));
    }
    Ok((out, removed))
}

/// Whether a declaration's first line also holds its return type (`...): Unit`).
fn closes(first_line: &str) -> bool {
    first_line.contains("):")
}

/// The function name at the start of `rest` (after `external fun `).
fn fn_name(rest: &str) -> &str {
    let end = rest.find(['(', ' ']).unwrap_or(rest.len());
    rest[..end].trim_matches('`')
}

/// Removes the async scaffolding declarations from every `.kt` file under `dir` (the
/// directory `uniffi-bindgen` generated); returns how many it removed in all.
pub fn unbind_dir(dir: &std::path::Path) -> Result<usize, String> {
    let mut removed = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot list {}: {e}", d.display()))?
                .path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "kt") {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if !text.contains(ASYNC_SCAFFOLDING) {
                continue;
            }
            let (trimmed, n) =
                without_async_scaffolding(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(&path, trimmed)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            removed += n;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "\
internal interface UniffiLib : Library {
    external fun ffi_linekit_rustbuffer_free(`buf`: RustBuffer.ByValue,uniffi_out_err: UniffiRustCallStatus, 
    ): Unit
    external fun ffi_linekit_rust_future_poll_u8(`handle`: Long,`callback`: UniffiRustFutureContinuationCallback,`callbackData`: Long,
    ): Unit
    external fun ffi_linekit_rust_future_complete_rust_buffer(`handle`: Long,uniffi_out_err: UniffiRustCallStatus, 
    ): RustBuffer.ByValue
    external fun uniffi_linekit_fn_method_linekit_route(`ptr`: Long,
    ): RustBuffer.ByValue
    external fun ffi_linekit_rust_future_free_void(`handle`: Long): Unit
}
";

    #[test]
    fn removes_each_async_declaration_and_keeps_every_other_line() {
        let (out, removed) = without_async_scaffolding(GENERATED).unwrap();
        assert_eq!(removed, 3);
        assert_eq!(
            out,
            "\
internal interface UniffiLib : Library {
    external fun ffi_linekit_rustbuffer_free(`buf`: RustBuffer.ByValue,uniffi_out_err: UniffiRustCallStatus, 
    ): Unit
    external fun uniffi_linekit_fn_method_linekit_route(`ptr`: Long,
    ): RustBuffer.ByValue
}
"
        );
        // The continuation callback's interface stays: its name is not a function's.
        let with_callback =
            format!("{GENERATED}internal interface UniffiRustFutureContinuationCallback\n");
        assert_eq!(without_async_scaffolding(&with_callback).unwrap().1, 3);
    }

    #[test]
    fn a_declaration_that_never_closes_or_a_reference_outside_one_is_an_error_naming_it() {
        for (src, named) in [
            (
                "    external fun ffi_linekit_rust_future_poll_u8(`handle`: Long,\n    other\n",
                "ffi_linekit_rust_future_poll_u8",
            ),
            (
                "fun call() {\n    UniffiLib.ffi_linekit_rust_future_poll_u8(1, cb, 0)\n}\n",
                "line 2",
            ),
        ] {
            let err = without_async_scaffolding(src).unwrap_err();
            assert!(err.contains(named), "{err}");
        }
    }

    #[test]
    fn a_source_without_the_scaffolding_is_unchanged() {
        let src = "package dev.linekit.ffi\n\nexternal fun uniffi_linekit_fn_func_version(): Int\n";
        assert_eq!(
            without_async_scaffolding(src).unwrap(),
            (src.to_string(), 0)
        );
    }
}
