#!/usr/bin/env bash
# `./build.sh android`: the AAR (Gradle runs cargo-ndk for the four ABIs, NDK r28+ for 16 KB
# pages) and the sample APKs, then the 16 KB alignment check of every .so. Checks its tools
# first and says exactly what is missing (exit 1, no build started). Gradle links with the NDK
# android.ndkVersion pins (AGP installs it into the SDK when missing). Never run on the Linekit
# CI machines, which have no Android SDK/NDK: see README "Android build status".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

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
command -v python3 >/dev/null 2>&1 || missing+=("python3: runs the 16 KB alignment check")
[ -x ./gradlew ] || command -v gradle >/dev/null 2>&1 ||
  missing+=("Gradle: no ./gradlew and no gradle on PATH (./gradlew is committed; restore it from the repository)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build.sh android: cannot build the Android artifacts; missing:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  echo "(the host-JVM build and tests need none of these: ./build.sh test)" >&2
  exit 1
fi

export ANDROID_NDK_HOME="$ndk"

echo "== Rust toolchain of rust-toolchain.toml, with the four Android targets and rust-src"
if ! scripts/rust-toolchain.sh; then
  echo "build.sh android: rustup could not install the toolchain of rust-toolchain.toml with its targets and components" >&2
  exit 1
fi

# The release flags (std rebuilt for size, panics unwind, packed relocations) are applied
# by scripts/cargo-ndk.sh, which the Gradle build runs for the four ABIs.
echo "== Gradle: AAR (cargo-ndk for the four ABIs runs inside the build) and sample APKs"
if [ ! -x ./gradlew ]; then
  echo "build.sh android: ./gradlew is missing from this checkout" >&2
  exit 1
fi
./gradlew --no-daemon :android-bindings:assembleRelease :kotlin-sample:assembleRelease :kotlin-sample:assembleDebug

aar=android-bindings/android/build/outputs/aar/android-bindings-release.aar
apk=$(ls kotlin-sample/build/outputs/apk/release/*.apk | head -n 1)
echo "== 16 KB page alignment of every .so (the AAR's liblinekit.so; the APK adds JNA's libjnidispatch.so)"
python3 scripts/check_16k_alignment.py "$aar" "$apk"
ls -l "$aar" "$apk" kotlin-sample/build/outputs/apk/debug/*.apk
