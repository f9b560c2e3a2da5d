#!/bin/sh
# Board.KitTimesOutWithoutTheTimeoutApplet: the kit's tmo (board/qcesim-measure) where no
# `timeout` works, as on OpenWrt's busybox (a shell function that fails stands in for the missing
# applet, whatever the shell finds on its own): a command past its time is killed, one that ends
# sooner keeps its exit status, and neither it nor the watchdog outlives the call.
# Usage: kit-timeout.sh KIT_SCRIPT [SHELL] (default dash; the QEMU test runs it with busybox sh)
set -u
kit=$1 shell=${2:-dash}
fail() { echo "kit-timeout: $*" >&2; exit 1; }
defs=$(sed -n '/^# tmo SECONDS COMMAND/,/^fi$/p' "$kit")
case "$defs" in *'tmo()'*) ;; *) fail "no tmo definition found in $kit" ;; esac
work=$(mktemp -d) || fail "no temporary folder"
trap 'rm -rf "$work"' EXIT
"$shell" -c '
  timeout() { return 127; }
  eval "$1"
  w=$2
  s=$(date +%s)
  tmo 2 sh -c "echo \$\$ >$w/late; exec sleep 37"; rc=$?; took=$(( $(date +%s) - s ))
  [ "$rc" -ne 0 ] && [ "$took" -le 4 ] || { echo "a 37 s command under tmo 2: status $rc after $took s"; exit 1; }
  kill -0 "$(cat "$w/late")" 2>/dev/null && { echo "the command tmo 2 timed out is still running"; exit 1; }
  tmo 30 sh -c "exit 3"; rc=$?
  [ "$rc" -eq 3 ] || { echo "a command that exits 3 under tmo 30: status $rc"; exit 1; }
  s=$(date +%s); tmo 30 sleep 1; rc=$?; took=$(( $(date +%s) - s ))
  [ "$rc" -eq 0 ] && [ "$took" -le 3 ] || { echo "sleep 1 under tmo 30: status $rc after $took s"; exit 1; }
  [ -z "$tmo_pid$tmo_dog" ] || { echo "tmo left its command or watchdog set: $tmo_pid $tmo_dog"; exit 1; }
  # (busybox ash may still list a reaped job: what counts is that none is running)
  for j in $(jobs -p); do
    if kill -0 "$j" 2>/dev/null; then echo "a background job still runs: $j"; exit 1; fi
  done
  exit 0
' tmo "$defs" "$work" 2>&1 || fail "the watchdog did not behave (under $shell)"
echo "kit-timeout: tmo without a timeout command kills late commands and keeps exit statuses (under $shell)"
