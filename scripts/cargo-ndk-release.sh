#!/usr/bin/env bash
# The cargo-ndk build of the shipped liblinekit.so, with the release flags of
# scripts/release-flags.sh (the same ones `./build.sh size` measures) and Android's packed
# relocations (loaded since API 23). Run by the Gradle task that feeds the AAR's jniLibs.
#   scripts/cargo-ndk-release.sh OUT_DIR PLATFORM ABI...
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-flags.sh
source scripts/release-flags.sh
out=$1
platform=$2
shift 2
linekit_ensure_rust_src
LINEKIT_LINK_RUSTFLAGS="-C link-arg=-Wl,--pack-dyn-relocs=android"
# One cargo-ndk run per ABI: each target has its own rustc flags (linekit_target_rustflags).
for abi in "$@"; do
  LINEKIT_TARGET_RUSTFLAGS=$(linekit_target_rustflags "$abi")
  linekit_release_cargo cargo ndk -t "$abi" --platform "$platform" -o "$out" build "${LINEKIT_RELEASE_CARGO_ARGS[@]}"
done
