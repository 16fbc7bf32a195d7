#!/bin/sh
# Deliberately broken gdl-perf reasoners for the tests of `propnet compare`:
#
#   broken.sh MODE GAME OUTFILE SECONDS
#
# MODE crash: exits 139 after printing to stderr; hang: never ends; garbage: writes a
# result file that is not key=value lines; error: reports errorMessage=.
mode=$1 out=$3
case "$mode" in
  crash) echo "broken.sh: simulated segmentation fault" >&2; exit 139 ;;
  hang) exec sleep 3600 ;;
  garbage) printf 'numRollouts: lots\nthis is not a result file\n' > "$out" ;;
  error) printf 'version=broken 1\nerrorMessage=simulated out of memory\n' > "$out" ;;
  *) echo "broken.sh: unknown mode $mode" >&2; exit 2 ;;
esac
