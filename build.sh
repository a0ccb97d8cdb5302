#!/usr/bin/env bash
# One entry point for Linekit: test | demo | bench | android | bindings | fuzz | chaos
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

# The what-if HTML report rendered by headless Chromium (installed when missing).
html_report_test() {
  scripts/html-report-test.sh
}

# Host build of liblinekit.so (debug: unstripped, so it carries the UniFFI metadata) and
# generation of the Kotlin bindings in library mode. Generated code is never committed.
bindings() {
  need cargo
  echo "== cargo build -p linekit-android (host liblinekit.so + uniffi-bindgen)"
  cargo build -p linekit-android --features bindgen --lib --bin uniffi-bindgen --bin kotlin-vocabulary
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

# Installs dev.linekit:linekit-android into the local Maven repository for the demo/bench.
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
  echo "== JVM start-up (fresh JVM)"
  # shellcheck disable=SC2046
  java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.StartupTime "$raw/startup_jvm.json"
  echo "== summary"
  python3 scripts/bench-report.py "$raw" "$ROOT/bench/results"
}

cmd=${1:-}
case "$cmd" in
  test)
    rust_tests
    html_report_test
    bindings
    jvm_tests
    ;;
  bindings)
    bindings
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
    cargo build -q -p linekit-core --features cli --bin linekit
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
  android)
    exec scripts/android-build.sh
    ;;
  fuzz)
    # Every cargo-fuzz target for SECONDS each (default 60); see scripts/fuzz.sh.
    exec scripts/fuzz.sh "${@:2}"
    ;;
  chaos)
    # Linekit vs plain OkHttp under real faults in network namespaces; see scripts/chaos.sh.
    exec scripts/chaos.sh "${@:2}"
    ;;
  *)
    echo "usage: ./build.sh test|demo|bench|android|bindings|fuzz [SECONDS]|chaos" >&2
    exit 2
    ;;
esac
