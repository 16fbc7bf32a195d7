#!/bin/sh
# Deliberately broken gdl-perf reasoners for the tests of `propnet compare`:
#
#   broken.sh MODE GAME OUTFILE SECONDS
#
# MODE crash: exits 139 after printing to stderr; hang: never ends; garbage: writes a
# result file that is not key=value lines; error: reports errorMessage=; lie (as a trace
# command, `broken.sh lie GAME OUTFILE STATE_CHANGES`): writes a gdl-perf trace of the
# bench tic-tac-toe (roles x, o) whose initial state is claimed terminal.
mode=$1 out=$3
case "$mode" in
  crash) echo "broken.sh: simulated segmentation fault" >&2; exit 139 ;;
  hang) exec sleep 3600 ;;
  garbage) printf 'numRollouts: lots\nthis is not a result file\n' > "$out" ;;
  error) printf 'version=broken 1\nerrorMessage=simulated out of memory\n' > "$out" ;;
  lie) printf '!R!x,o\n!T!true\n!G!50,50\n!F!\n' > "$out" ;;
  *) echo "broken.sh: unknown mode $mode" >&2; exit 2 ;;
esac
