#!/usr/bin/env bash
# One entry point for Linekit: test | demo | bench | android | bindings
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: '$1' is required but not installed" >&2; exit 1; }; }

# Quiet, non-interactive Maven that works on a fresh machine with only Maven Central.
MVN_FLAGS=(-B -ntp -q)
NATIVE_DIR="$ROOT/target/debug"
GENERATED_DIR="$ROOT/android-bindings/target/generated-kotlin"

rust_tests() {
  need cargo
  echo "== cargo fmt --check"
  cargo fmt --all -- --check
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --all-features -- -D warnings
  echo "== cargo test"
  cargo test --workspace --all-features
}

# Host build of liblinekit.so (debug: unstripped, so it carries the UniFFI metadata) and
# generation of the Kotlin bindings in library mode. Generated code is never committed.
bindings() {
  need cargo
  echo "== cargo build -p linekit-android (host liblinekit.so + uniffi-bindgen)"
  cargo build -p linekit-android --features bindgen --lib --bin uniffi-bindgen
  echo "== uniffi-bindgen generate --library (Kotlin → $GENERATED_DIR)"
  rm -rf "$GENERATED_DIR"
  "$ROOT/target/debug/uniffi-bindgen" generate --library "$NATIVE_DIR/liblinekit.so" \
    --language kotlin --no-format --out-dir "$GENERATED_DIR"
}

jvm_tests() {
  need java
  need mvn
  echo "== mvn verify (Kotlin library + OkHttp/MockWebServer tests through liblinekit.so)"
  # Not -q: Surefire's "Tests run: N, Failures: 0" summary should show in CI logs.
  # install (= verify + copy to ~/.m2): the Robolectric module below depends on the jar.
  mvn -B -ntp -f android-bindings/pom.xml install -Dlinekit.native.dir="$NATIVE_DIR"
  echo "== mvn verify (Android-only Kotlin vs the android-all framework jar, Robolectric tests)"
  mvn -B -ntp -f android-bindings/android-tests/pom.xml verify -Dlinekit.native.dir="$NATIVE_DIR"
}

# Installs dev.linekit:linekit-android into the local Maven repository for the demo/bench.
install_library() {
  mvn "${MVN_FLAGS[@]}" -f android-bindings/pom.xml install -DskipTests -Dlinekit.native.dir="$NATIVE_DIR"
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

cmd=${1:-}
case "$cmd" in
  test)
    rust_tests
    bindings
    jvm_tests
    ;;
  bindings)
    bindings
    ;;
  bench)
    need java
    need mvn
    bindings
    install_library
    # Measure the optimised library (same API, so the same generated bindings).
    echo "== cargo build --release -p linekit-android"
    cargo build --release -p linekit-android --lib
    NATIVE_DIR="$ROOT/target/release"
    cp=$(module_classpath android-bindings/bench/pom.xml)
    # Arguments after `bench` go to JMH (e.g. `./build.sh bench -f 1 RouteBench`).
    shift
    if [ $# -eq 0 ]; then set -- -f 3 -wi 5 -i 5 -w 1s -r 1s; fi
    # shellcheck disable=SC2046
    java $(jvm_native_flags) -cp "$cp" org.openjdk.jmh.Main "$@"
    echo "== interleaved loopback check (hand harness)"
    # shellcheck disable=SC2046
    java $(jvm_native_flags) -cp "$cp" dev.linekit.bench.InterleavedLoopback
    ;;
  demo)
    need java
    need mvn
    bindings
    install_library
    cp=$(module_classpath kotlin-sample/pom.xml)
    # shellcheck disable=SC2046
    java $(jvm_native_flags) -cp "$cp" dev.linekit.sample.DemoKt
    ;;
  android)
    exec scripts/android-build.sh
    ;;
  *)
    echo "usage: ./build.sh test|demo|bench|android|bindings" >&2
    exit 2
    ;;
esac
