#!/usr/bin/env bash
# `./build.sh android`: liblinekit.so for the four Android ABIs (cargo-ndk, NDK r28+ for 16 KB
# pages), then the AAR and the sample APK with Gradle. Checks its tools first and says exactly
# what is missing (exit 1, no build started). Never run on the Linekit CI machines, which
# have no Android SDK/NDK: see README "Android build status".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ABIS=(arm64-v8a armeabi-v7a x86_64 x86)
JNILIBS="$ROOT/android-bindings/build/jniLibs"

missing=()
sdk=${ANDROID_HOME:-${ANDROID_SDK_ROOT:-}}
ndk=${ANDROID_NDK_HOME:-}
[ -n "$sdk" ] && [ -d "$sdk" ] || missing+=("ANDROID_HOME (or ANDROID_SDK_ROOT): set it to the Android SDK directory")
if [ -z "$ndk" ] && [ -n "$sdk" ] && [ -d "$sdk/ndk" ]; then
  ndk=$(ls -d "$sdk"/ndk/* 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -n "$ndk" ] && [ -d "$ndk" ]; then
  # NDK r28+ links with 16 KB max page size by default (required for Android 15+ devices).
  rev=$(sed -n 's/^Pkg.Revision *= *\([0-9]*\).*/\1/p' "$ndk/source.properties" 2>/dev/null || true)
  if [ "${rev:-0}" -lt 28 ]; then
    missing+=("NDK r28 or newer: $ndk is r${rev:-? (no source.properties)} (16 KB page alignment needs r28+)")
  fi
else
  missing+=("ANDROID_NDK_HOME: set it to an NDK r28 or newer (sdkmanager 'ndk;28.2.13676358')")
fi
command -v cargo >/dev/null 2>&1 || missing+=("cargo: install Rust (rustup)")
command -v rustup >/dev/null 2>&1 || missing+=("rustup: needed to add the four Android targets")
command -v cargo-ndk >/dev/null 2>&1 || missing+=("cargo-ndk: cargo install cargo-ndk")
command -v java >/dev/null 2>&1 || missing+=("java 17+: needed by Gradle")
[ -x ./gradlew ] || command -v gradle >/dev/null 2>&1 ||
  missing+=("Gradle: no ./gradlew and no gradle on PATH (run 'gradle wrapper' once with Gradle 8.14+)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build.sh android: cannot build the Android artifacts; missing:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  echo "(the host-JVM build and tests need none of these: ./build.sh test)" >&2
  exit 1
fi

export ANDROID_NDK_HOME="$ndk"

echo "== rustup targets"
if ! rustup target add aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android; then
  echo "build.sh android: rustup could not add the Android targets (aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android)" >&2
  exit 1
fi

# The release flags shared with `./build.sh size` (std rebuilt for size, panics unwind).
# shellcheck source=scripts/release-flags.sh
source scripts/release-flags.sh
linekit_ensure_rust_src
# Packed relative relocations (Android's APS2 format, loaded by bionic since API 23; the
# library's minSdk is 24): the biggest dynamic section of the .so otherwise.
LINEKIT_LINK_RUSTFLAGS="-C link-arg=-Wl,--pack-dyn-relocs=android"

echo "== cargo ndk (${ABIS[*]}) → $JNILIBS"
rm -rf "$JNILIBS"
ndk_args=()
for abi in "${ABIS[@]}"; do ndk_args+=(-t "$abi"); done
linekit_release_cargo cargo ndk "${ndk_args[@]}" --platform 24 -o "$JNILIBS" build "${LINEKIT_RELEASE_CARGO_ARGS[@]}"

echo "== 16 KB page alignment (llvm-readelf: every LOAD segment aligned to 0x4000 or more)"
readelf=$(ls "$ndk"/toolchains/llvm/prebuilt/*/bin/llvm-readelf | head -n 1)
for abi in "${ABIS[@]}"; do
  so="$JNILIBS/$abi/liblinekit.so"
  bad=""
  while read -r kind _ _ _ _ _ _ align; do
    if [ "$kind" = LOAD ] && [ $((align)) -lt 16384 ]; then bad="$bad $align"; fi
  done < <("$readelf" -lW "$so" | awk '$1 == "LOAD" { print $1, $2, $3, $4, $5, $6, $7, $NF }')
  if [ -n "$bad" ]; then
    echo "build.sh android: $so has LOAD segments aligned below 16 KB: $bad" >&2
    exit 1
  fi
  echo "  $abi ok"
done

echo "== Gradle: AAR and sample APK"
if [ -x ./gradlew ]; then gradle=./gradlew; else gradle=gradle; fi
"$gradle" :android-bindings:assembleRelease :kotlin-sample:assembleDebug -Plinekit.jniLibs="$JNILIBS"
ls -l android-bindings/build/outputs/aar/*.aar kotlin-sample/build/outputs/apk/debug/*.apk
