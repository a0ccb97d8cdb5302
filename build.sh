#!/usr/bin/env bash
# One entry point for Linekit: test | cross | size | android-flags | demo | bench | android | bindings | fuzz | chaos
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: '$1' is required but not installed" >&2; exit 1; }; }

# Quiet, non-interactive Maven that works on a fresh machine with only Maven Central.
MVN_FLAGS=(-B -ntp -q)
NATIVE_DIR="$ROOT/target/debug"
KOTLIN_LIB="android-bindings/android"
GENERATED_DIR="$ROOT/$KOTLIN_LIB/target/generated-kotlin"

rust_tests() {
  need cargo
  echo "== cargo fmt --check"
  cargo fmt --all -- --check
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --all-features -- -D warnings
  echo "== cargo test"
  cargo test --workspace --all-features
}

# ---- Cross targets: Android clippy, the core's tests on ARM under qemu-user, .so sizes ----
ANDROID_TARGETS=(aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android)
ARM_TARGETS=(aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf)

# Per ARM Linux target: cross gcc (linker), binutils prefix, qemu-user binary, sysroot.
arm_gcc() { case $1 in aarch64-*) echo aarch64-linux-gnu-gcc ;; armv7-*) echo arm-linux-gnueabihf-gcc ;; esac; }
arm_prefix() { case $1 in aarch64-*) echo aarch64-linux-gnu ;; armv7-*) echo arm-linux-gnueabihf ;; esac; }
arm_qemu() { case $1 in aarch64-*) echo qemu-aarch64 ;; armv7-*) echo qemu-arm ;; esac; }
# The Cargo environment variable stem of a target: aarch64-unknown-linux-gnu -> AARCH64_UNKNOWN_LINUX_GNU
cargo_target_env() { echo "$1" | tr '[:lower:]-' '[:upper:]_'; }

