#!/usr/bin/env bash
# The chaos suite leaves nothing behind: after scripts/chaos.sh exits — on its own, on TERM
# (what a CI timeout sends) or on Ctrl-C (INT to its whole process group) — no namespace of
# the suite exists, no process is left in the namespaces it made (matched by inode, as a
# namespace outlives its name while a process holds it), no server it recorded is alive
# and no process runs from its run directory. Run by `./build.sh chaos` after the suite;
# uses scripts/chaos.sh --servers-only / --hold (namespaces and every server, no JVM).
# Where network namespaces cannot be created it says so and exits 0, as the suite does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/chaos-paths.sh
. "$ROOT/scripts/chaos-paths.sh"
LOG="$WORK/cleanup-test.log"
mkdir -p "$WORK"

say() { echo "chaos-cleanup: $*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

# What a run left behind, one item a line (empty: nothing).
leftovers() { # server pids recorded by the run
  local ns ino p pid
  for ns in "$NS_CLI" "$NS_SRV"; do
    [ -e "/run/netns/$ns" ] && echo "namespace $ns"
  done
  if [ -f "$WORK/netns-inodes" ]; then
    while read -r ino; do
      for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/net" 2>/dev/null)" = "net:[$ino]" ] && echo "process ${p#/proc/} in net:[$ino]"
      done
    done <"$WORK/netns-inodes"
  fi
  for pid in "$@"; do
    # A zombie has exited; anything else with that pid is still running.
    if [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
      echo "recorded server pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"
    fi
  done
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = $$ ] && continue
    if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -e "$RUN/" -e "$BIN/toxiproxy-server"; then
      echo "process ${p#/proc/} running from the run directory: $(tr '\0' ' ' 2>/dev/null <"$p/cmdline" | cut -c1-120)"
    fi
  done
}

check_clean() { # what, pids...
  local what=$1 left
  shift
  left=$(leftovers "$@")
  [ -z "$left" ] || fail "$what left behind:"$'\n'"$left"
  say "ok: $what left no namespace and no process ($# pids recorded, all gone)"
}

recorded_pids() { cat "$RUN"/pids/* 2>/dev/null | tr '\n' ' '; }

# Waits (bounded) until the held run has started every server.
wait_holding() { # pid
  local _
  for _ in $(seq 1 600); do
    grep -q "holding until a signal" "$LOG" 2>/dev/null && return 0
    kill -0 "$1" 2>/dev/null || { cat "$LOG" >&2; fail "scripts/chaos.sh --hold exited early"; }
    sleep 0.2
  done
  fail "scripts/chaos.sh --hold did not start its servers in 120 s"
}

# 1. A run that ends on its own.
status=0
scripts/chaos.sh --servers-only >"$LOG" 2>&1 || status=$?
if grep -q "SKIPPED" "$LOG"; then
  grep SKIPPED "$LOG"
  say "0 checks run (no network namespaces here)"
  exit 0
fi
[ "$status" -eq 0 ] || { cat "$LOG" >&2; fail "scripts/chaos.sh --servers-only exited $status"; }
grep -q "servers up" "$LOG" || fail "no server started"
# shellcheck disable=SC2046
check_clean "a run that finished" $(recorded_pids)

# 2. TERM to the script while its servers run.
scripts/chaos.sh --hold >"$LOG" 2>&1 &
pid=$!
wait_holding "$pid"
pids=$(recorded_pids)
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 143 ] || { cat "$LOG" >&2; fail "a run stopped by TERM exited $status, not 143"; }
# shellcheck disable=SC2086
check_clean "a run stopped by TERM" $pids

# 3. Ctrl-C: INT to the run's whole process group (servers included), as a terminal sends it.
set -m
scripts/chaos.sh --hold >"$LOG" 2>&1 &
pid=$!
set +m
wait_holding "$pid"
pids=$(recorded_pids)
kill -INT -- "-$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 130 ] || { cat "$LOG" >&2; fail "a run stopped by Ctrl-C exited $status, not 130"; }
# shellcheck disable=SC2086
check_clean "a run stopped by Ctrl-C" $pids

say "3 passed, 0 failed"
