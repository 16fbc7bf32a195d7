#!/bin/sh
# gdl-perf performance adapter for the SWI-Prolog oracle (shared/oracle/gdl-trace), so
# `propnet compare` can put it beside our reasoners:
#
#   prolog-oracle.sh GAME OUTFILE SECONDS
#
# Runs random playouts from the initial state for SECONDS (after loading the game) and
# writes gdl-perf's key=value result to OUTFILE: version, millisecondsTaken (the oracle's
# own playout time, load excluded), numStateChanges (joint moves), numRollouts (playouts
# that reached a terminal state). A playout still running at the time limit is dropped by
# the oracle and not counted. The oracle computes and prints every position's legal moves
# and goals (it is a trace writer), so this measures a correctness tool, not a tuned player.
#
# The oracle is found at $PROPNET_ORACLE, else ../shared/oracle/gdl-trace beside the checkout.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 GAME OUTFILE SECONDS" >&2
  exit 2
fi
game=$1 out=$2 secs=$3
here=$(cd "$(dirname "$0")" && pwd)
oracle=${PROPNET_ORACLE:-$here/../../../shared/oracle/gdl-trace}
version="swi-prolog oracle ($(swipl --version 2>/dev/null | head -n 1))"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
  printf 'version=%s\nerrorMessage=%s\n' "$version" "$1" > "$out"
  exit 0
}
[ -x "$oracle" ] || fail "oracle not found at $oracle (set PROPNET_ORACLE)"
command -v swipl >/dev/null || fail "swipl not installed (apt-get install swi-prolog-nox)"
# A run normally takes SECONDS plus ~0.1 s of loading, but under load it has twice
# hung with no output for 10 and 30 s (in the oracle's call_with_time_limit, which
# guards each playout): each try is killed SECONDS + 8 s in and retried, three tries.
limit=$(awk -v s="$secs" 'BEGIN { printf "%.1f", s + 8 }')
try=1
while :; do
  timeout -k 1 "$limit" "$oracle" "$game" --playouts 1000000000 --seed 1 \
    --time-limit "$secs" > "$tmp/trace" 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || break
  [ "$try" -lt 3 ] || fail "gdl-trace hung $try times (each killed after $limit s)"
  echo "prolog-oracle.sh: gdl-trace hung (killed after $limit s); try $((try + 1))" >&2
  try=$((try + 1))
done
[ "$rc" -eq 0 ] || fail "gdl-trace failed: $(tail -c 300 "$tmp/err" | tr '\n' ' ')"
# Last stderr line: "# GAME: DONE of N playouts in SECONDS s"
took=$(sed -n 's/.* playouts in \([0-9.]*\) s$/\1/p' "$tmp/err" | tail -n 1)
[ -n "$took" ] || fail "no timing line from gdl-trace: $(tail -c 200 "$tmp/err" | tr '\n' ' ')"
states=$(grep -c '"joint"' "$tmp/trace")
rollouts=$(grep -c '"terminal":true' "$tmp/trace")
ms=$(awk -v s="$took" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
[ "$ms" -gt 0 ] || ms=1
printf 'version=%s\nmillisecondsTaken=%s\nnumStateChanges=%s\nnumRollouts=%s\n' \
  "$version" "$ms" "$states" "$rollouts" > "$out"