# Installs the rustup targets given that are missing; exits naming them if rustup cannot.
ensure_rust_targets() {
  need rustup
  local installed missing=() t
  installed=$(rustup target list --installed)
  for t in "$@"; do grep -qxF "$t" <<<"$installed" || missing+=("$t"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== rustup target add ${missing[*]}"
  if ! rustup target add "${missing[@]}"; then
    echo "build.sh: rustup could not install the Rust target(s): ${missing[*]}" >&2
    echo "  (run 'rustup target add ${missing[*]}' on a machine that reaches the Rust dist server)" >&2
    exit 1
  fi
}

# Installs the Debian packages that own the missing files or commands, given as PATH=PACKAGE
# pairs (a PATH without a slash is a command); exits naming them if apt cannot.
ensure_apt_packages() {
  local pair path pkg missing=()
  for pair in "$@"; do
    path=${pair%%=*}
    pkg=${pair#*=}
    if [[ $path == */* ]]; then [ -e "$path" ] && continue; else command -v "$path" >/dev/null 2>&1 && continue; fi
    [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
  echo "== apt-get install ${missing[*]}"
  if ! command -v apt-get >/dev/null 2>&1 ||
    ! "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq ||
    ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}"; then
    echo "build.sh: could not install the Debian package(s): ${missing[*]}" >&2
    echo "  (needed to cross-link and run the ARM builds; install them with apt-get as root)" >&2
    exit 1
  fi
}

# Everything the cross steps of `./build.sh test` need, checked before anything is built.
ensure_cross_tools() {
  ensure_rust_targets "${ANDROID_TARGETS[@]}" "${ARM_TARGETS[@]}"
  ensure_apt_packages \
    qemu-aarch64=qemu-user qemu-arm=qemu-user \
    aarch64-linux-gnu-gcc=gcc-aarch64-linux-gnu arm-linux-gnueabihf-gcc=gcc-arm-linux-gnueabihf \
    /usr/aarch64-linux-gnu/lib/crt1.o=libc6-dev-arm64-cross \
    /usr/arm-linux-gnueabihf/lib/crt1.o=libc6-dev-armhf-cross
}

# Compiles every `cfg(target_os = "android")` path (android_logger included) for the four
# ABIs; armv7 and i686 catch 32-bit problems. No linker is needed for clippy.
android_clippy() {
  local t
  for t in "${ANDROID_TARGETS[@]}"; do
    echo "== cargo clippy -p linekit-android --lib --target $t"
    cargo clippy -p linekit-android --lib --target "$t" -- -D warnings
  done
}

# `./build.sh android` on a machine without the SDK/NDK must stop at once (under 5 s) and
# name what is missing, before anything is built.
android_preflight_check() {
  echo "== ./build.sh android without an SDK/NDK: fails fast and names what is missing"
  local out status=0 start=$SECONDS
  out=$(env -u ANDROID_HOME -u ANDROID_SDK_ROOT -u ANDROID_NDK_HOME timeout 5 scripts/android-build.sh 2>&1) || status=$?
  if [ "$status" -ne 1 ] || [[ $out != *"ANDROID_NDK_HOME"* ]] || [[ $out != *"ANDROID_HOME"* ]]; then
    echo "build.sh: scripts/android-build.sh without an NDK should exit 1 naming ANDROID_HOME and ANDROID_NDK_HOME; exit $status after $((SECONDS - start)) s:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "  ok: exit 1 after $((SECONDS - start)) s, $(grep -c '^  - ' <<<"$out") missing item(s) named"
}

# Points Cargo at the cross gcc and qemu-user for an ARM Linux target. Tests that spawn a
# target binary put LINEKIT_TEST_RUNNER in front of it (no binfmt_misc is assumed).
arm_env() {
  local t=$1 stem
  stem=$(cargo_target_env "$t")
  export "CARGO_TARGET_${stem}_LINKER=$(arm_gcc "$t")"
  export "CARGO_TARGET_${stem}_RUNNER=$(arm_qemu "$t") -L /usr/$(arm_prefix "$t")"
  export "LINEKIT_TEST_RUNNER=$(arm_qemu "$t") -L /usr/$(arm_prefix "$t")"
}

# The whole linekit-core suite, with the features CI uses, on 64- and 32-bit ARM Linux; on
# aarch64 also linekit-tools' scenario tests, which drive the core's engine through recorded
# worlds and compare what it decides with the committed expectations (the engine must decide
# the same on the phones' 64-bit ABI as on a developer's machine). The CLI's own tests
# (arguments, files, child processes: `cli_*`) run on the host only: the CLI is a host tool,
# and under qemu they cost CI minutes and prove nothing about the shipped library. Both
# packages go in one cargo call, so the core is built once, with one feature set.
# Prints "TARGET: N passed, M failed" per target (the sum of cargo's test results).
arm_tests() {
  local t log status counts packages
  for t in "${ARM_TARGETS[@]}"; do
    packages=(-p linekit-core)
    [[ $t == aarch64-* ]] && packages+=(-p linekit-tools)
    echo "== cargo test ${packages[*]} --all-features --target $t -- --skip cli_ (qemu-user)"
    log=$(mktemp)
    status=0
    (arm_env "$t" && cargo test "${packages[@]}" --all-features --target "$t" -- --skip cli_) 2>&1 | tee "$log" || status=$?
    counts=$(awk '/^test result:/ { p += $4; f += $6 } END { printf "%d passed, %d failed", p, f }' "$log")
    rm -f "$log"
    echo "$t: $counts"
    if [ "$status" -ne 0 ]; then
      echo "build.sh: the ARM tests failed on $t (exit $status)" >&2
      exit 1
    fi
  done
}

# `./build.sh size`: the stripped liblinekit.so per ABI, built with the flags of the Android
# release (scripts/release-flags.sh) for 64- and 32-bit ARM Linux and the host, which stand in
# for the NDK link: linked by lld with the release's 16 KB pages like every Android ABI. Each
# target is built twice: with the release set (the shipped library) and with the stable set
# alone (LINEKIT_STABLE_FLAGS=1), and both libraries go through the 16 KB page check
# (scripts/check_16k_alignment.py); LINEKIT_SIZE_SETS names the sets to build (`test` builds
# the release set alone, the one that ships). The release build also runs examples/ffi_panic
# (under qemu-user on ARM) to prove that the release flags still catch a panic at the FFI
# boundary. Prints one JSON object {"TARGET": {"release": bytes, "stable": bytes}, ...} on
# stdout (everything else goes to stderr) and fails if a release .so is at or over
# SIZE_LIMIT, the budget (BENCHMARKS.md "Size" has every ABI's figure and the 800 KB aim).
SIZE_LIMIT=1000000

size_targets() { echo "${ARM_TARGETS[@]}" "$(rustc -vV | sed -n 's/^host: //p')"; }

# Extra link flags for the stand-in of the NDK link on Linux target $1 (the 16 KB page flags
# come with the release flags): lld (the toolchain's own, through gcc's -fuse-ld), as the
# NDK links, and packed relative relocations: RELR, the format glibc loads, where the
# Android release packs them in Android's own format (scripts/cargo-ndk.sh).
# On x86_64 the stand-in also compiles for the instruction set the x86_64-linux-android
# target assumes (SSE4.2 and POPCNT; the Linux target assumes only SSE2).
size_link_flags() {
  local gcc_ld isa=""
  gcc_ld="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/gcc-ld"
  case $1 in
    x86_64-*) isa=" -C target-feature=+sse3,+ssse3,+sse4.1,+sse4.2,+popcnt" ;;
  esac
  echo "-C link-arg=-fuse-ld=lld -C link-arg=-B$gcc_ld -C link-arg=-Wl,-z,pack-relative-relocs$isa"
}

# Fails unless the library $1 (read with the nm tool $2) exports every UniFFI function the
# generated Kotlin binds: JNA registers all of them when the bindings load, so one dropped
# by a release flag (scripts/release-discard.ld) would fail the app at start-up.
so_check_exports() {
  local missing
  missing=$(comm -23 \
    <(grep -rhoE 'external fun `?(uniffi|ffi)_[A-Za-z0-9_]+' "$GENERATED_DIR" | sed -E 's/.*fun `?//' | sort -u) \
    <("$2" -D --defined-only "$1" | awk '{print $3}' | sort -u))
  if [ -n "$missing" ]; then
    echo "build.sh size: $(basename "$1") does not export functions the Kotlin bindings bind:" $missing >&2
    exit 1
  fi
  # UniFFI's async scaffolding is left out of the release library (release-hide-async.ver)
  # and of the bindings (kotlin-vocabulary): one still exported means the version script
  # no longer names every one UniFFI generates.
  local async
  async=$("$2" -D --defined-only "$1" | awk '$3 ~ /_rust_future_/ {print $3}')
  if [ -n "$async" ]; then
    echo "build.sh size: $(basename "$1") still exports UniFFI's async scaffolding:" $async >&2
    exit 1
  fi
}

so_sizes() {
  need cargo
  need rustc
  need python3
  # shellcheck source=scripts/release-flags.sh
  source scripts/release-flags.sh
  local host t stem strip_tool nm_tool run so out set json="" sep="" entry tdir=${CARGO_TARGET_DIR:-target}
  host=$(rustc -vV | sed -n 's/^host: //p')
  ensure_rust_targets "${ARM_TARGETS[@]}" >&2
  linekit_use_flags release
  linekit_prepare_release_build
  ensure_apt_packages \
    qemu-aarch64=qemu-user qemu-arm=qemu-user \
    aarch64-linux-gnu-gcc=gcc-aarch64-linux-gnu arm-linux-gnueabihf-gcc=gcc-arm-linux-gnueabihf \
    aarch64-linux-gnu-strip=binutils-aarch64-linux-gnu arm-linux-gnueabihf-strip=binutils-arm-linux-gnueabihf \
    /usr/aarch64-linux-gnu/lib/crt1.o=libc6-dev-arm64-cross \
    /usr/arm-linux-gnueabihf/lib/crt1.o=libc6-dev-armhf-cross >&2
  need strip
  need nm
  # The generated Kotlin says which functions the bindings bind (see so_check_exports).
  [ -d "$GENERATED_DIR/dev/linekit/ffi" ] || bindings >&2
  out=$(mktemp -d)
  local sets=${LINEKIT_SIZE_SETS:-release stable}
  for t in $(size_targets); do
    stem=$(cargo_target_env "$t")
    if [ "$t" = "$host" ]; then
      strip_tool=strip
      nm_tool=nm
      run=()
    else
      export "CARGO_TARGET_${stem}_LINKER=$(arm_gcc "$t")"
      strip_tool="$(arm_prefix "$t")-strip"
      nm_tool="$(arm_prefix "$t")-nm"
      run=("$(arm_qemu "$t")" -L "/usr/$(arm_prefix "$t")")
    fi
    LINEKIT_LINK_RUSTFLAGS=$(size_link_flags "$t")
    entry=""
    for set in $sets; do
      linekit_use_flags "$set"
      LINEKIT_TARGET_RUSTFLAGS=$(linekit_target_rustflags "$t")
      echo "== $set-flags liblinekit.so for $t" >&2
      linekit_release_cargo cargo build --target "$t" "${LINEKIT_RELEASE_CARGO_ARGS[@]}" >&2
      so="$tdir/$t/release/liblinekit.so"
      cp "$so" "$out/$t.$set.so"
      "$strip_tool" "$out/$t.$set.so"
      so_check_exports "$out/$t.$set.so" "$nm_tool"
      python3 scripts/check_16k_alignment.py "$out/$t.$set.so" >&2
      if [ "$set" = release ]; then
        echo "== examples/ffi_panic with the release flags on $t" >&2
        linekit_release_cargo cargo build --target "$t" "${LINEKIT_RELEASE_CARGO_ARGS[@]/--lib/--example=ffi_panic}" >&2
        if ! "${run[@]}" "$tdir/$t/release/examples/ffi_panic" >&2; then
          echo "build.sh size: the release build for $t does not catch a panic at the FFI boundary" >&2
          exit 1
        fi
      fi
      entry="$entry${entry:+,}\"$set\":$(stat -c %s "$out/$t.$set.so")"
    done
    json="$json$sep\"$t\":{$entry}"
    sep=","
  done
  echo "{$json}"
  local over
  over=$(find "$out" -name '*.release.so' -size +$((SIZE_LIMIT - 1))c -printf '%f ')
  rm -rf "$out"
  if [ -n "$over" ]; then
    echo "build.sh size: at or over $SIZE_LIMIT bytes stripped: $over" >&2
    exit 1
  fi
}

# The release flags given to rustc for Android itself, which no NDK-less machine can link:
# a `staticlib` of linekit-android (std rebuilt, the release profile, the exact release
# rustc flags; no linker runs) for 64- and 32-bit ARM Android. A flag rustc or LLVM rejects
# for an Android target fails here, not in a user's first Gradle build.
ANDROID_FLAG_TARGETS=(aarch64-linux-android armv7-linux-androideabi)
android_flag_check() {
  # shellcheck source=scripts/release-flags.sh
  source scripts/release-flags.sh
  linekit_use_flags release
  linekit_prepare_release_build
  local t lib tdir=${CARGO_TARGET_DIR:-target}
  for t in "${ANDROID_FLAG_TARGETS[@]}"; do
    echo "== staticlib with the release flags for $t (no NDK: rustc and LLVM only)"
    LINEKIT_TARGET_RUSTFLAGS=$(linekit_target_rustflags "$t")
    if ! linekit_release_cargo cargo rustc --target "$t" "${LINEKIT_RELEASE_CARGO_ARGS[@]}" --crate-type staticlib; then
      echo "build.sh: rustc rejected the release flags (scripts/release-flags.sh) for $t" >&2
      exit 1
    fi
    lib="$tdir/$t/release/liblinekit.a"
    [ -s "$lib" ] || { echo "build.sh: no $lib after the release-flag build" >&2; exit 1; }
    echo "  ok: $lib ($(stat -c %s "$lib") bytes)"
  done
}

# Static tests of the build itself (scripts/tests: 16 KB check, release flags, cargo-ndk,
# versions, the Gradle consumer, the workflows) and the version drift check. Seconds.
static_checks() {
  need python3
  # The workflow tests read YAML.
  python3 -c 'import yaml' 2>/dev/null || ensure_apt_packages /usr/lib/python3/dist-packages/yaml/__init__.py=python3-yaml
  echo "== scripts/tests (python unittest)"
  python3 -B -m unittest discover -s scripts/tests -p 'test_*.py'
  echo "== scripts/check_versions.py (gradle/libs.versions.toml against the poms)"
  python3 scripts/check_versions.py
}

# actionlint (with shellcheck) on both workflows (the Android build and the release),
# installed with `go install` at a pinned version into target/tools when missing.
ACTIONLINT_VERSION=v1.7.12
workflow_lint() {
  local tools="$ROOT/target/tools" bin
  bin="$tools/actionlint-$ACTIONLINT_VERSION"
  if [ ! -x "$bin" ]; then
    need go
    echo "== go install github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
    mkdir -p "$tools"
    GOBIN="$tools" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
    mv "$tools/actionlint" "$bin"
  fi
  # actionlint runs shellcheck on every `run:` script when it is installed.
  ensure_apt_packages shellcheck=shellcheck
  echo "== actionlint .github/workflows/android.yml .github/workflows/release.yml"
  "$bin" -no-color -pyflakes= .github/workflows/android.yml .github/workflows/release.yml
  echo "  ok: actionlint $ACTIONLINT_VERSION reports nothing"
}

# The what-if HTML report rendered by headless Chromium (installed when missing).
html_report_test() {
  scripts/html-report-test.sh
}

# The fleet SQL (tools/sql) on DuckDB, pinned and installed from PyPI into a venv under target/.
DUCKDB_VERSION=2.0.1
fleet_sql_test() {
  need python3
  local venv="$ROOT/target/tools/duckdb-$DUCKDB_VERSION"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
    echo "== pip install duckdb==$DUCKDB_VERSION (into target/tools)"
    python3 -m venv "$venv" || { echo "build.sh: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    "$venv/bin/pip" install -q --disable-pip-version-check "duckdb==$DUCKDB_VERSION"
  fi
  echo "== fleet SQL views on DuckDB (tools/sql/test_views.py)"
  "$venv/bin/python" tools/sql/test_views.py
}

# Host build of liblinekit.so (debug: unstripped, so it carries the UniFFI metadata) and
# generation of the Kotlin bindings in library mode. Generated code is never committed.
bindings() {
  need cargo
  echo "== cargo build -p linekit-android (host liblinekit.so + uniffi-bindgen)"
  cargo build -p linekit-android --features bindgen,jni-test-hooks --lib --bin uniffi-bindgen --bin kotlin-vocabulary
  echo "== uniffi-bindgen generate --library (Kotlin → $GENERATED_DIR)"
  rm -rf "$GENERATED_DIR"
  # The host's own library name: liblinekit.so on Linux, liblinekit.dylib on macOS.
  local lib=liblinekit.so
  [ "$(uname -s)" = Darwin ] && lib=liblinekit.dylib
  "$ROOT/target/debug/uniffi-bindgen" generate --library "$NATIVE_DIR/$lib" \
    --language kotlin --no-format --out-dir "$GENERATED_DIR"
  echo "== kotlin-vocabulary (the core's wire enums as Kotlin enums → $GENERATED_DIR)"
  "$ROOT/target/debug/kotlin-vocabulary" "$GENERATED_DIR"
}

jvm_tests() {
  need java
  need mvn
  echo "== mvn verify (Kotlin library + OkHttp/MockWebServer tests through liblinekit.so)"
  # Not -q: Surefire's "Tests run: N, Failures: 0" summary should show in CI logs.
  # install (= verify + copy to ~/.m2): the Robolectric module below depends on the jar.
  mvn -B -ntp -f "$KOTLIN_LIB/pom.xml" install -Dlinekit.native.dir="$NATIVE_DIR"
  echo "== mvn verify (Android-only Kotlin vs the android-all framework jar, Robolectric tests)"
  mvn -B -ntp -f "$KOTLIN_LIB/robolectric/pom.xml" verify -Dlinekit.native.dir="$NATIVE_DIR"
}

# Installs dev.linekit:linekit-jvm into the local Maven repository for the demo/bench.
install_library() {
  mvn "${MVN_FLAGS[@]}" -f "$KOTLIN_LIB/pom.xml" install -DskipTests -Dlinekit.native.dir="$NATIVE_DIR"
}

# Prints the runtime classpath of a Maven module (built first).
module_classpath() {
  local pom=$1 out
  out=$(mktemp)
  mvn "${MVN_FLAGS[@]}" -f "$pom" package dependency:build-classpath -Dmdep.outputFile="$out" >&2
  echo "$(dirname "$pom")/target/classes:$(cat "$out")"
  rm -f "$out"
}

jvm_native_flags() {
  echo "-Djna.library.path=$NATIVE_DIR -Djava.library.path=$NATIVE_DIR"
}

# `./build.sh bench [JMH args]`: every benchmark of BENCHMARKS.md, raw outputs in
# bench/results/raw/, summary in bench/results/latest.{json,md}. Takes ~15 minutes.
bench_all() {
  local raw="$ROOT/bench/results/raw"
  rm -rf "$raw"
  mkdir -p "$raw"
  bindings
  echo "== footprint: stripped liblinekit.so (release, host), with and without doh-wire"
  local so_tmp
  so_tmp=$(mktemp -d)
  cargo build --release -p linekit-android --lib --features doh-wire
  cp target/release/liblinekit.so "$so_tmp/doh.so"
  # Measure the optimised library (same API, so the same generated bindings); doh-wire is
  # in the default build, so "without" is --no-default-features.
  cargo build --release -p linekit-android --lib --no-default-features
  cp target/release/liblinekit.so "$so_tmp/default.so"
  strip "$so_tmp/doh.so" "$so_tmp/default.so"
  local s_default s_doh
  s_default=$(stat -c %s "$so_tmp/default.so")
  s_doh=$(stat -c %s "$so_tmp/doh.so")
  echo "{\"target\":\"$(rustc -vV | sed -n 's/^host: //p')\",\"default_bytes\":$s_default,\"doh_wire_bytes\":$s_doh,\"doh_wire_added_bytes\":$((s_doh - s_default))}" | tee "$raw/so_size.json"
  rm -rf "$so_tmp"
  NATIVE_DIR="$ROOT/target/release"

  echo "== Rust: fleet simulation, lookup tail latency, footprint"
  cargo bench -p linekit-core --bench fleet 2>/dev/null | tee "$raw/fleet.json"
  cargo bench -p linekit-core --bench tail 2>/dev/null | tee "$raw/tail.json"
  cargo bench -p linekit-core --bench footprint 2>/dev/null | tee "$raw/footprint.json"

  # The local Maven repository may be shared with other checkouts: install right before
  # resolving, and put this checkout's compiled library first on the classpath.
  install_library
  local cp
  cp="$ROOT/$KOTLIN_LIB/target/classes:$(module_classpath bench/jvm/pom.xml)"
  # LineKitDns ships with the Kotlin Dns work; measure its lookup only when it is there.
  local benches="HotPathBench|InterceptorOverheadBench"
  if [ -f "$ROOT/$KOTLIN_LIB/target/classes/dev/linekit/LineKitDns.class" ]; then
    benches="$benches|LineKitDnsBench"
  else
    echo "build.sh bench: dev.linekit.LineKitDns is not in the library: the JVM lookup is not measured" >&2
  fi
  if [ $# -eq 0 ]; then set -- -f 3 -wi 5 -i 5 -w 1s -r 1s "$benches"; fi
  echo "== JMH $*"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" org.openjdk.jmh.Main -rf json -rff "$raw/jmh.json" "$@"
  echo "== per-request overhead (loopback, 1 and 8 callers, interleaved)"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.RequestOverhead "$raw/request_overhead.json"
  echo "== outage scenarios (~1 minute)"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.OutageScenarios "$raw/outage.json"
  echo "== warm connections: the first 5 requests after a switch over HTTPS, warming on and off"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.WarmConnections "$raw/warm_connections.json"
  echo "== JVM start-up (fresh JVM)"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.StartupTime "$raw/startup_jvm.json"
  echo "== JVM start-up, step by step (5 fresh JVMs)"
  local run
  for run in 1 2 3 4 5; do
    # shellcheck disable=SC2046
    java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.StartupBreakdown "$raw/startup_breakdown_$run.json"
  done
  echo "== summary"
  python3 scripts/bench-report.py "$raw" "$ROOT/bench/results"
}

# Runs step $1 (a function of this file) and appends "name wall/cpu" to STEP_TIMES: CI has
# a time budget, and the summary at the end of `test` shows where it goes.
STEP_TIMES=""
timed() {
  local start=$SECONDS
  children_cpu_s
  local cpu_before=$CHILDREN_CPU_S
  "$1"
  children_cpu_s
  STEP_TIMES="$STEP_TIMES $1=$((SECONDS - start))/$((CHILDREN_CPU_S - cpu_before))"
}
# Sets CHILDREN_CPU_S to the user + system CPU seconds of this shell's finished children
# (bash `times`, second line). It must run in this shell: a subshell (`$(...)`, a pipe) has
# no children of its own.
children_cpu_s() {
  local f
  f=$(mktemp)
  times >"$f"
  CHILDREN_CPU_S=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$f")
  rm -f "$f"
}

cmd=${1:-}
case "$cmd" in
  test)
    need cargo
    ensure_cross_tools
    android_preflight_check
    for step in static_checks workflow_lint rust_tests android_clippy arm_tests android_flag_check \
      html_report_test fleet_sql_test bindings jvm_tests; do
      timed "$step"
    done
    echo "== ./build.sh size, release set (the shipped liblinekit.so per ABI, under $SIZE_LIMIT bytes stripped)"
    LINEKIT_SIZE_SETS=release timed so_sizes
    echo "== step times (wall s, CPU s of its processes): $STEP_TIMES"
    ;;
  bindings)
    bindings
    ;;
  cross)
    # The cross steps of `test` alone: Android-target clippy, the core's tests on ARM and
    # the release flags given to rustc for Android.
    need cargo
    ensure_cross_tools
    android_preflight_check
    android_clippy
    arm_tests
    android_flag_check
    ;;
  android-flags)
    # The release flags given to rustc for aarch64 and armv7 Android (a staticlib each).
    need cargo
    ensure_rust_targets "${ANDROID_FLAG_TARGETS[@]}"
    android_flag_check
    ;;
  bench)
    need java
    need mvn
    need python3
    bench_all "${@:2}"
    ;;
  demo)
    need java
    need mvn
    bindings
    echo "== cargo build linekit (the CLI that draws the demo's trace)"
    cargo build -q -p linekit-tools --bin linekit
    install_library
    cp=$(module_classpath kotlin-sample/pom.xml)
    # shellcheck disable=SC2046
    java $(jvm_native_flags) -Dlinekit.cli=target/debug/linekit -Dlinekit.demo.out=target/demo \
      -cp "$cp" dev.linekit.sample.DemoKt
    echo "== the demo's trace as a timeline (what-if: failure_threshold 1)"
    target/debug/linekit replay --from-trace target/demo/trace.jsonl \
      --config target/demo/policy-threshold1.json --compare --html target/demo/report.html | tail -n 1
    echo "Open $ROOT/target/demo/report.html"
    ;;
  size)
    so_sizes
    ;;
  android)
    exec scripts/android-build.sh
    ;;
  fuzz)
    # Every cargo-fuzz target for SECONDS each (default 60); see scripts/fuzz.sh.
    exec scripts/fuzz.sh "${@:2}"
    ;;
  chaos)
    # Linekit vs plain OkHttp under real faults in network namespaces; see scripts/chaos.sh.
    # Then a check that a run, finished or interrupted, leaves no process or namespace behind.
    scripts/chaos.sh "${@:2}"
    scripts/chaos-cleanup-test.sh
    ;;
  *)
    echo "usage: ./build.sh test|cross|size|android-flags|demo|bench|android|bindings|fuzz [SECONDS]|chaos" >&2
    exit 2
    ;;
esac
