#!/bin/sh
# A gdl-perf reasoner whose output (its log) is SIZE bytes, then crashes, for the test
# that `propnet compare` reads only the end of a log to show it (issue #42 item 6):
#
#   huge-log.sh SIZE GAME OUTFILE SECONDS
#
# The log is made sparse (its stdout, a regular file, is extended to SIZE bytes without
# writing them), then "last words" is written at its end and the script exits 3.
set -u
size=$1
truncate -s "$size" /proc/self/fd/1 || exit 2
printf 'last words of huge-log.sh\n' |
  dd of=/proc/self/fd/1 bs=4096 seek="$size" oflag=seek_bytes conv=notrunc 2>/dev/null
exit 3
