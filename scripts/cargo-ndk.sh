#!/usr/bin/env bash
# The cargo-ndk build of liblinekit.so that the Gradle build packages (its cargoNdk tasks run
# this script; nothing else does).
#   scripts/cargo-ndk.sh release|debug OUT_DIR PLATFORM ABI...
# release: the flags of scripts/release-flags.sh (the ones `./build.sh size` measures;
#          LINEKIT_STABLE_FLAGS=1 picks the stable set) and Android's packed relocations
#          (loaded since API 23), with the release profile.
# debug:   cargo's dev profile (incremental, no LTO, std as shipped) with only the 16 KB page
#          flags, so a debug app still loads on a 16 KB device; Gradle passes the one ABI of
#          the device being deployed to.
# cargo is $LINEKIT_CARGO when set (the Gradle task resolves it), else the one on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-flags.sh
source scripts/release-flags.sh
if [ $# -lt 4 ]; then
  echo "usage: scripts/cargo-ndk.sh release|debug OUT_DIR PLATFORM ABI..." >&2
  exit 2
fi
mode=$1
out=$2
platform=$3
shift 3
cargo=${LINEKIT_CARGO:-cargo}
case $mode in
  release)
    linekit_prepare_release_build
    LINEKIT_LINK_RUSTFLAGS="-C link-arg=-Wl,--pack-dyn-relocs=android"
    # One cargo-ndk run per ABI: each target has its own rustc flags (linekit_target_rustflags).
    for abi in "$@"; do
      LINEKIT_TARGET_RUSTFLAGS=$(linekit_target_rustflags "$abi")
      linekit_release_cargo "$cargo" ndk -t "$abi" --platform "$platform" -o "$out" build "${LINEKIT_RELEASE_CARGO_ARGS[@]}"
    done
    ;;
  debug)
    for abi in "$@"; do
      RUSTFLAGS="$LINEKIT_PAGE_RUSTFLAGS" "$cargo" ndk -t "$abi" --platform "$platform" -o "$out" build -p linekit-android --lib
    done
    ;;
  *)
    echo "scripts/cargo-ndk.sh: unknown mode '$mode' (release or debug)" >&2
    exit 2
    ;;
esac
