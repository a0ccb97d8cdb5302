#!/usr/bin/env bash
# One entry point for Linekit: test | demo | bench | android | bindings
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: '$1' is required but not installed" >&2; exit 1; }; }

rust_tests() {
  need cargo
  echo "== cargo fmt --check"
  cargo fmt --all -- --check
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --all-features -- -D warnings
  echo "== cargo test"
  cargo test --workspace --all-features
}

cmd=${1:-}
case "$cmd" in
  test)
    rust_tests
    ;;
  *)
    echo "usage: ./build.sh test|demo|bench|android|bindings" >&2
    exit 2
    ;;
esac
