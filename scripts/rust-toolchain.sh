#!/usr/bin/env bash
# Installs the Rust toolchain of rust-toolchain.toml with every target and component the file
# lists (the workflows run this). `rustup toolchain install` reads the file; rustup installs
# the listed targets and components with a toolchain it installs, but does not add them to one
# it already has, so they are added explicitly (a no-op when present).
set -euo pipefail
cd "$(dirname "$0")/.."

# The quoted items of the array KEY of rust-toolchain.toml, one per line.
toolchain_list() {
  awk -v key="$1" '$0 ~ "^" key " *=" { on = 1 } on { print } on && /\]/ { exit }' rust-toolchain.toml |
    grep -o '"[^"]*"' | tr -d '"'
}

rustup toolchain install
# shellcheck disable=SC2046
rustup target add $(toolchain_list targets)
# shellcheck disable=SC2046
rustup component add $(toolchain_list components)
rustc --version
