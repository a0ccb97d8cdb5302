# Sourced (not run) by build.sh and scripts/android-build.sh: the one definition of how the
# shipped liblinekit.so is compiled, so that `./build.sh size` measures exactly what
# `./build.sh android` (cargo-ndk) ships. The profile itself is `[profile.release]` in the
# workspace Cargo.toml; BENCHMARKS.md ("Size of liblinekit.so") has the measured effect of
# each choice.
#
# std is rebuilt with the crate (`-Z build-std`) so that it is optimised for size with the
# rest, without the backtrace symbolizer (gimli, addr2line, miniz_oxide, rustc-demangle:
# a release .so never prints a symbolized backtrace) and with the size-optimised core/alloc
# algorithms. Unwinding stays (`panic_unwind`): a panic inside a call is caught at the FFI
# boundary and becomes an exception instead of killing the app.
#
# `-Z` flags need a nightly cargo; on a stable toolchain RUSTC_BOOTSTRAP=1 unlocks them. It
# is set only for these release builds of the .so (never for tests, clippy or the host
# bindgen build), and the build needs the `rust-src` component of the same toolchain.

# Arguments for `cargo build` (after `--target T`, or after `cargo ndk ... build`).
LINEKIT_RELEASE_CARGO_ARGS=(
  --release -p linekit-android --lib
  -Zbuild-std=std,panic_unwind
  -Zbuild-std-features=panic-unwind,optimize_for_size
)

# rustc flags of the release .so (BENCHMARKS.md "Size of liblinekit.so" measures each):
# - no file/line/column strings in panic messages (a caught panic is reported as "native
#   panic" anyway), and identical code folding at link time (lld, which the NDK uses);
# - a panic that leaves a `drop` aborts (`panic-in-drop=abort`): drop glue then needs no
#   landing pads or unwind entries of its own. Every other panic still unwinds to the FFI
#   boundary; the engine's only `Drop` with work in it (LineKit: close) catches its own
#   panics, and foreign callbacks are caught where they are called (examples/ffi_panic);
# - unwind tables only where an unwind can pass (`-C force-unwind-tables=no`; these targets
#   default to a table for every function): LLVM still gives every function that may
#   unwind, or catches, its entry, so a panic unwinds to the FFI boundary as before; the
#   functions that cannot unwind (most of them, with the drops above) carry none. The cost
#   is a shorter native stack in a crash report through those frames;
# - direct calls to the library's own functions on x86_64 (`-Z plt=yes`: that target
#   defaults to calling every function through a GOT slot, which lld does not relax here;
#   ARM calls directly anyway);
# - no LLVM machine outliner (on by default for AArch64 at opt-level "z"): it saves 87 KB
#   of code but its ~4,000 outlined functions cost 104 KB of unwind entries and tables;
# - AArch64's homogeneous prologues and epilogues (`-homogeneous-prolog-epilog`, an LLVM
#   option of the AArch64 backend, ignored by the others): the register saves and
#   restores of a function are calls to a few shared helpers instead of inline code, and
#   each function's unwind entry still describes its frame (examples/ffi_panic unwinds
#   through them);
# - LLVM's inliner at a cost threshold of 25 (`-inline-threshold=25`) instead of the 5 it
#   uses at opt-level "z": small helpers (accessors, `Option`/`Result` adapters, one-line
#   wrappers) are folded into their callers, which removes their call sequences, their own
#   bodies and their unwind entries; above ~30 the copies of inlined code outweigh that
#   (BENCHMARKS.md has the sweep);
# - no `Debug` output (`fmt-debug=none`): nothing the library returns or logs formats
#   `{:?}` (state and traces are serde, errors Display; the one quoted name in a wire
#   enum's parse error is quoted by hand), so derived and std `Debug` code is left out;
# - no UniFFI interface metadata (`UNIFFI_META_*` statics, read only by uniffi-bindgen from
#   the host build): scripts/release-discard.ld drops their sections (−17 KB on x86_64);
# - curve25519-dalek's portable 64-bit backend on x86_64 as on ARM (no AVX2 copy next to
#   it): Ed25519 only verifies remote configs, a few times a day;
# - the portable constant-time AES and POLYVAL on x86 as on ARM (no AES-NI/CLMUL copy):
#   AES opens the sealed config once and encrypts DNSPod queries of a few dozen bytes.
# The linker script's absolute path (RUSTFLAGS are split at spaces: the checkout's path must
# not contain one).
LINEKIT_RELEASE_DISCARD_LD="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/release-discard.ld"
LINEKIT_RELEASE_RUSTFLAGS="-Zlocation-detail=none -C link-arg=-Wl,--icf=all -C link-arg=-Wl,-T,$LINEKIT_RELEASE_DISCARD_LD -Zpanic-in-drop=abort -Cforce-unwind-tables=no -Zplt=yes -Cllvm-args=-enable-machine-outliner=never -Cllvm-args=-homogeneous-prolog-epilog -Cllvm-args=-inline-threshold=25 -Zfmt-debug=none --cfg curve25519_dalek_backend=\"serial\" --cfg aes_force_soft --cfg polyval_force_soft"

# rustc flags of the release .so for one target only; $1 is a target triple or an Android
# ABI name. On x86_64: a frame pointer in every function that calls another
# (`force-frame-pointers=non-leaf`, an unstable value, hence `-Z unstable-options`): the
# unwind entry of such a function then describes the frame once from the frame pointer
# instead of following every push, pop and stack adjustment (-53 KB of `.eh_frame`, +9 KB
# of code). AArch64 has these frame pointers by default; on armv7 (ARM EHABI unwind
# tables) they only add code (+41 KB), so it keeps none.
linekit_target_rustflags() {
  case $1 in
    x86_64*) echo "-Zunstable-options -Cforce-frame-pointers=non-leaf" ;;
  esac
}

# Runs cargo (or `cargo ndk`) for ONE target with the environment the release build needs.
# RUSTFLAGS only reach the target's crates (and std) because the build always names the
# target; its own flags come in LINEKIT_TARGET_RUSTFLAGS (linekit_target_rustflags), extra
# link flags for a stand-in linker in LINEKIT_LINK_RUSTFLAGS.
linekit_release_cargo() {
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="$LINEKIT_RELEASE_RUSTFLAGS ${LINEKIT_TARGET_RUSTFLAGS:-} ${LINEKIT_LINK_RUSTFLAGS:-}" "$@"
}

# Makes sure the toolchain has rust-src (std's sources, for -Z build-std); exits naming it.
linekit_ensure_rust_src() {
  rustup component list --installed 2>/dev/null | grep -q '^rust-src' && return 0
  echo "== rustup component add rust-src" >&2
  if ! rustup component add rust-src; then
    echo "build.sh: rustup could not install the rust-src component (needed by -Z build-std for the release .so)" >&2
    exit 1
  fi
}
