# Sourced (not run) by build.sh and scripts/cargo-ndk.sh: the one definition of how
# the shipped liblinekit.so is compiled, so that `./build.sh size` measures exactly what
# `./build.sh android` (cargo-ndk) ships. The profile itself is `[profile.release]` in the
# workspace Cargo.toml; BENCHMARKS.md ("Size of liblinekit.so") has the measured effect of
# each choice.
#
# Two sets of flags:
# - the stable set works on any Rust toolchain: link flags (16 KB pages, identical code
#   folding, the linker script), unwind tables and `--cfg` choices of our dependencies;
# - the release set adds flags that are tied to the Rust version pinned in
#   rust-toolchain.toml: `-Z` flags (unstable: they may change meaning or disappear in any
#   release), LLVM options (`-C llvm-args`: internal options of the LLVM that release of
#   rustc ships) and std rebuilt with the crate (`-Z build-std`, from the toolchain's
#   `rust-src`). A stable rustc accepts `-Z` flags only with RUSTC_BOOTSTRAP=1, which is set
#   for these release builds alone (never for tests, clippy or the host bindgen build).
#   `./build.sh test` gives this set to rustc for aarch64-linux-android and
#   armv7-linux-androideabi (android_flag_check), so a flag rustc rejects for Android fails
#   there, not in a user's first build; a toolchain other than the pinned one is refused
#   (linekit_check_toolchain) instead of being given flags it was never tested with.
# LINEKIT_STABLE_FLAGS=1 builds with the stable set only (any toolchain, no rust-src);
# `./build.sh size` measures both.
#
# std rebuilt with the crate is optimised for size with the rest, without the backtrace
# symbolizer (gimli, addr2line, miniz_oxide, rustc-demangle: a release .so never prints a
# symbolized backtrace) and with the size-optimised core/alloc algorithms. Unwinding stays
# (`panic_unwind`): a panic inside a call is caught at the FFI boundary and becomes an
# exception instead of killing the app.

LINEKIT_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The pinned Rust version (`channel` of rust-toolchain.toml).
LINEKIT_RUST_VERSION=$(sed -n 's/^channel *= *"\([^"]*\)".*/\1/p' "$LINEKIT_SCRIPTS_DIR/../rust-toolchain.toml")

# 16 KB pages for every ABI, 32-bit included: Android 15+ devices may use 16 KB pages, and a
# library with a LOAD segment aligned below that does not load there. NDK r28+ aligns only
# the 64-bit ABIs by default, clang asks for 4 KB on 32-bit ARM and cargo-ndk adds 16 KB only
# for 64-bit targets; these flags come after the driver's own, and the last one wins.
# common-page-size keeps lld's RELRO padding on the same 16 KB boundary.
LINEKIT_PAGE_RUSTFLAGS="-C link-arg=-Wl,-z,max-page-size=16384 -C link-arg=-Wl,-z,common-page-size=16384"

# The linker script's absolute path (RUSTFLAGS are split at spaces: the checkout's path must
# not contain one).
LINEKIT_RELEASE_DISCARD_LD="$LINEKIT_SCRIPTS_DIR/release-discard.ld"
LINEKIT_RELEASE_HIDE_ASYNC="$LINEKIT_SCRIPTS_DIR/release-hide-async.ver"

# Stable set (BENCHMARKS.md "Size of liblinekit.so" measures each):
# - identical code folding at link time (lld, which the NDK uses);
# - no UniFFI interface metadata (`UNIFFI_META_*` statics, read only by uniffi-bindgen from
#   the host build): scripts/release-discard.ld drops their sections (−17 KB on x86_64);
# - no UniFFI async scaffolding (96 `ffi_*_rust_future_*` functions, never called: Linekit
#   exports no async function): scripts/release-hide-async.ver makes them local, so the
#   linker's garbage collection drops them with the generic code they reach (−18 KB on
#   x86_64);
# - unwind tables only where an unwind can pass (`-C force-unwind-tables=no`; these targets
#   default to a table for every function): LLVM still gives every function that may
#   unwind, or catches, its entry, so a panic unwinds to the FFI boundary as before; the
#   functions that cannot unwind carry none. The cost is a shorter native stack in a crash
#   report through those frames;
# - curve25519-dalek's portable 64-bit backend on x86_64 as on ARM (no AVX2 copy next to
#   it): Ed25519 only verifies remote configs, a few times a day;
# - the portable constant-time AES and POLYVAL on x86 as on ARM (no AES-NI/CLMUL copy), and
#   that AES in its compact form (`aes_compact`: semi-fixsliced rounds, smaller and
#   slower, −3.4 KB on x86_64): AES opens the sealed config once and encrypts DNSPod
#   queries of a few dozen bytes.
LINEKIT_STABLE_RUSTFLAGS="$LINEKIT_PAGE_RUSTFLAGS -C link-arg=-Wl,--icf=all -C link-arg=-Wl,-T,$LINEKIT_RELEASE_DISCARD_LD -C link-arg=-Wl,--version-script=$LINEKIT_RELEASE_HIDE_ASYNC -Cforce-unwind-tables=no --cfg curve25519_dalek_backend=\"serial\" --cfg aes_force_soft --cfg aes_compact --cfg polyval_force_soft"

