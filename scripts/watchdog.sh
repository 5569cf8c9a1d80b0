#!/usr/bin/env bash
# Runs a command and turns a hang into a failure with evidence: when the command prints nothing
# for SILENCE seconds (the test runner prints a line as each test starts and ends; the slowest
# test takes about a minute), every thread of its processes is dumped with gdb (when installed)
# and the command is killed: exit 124. Otherwise the command's own exit status.
#
#   scripts/watchdog.sh SILENCE LOG -- COMMAND [ARG...]
# The command's output goes to stdout and to LOG.
set -uo pipefail
silence=$1 log=$2
shift 2
[ "${1:-}" = "--" ] && shift
: >"$log"
setsid "$@" >"$log" 2>&1 &
pid=$!
tail -n +1 -f "$log" --pid="$pid" &
tailer=$!
last=$(date +%s) size=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 5
  now=$(date +%s) current=$(stat -c %s "$log")
  if [ "$current" != "$size" ]; then
    size=$current last=$now
  elif [ $((now - last)) -ge "$silence" ]; then
    echo "watchdog: no output for ${silence} s; the threads of every process of the run:" >&2
    for p in $(pgrep -s "$pid"); do
      echo "---- $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-200)" >&2
      if command -v gdb >/dev/null; then
        timeout 60 gdb -p "$p" -batch -ex "thread apply all bt 30" 2>/dev/null | grep -E '^(Thread|#)' >&2
      else
        for t in /proc/"$p"/task/*; do echo "  $(basename "$t"): $(cat "$t/comm") wchan=$(cat "$t/wchan" 2>/dev/null)" >&2; done
      fi
    done
    kill -KILL -- -"$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    kill "$tailer" 2>/dev/null
    echo "watchdog: killed the hung run (exit 124)" >&2
    exit 124
  fi
done
wait "$pid"
status=$?
wait "$tailer" 2>/dev/null
exit $status
