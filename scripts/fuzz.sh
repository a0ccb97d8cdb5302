#!/usr/bin/env bash
# `./build.sh fuzz [SECONDS]`: runs every cargo-fuzz target of rust-core/fuzz for SECONDS
# each (default 60), one after the other, and prints executions, exec/s and crashes.
#
#   FUZZ_RUNS=N        stop each target after N executions instead of after SECONDS
#                      (the depth runs recorded in BENCHMARKS.md use FUZZ_RUNS=10000000)
#   FUZZ_TARGETS="a b" only these targets
#   FUZZ_SANITIZER=    address (default) or none (2-3x faster; the core is safe Rust, so
#                      the depth runs use none)
#   FUZZ_NICE=N        run the fuzzer under `nice -n N` (default 0)
#
# Toolchain: cargo-fuzz needs nightly-only rustc flags (-Zsanitizer, coverage passes).
# Instead of a nightly toolchain (not installable from the registries this project may
# use), this sets RUSTC_BOOTSTRAP=1 so the pinned stable rustc accepts them. cargo-fuzz
# itself is installed from crates.io on first use; libFuzzer is built from source by
# libfuzzer-sys (needs a C++ compiler).
#
# The working corpus grows in rust-core/fuzz/corpus/TARGET/ (not committed), starting from
# the committed seeds/TARGET/, which `cargo test` replays as regression tests
# (rust-core/fuzz-targets/tests/corpus.rs). Crash inputs land in
# rust-core/fuzz/artifacts/TARGET/: copy each into seeds/TARGET/ with the fix. Exit code 1
# if any target crashed.
set -euo pipefail
SECS=${1:-60}
SAN=${FUZZ_SANITIZER:-address}
NICE=${FUZZ_NICE:-0}
cd "$(dirname "$0")/../rust-core/fuzz"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "== installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked
fi
command -v c++ >/dev/null 2>&1 || { echo "fuzz.sh: a C++ compiler (c++) is required to build libFuzzer" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
if [ -n "${FUZZ_RUNS:-}" ]; then
  limit=(-runs="$FUZZ_RUNS")
else
  limit=(-max_total_time="$SECS")
fi
targets=${FUZZ_TARGETS:-$(cargo fuzz list)}
failed=0
printf '%-16s %12s %10s %8s %8s\n' target executions exec/s seconds crashes
for target in $targets; do
  mkdir -p "corpus/$target" "artifacts/$target"
  cp -n seeds/"$target"/* "corpus/$target/" 2>/dev/null || true
  cargo fuzz build -O -s "$SAN" "$target" >/dev/null 2>&1 || cargo fuzz build -O -s "$SAN" "$target"
  log=$(mktemp)
  status=0
  start=$(date +%s)
  nice -n "$NICE" cargo fuzz run -O -s "$SAN" "$target" "corpus/$target" -- \
    "${limit[@]}" -print_final_stats=1 -max_len=70000 -timeout=10 >"$log" 2>&1 || status=$?
  took=$(( $(date +%s) - start ))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  crashes=$(find "artifacts/$target" -type f | wc -l)
  printf '%-16s %12s %10s %8s %8s\n' "$target" "${runs:-?}" "${rate:-?}" "$took" "$crashes"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "--- $target exited with $status; last lines of its log:" >&2
    tail -30 "$log" >&2
  fi
  rm -f "$log"
done
exit "$failed"
