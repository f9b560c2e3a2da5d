#!/bin/sh
# Board.KitTimesOutWithoutTheTimeoutApplet: the kit's tmo (board/qcesim-measure) where no
# `timeout` command exists, as on OpenWrt's busybox: a command past its time is killed, one that
# ends sooner keeps its exit status, and no watchdog outlives the call. Runs the kit's own
# definition under dash with a PATH that has sleep and nothing called timeout.
# Usage: kit-timeout.sh KIT_SCRIPT WORK_DIR
set -u
kit=$1 work=$2
fail() { echo "kit-timeout: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" || fail "cannot make $work"
for c in sleep sh date; do ln -s "$(command -v "$c")" "$work/bin/$c"; done
sed -n '/^# tmo SECONDS COMMAND/,/^fi$/p' "$kit" >"$work/tmo.sh"
grep -q 'tmo()' "$work/tmo.sh" || fail "no tmo definition found in $kit"
PATH="$work/bin" "$(command -v dash)" -c '
  . "$1"
  command -v timeout >/dev/null 2>&1 && { echo "a timeout command is on the PATH"; exit 1; }
  s=$(date +%s); tmo 2 sleep 37; rc=$?; took=$(( $(date +%s) - s ))
  [ "$rc" -ne 0 ] && [ "$took" -le 4 ] || { echo "sleep 37 under tmo 2: status $rc after $took s"; exit 1; }
  tmo 30 sh -c "exit 3"; rc=$?
  [ "$rc" -eq 3 ] || { echo "a command that exits 3 under tmo 30: status $rc"; exit 1; }
  s=$(date +%s); tmo 30 sleep 1; rc=$?; took=$(( $(date +%s) - s ))
  [ "$rc" -eq 0 ] && [ "$took" -le 3 ] || { echo "sleep 1 under tmo 30: status $rc after $took s"; exit 1; }
' tmo "$work/tmo.sh" || fail "the watchdog did not behave"
sleep 1
if ps -eo args 2>/dev/null | grep -q "^sleep 37$"; then fail "a watchdog or its command outlived tmo"; fi
echo "kit-timeout: tmo without a timeout command kills late commands and keeps exit statuses"
