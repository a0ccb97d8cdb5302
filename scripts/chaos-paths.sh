# shellcheck shell=bash disable=SC2034
# The chaos suite's places, shared by scripts/chaos.sh and scripts/chaos-cleanup-test.sh so
# that the cleanup test looks exactly where the suite works. Sourced, never run; the caller
# has set ROOT to the checkout.
WORK="$ROOT/target/chaos"
BIN="$WORK/bin"
RUN="$WORK/run"
NS_CLI=lkc-cli
NS_SRV=lkc-srv