# Added by the release set, tied to the pinned version:
# - no file/line/column strings in panic messages (`-Z location-detail=none`; a caught panic
#   is reported as "native panic" anyway);
# - a panic that leaves a `drop` aborts (`-Z panic-in-drop=abort`): drop glue then needs no
#   landing pads or unwind entries of its own. Every other panic still unwinds to the FFI
#   boundary; the engine's only `Drop` with work in it (LineKit: close) catches its own
#   panics, and foreign callbacks are caught where they are called (examples/ffi_panic);
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
# - no `Debug` output (`-Z fmt-debug=none`): nothing the library returns or logs formats
#   `{:?}` (state and traces are serde, errors Display; the one quoted name in a wire
#   enum's parse error is quoted by hand), so derived and std `Debug` code is left out.
LINEKIT_PINNED_RUSTFLAGS="-Zlocation-detail=none -Zpanic-in-drop=abort -Zplt=yes -Cllvm-args=-enable-machine-outliner=never -Cllvm-args=-homogeneous-prolog-epilog -Cllvm-args=-inline-threshold=25 -Zfmt-debug=none"

# Arguments for `cargo build` (after `--target T`, or after `cargo ndk ... build`) and rustc
# flags of the set chosen by linekit_use_flags: LINEKIT_RELEASE_CARGO_ARGS,
# LINEKIT_RELEASE_RUSTFLAGS and LINEKIT_FLAG_SET (`release` or `stable`).
linekit_use_flags() {
  LINEKIT_FLAG_SET=$1
  LINEKIT_RELEASE_CARGO_ARGS=(--release -p linekit-android --lib)
  case $1 in
    release)
      LINEKIT_RELEASE_CARGO_ARGS+=(-Zbuild-std=std,panic_unwind -Zbuild-std-features=panic-unwind,optimize_for_size)
      LINEKIT_RELEASE_RUSTFLAGS="$LINEKIT_STABLE_RUSTFLAGS $LINEKIT_PINNED_RUSTFLAGS"
      ;;
    stable)
      LINEKIT_RELEASE_RUSTFLAGS=$LINEKIT_STABLE_RUSTFLAGS
      ;;
    *)
      echo "release-flags.sh: unknown flag set '$1' (release or stable)" >&2
      return 1
      ;;
  esac
}
if [ "${LINEKIT_STABLE_FLAGS:-0}" = 1 ]; then linekit_use_flags stable; else linekit_use_flags release; fi

# rustc flags of the release .so for one target only; $1 is a target triple or an Android
# ABI name. Release set on x86_64: a frame pointer in every function that calls another
# (`force-frame-pointers=non-leaf`, an unstable value, hence `-Z unstable-options`): the
# unwind entry of such a function then describes the frame once from the frame pointer
# instead of following every push, pop and stack adjustment (-53 KB of `.eh_frame`, +9 KB
# of code). AArch64 has these frame pointers by default; on armv7 (ARM EHABI unwind
# tables) they only add code (+41 KB), so it keeps none.
linekit_target_rustflags() {
  [ "$LINEKIT_FLAG_SET" = release ] || return 0
  case $1 in
    x86_64*) echo "-Zunstable-options -Cforce-frame-pointers=non-leaf" ;;
  esac
}

# Fails unless the active rustc is the pinned version (the release set was tested with it
# alone); the stable set runs on any toolchain.
linekit_check_toolchain() {
  [ "$LINEKIT_FLAG_SET" = release ] || return 0
  local have
  have=$(rustc --version | awk '{print $2}')
  if [ "$have" != "$LINEKIT_RUST_VERSION" ]; then
    echo "release-flags.sh: the release flags are tied to Rust $LINEKIT_RUST_VERSION (rust-toolchain.toml), but rustc is $have" >&2
    echo "  (run cargo through rustup inside the checkout, or build with LINEKIT_STABLE_FLAGS=1)" >&2
    return 1
  fi
}

# Runs cargo (or `cargo ndk`) for ONE target with the environment the chosen set needs.
# RUSTFLAGS only reach the target's crates (and std) because the build always names the
# target; its own flags come in LINEKIT_TARGET_RUSTFLAGS (linekit_target_rustflags), extra
# link flags for a stand-in linker in LINEKIT_LINK_RUSTFLAGS.
linekit_release_cargo() {
  local flags="$LINEKIT_RELEASE_RUSTFLAGS ${LINEKIT_TARGET_RUSTFLAGS:-} ${LINEKIT_LINK_RUSTFLAGS:-}"
  if [ "$LINEKIT_FLAG_SET" = release ]; then
    RUSTC_BOOTSTRAP=1 RUSTFLAGS="$flags" "$@"
  else
    RUSTFLAGS="$flags" "$@"
  fi
}

# Everything the chosen set needs before a build: the pinned rustc and, for the release set,
# the toolchain's rust-src (std's sources, for -Z build-std). Exits naming what is wrong.
linekit_prepare_release_build() {
  [ "$LINEKIT_FLAG_SET" = release ] || return 0
  linekit_check_toolchain || exit 1
  rustup component list --installed 2>/dev/null | grep -q '^rust-src' && return 0
  echo "== rustup component add rust-src" >&2
  if ! rustup component add rust-src; then
    echo "release-flags.sh: rustup could not install the rust-src component (needed by -Z build-std for the release .so)" >&2
    exit 1
  fi
}
