#!/usr/bin/env bash
# Runs every linekit-core fuzz target (rust-core/fuzz: one per HTTPDNS provider parser plus
# parse_config) for SECONDS each (default 60) and prints executions and crashes per target.
# Not part of ./build.sh test.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a C++ compiler (libFuzzer is built from
# source by libfuzzer-sys). This machine has only a stable toolchain: RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz pass its -Z flags (sanitizer, coverage) to stable rustc. Set FUZZ_SANITIZER=none
# to build without AddressSanitizer (e.g. where the ASan runtime is missing).
# Crash inputs land in rust-core/fuzz/artifacts/TARGET/; the exit code is 1 if any target
# crashed.
set -euo pipefail
SECS=${1:-60}
SAN=${FUZZ_SANITIZER:-address}
cd "$(dirname "$0")/../rust-core/fuzz"
command -v cargo-fuzz >/dev/null 2>&1 || { echo "fuzz.sh: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
failed=0
printf '%-14s %12s %10s %8s\n' target executions exec/s crashes
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target" "artifacts/$target"
  cp -n seeds/"$target"/* "corpus/$target/" 2>/dev/null || true
  log=$(mktemp)
  status=0
  cargo fuzz run -O -s "$SAN" "$target" "corpus/$target" -- \
    -max_total_time="$SECS" -print_final_stats=1 -max_len=70000 >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  crashes=$(find "artifacts/$target" -type f | wc -l)
  printf '%-14s %12s %10s %8s\n' "$target" "${runs:-?}" "${rate:-?}" "$crashes"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "--- $target exited with $status; last lines of its log:" >&2
    tail -30 "$log" >&2
  fi
  rm -f "$log"
done
exit "$failed"
