#!/usr/bin/env bash
# CI's second half, run by scripts/test.sh when CI is set (or by hand): the whole test suite
# under AddressSanitizer and UBSan (clang), the hash-ahead helper's tests under ThreadSanitizer,
# and every fuzzer for a bounded time over its committed corpus and regressions. Any sanitizer
# report, crash, hang (10 s per input) or allocation above 1 GiB fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${QCESIM_FUZZ_SECONDS:-12}

echo "== ASan + UBSan: the test suite (build/sanitize)" >&2
# Under CI without the preset's line tables (-g1; keep the flags in step): a fifth of each unit's
# compile time (studies' second unity unit: 33.7 -> 27.6 s). UBSan's reports still name file and
# line (the check carries them), ASan's backtraces name functions; the preset run by hand has both.
flags=()
if [ -n "${CI:-}" ]; then flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1"); fi
cmake --preset sanitize "${flags[@]}"
cmake --build --preset sanitize
ctest --preset sanitize

echo "== ThreadSanitizer: the hash-ahead helper (build/tsan)" >&2
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan

echo "== fuzzing, ${seconds} s per target, two at a time (CI has two cores)" >&2
fuzzer=build/sanitize/fuzz/qcesim_fuzz
artifacts=build/sanitize/fuzz-artifacts
mkdir -p "$artifacts"
# One target: new inputs go to its work folder; the committed corpus and regressions are only read.
# Exit status 0: no finding; the verdict line goes to stderr, the log beside the work folder.
fuzz_one() {
  local target=$1 work=build/sanitize/fuzz-work/$1
  mkdir -p "$work"
  local dict=()
  case "$target" in device | archive | fdt) ;; *) dict=(-dict=fuzz/json.dict) ;; esac
  local regressions=()
  [ -d "fuzz/regressions/$target" ] && regressions=("fuzz/regressions/$target")
  if ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$fuzzer" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
       "${dict[@]}" -artifact_prefix="$artifacts/$target-" -print_final_stats=1 \
       "$work" "fuzz/corpus/$target" "${regressions[@]}" 2>"$work.log"; then
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work.log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz $target: ${seconds} s, $runs executions, no finding" >&2
    return 0
  fi
  echo "fuzz $target: FAILED (log below; the input is in $artifacts)" >&2
  tail -60 "$work.log" >&2
  return 1
}
passed=0
failed=0
pids=()
for target in scenario profile sweep set archive fdt device; do
  fuzz_one "$target" &
  pids+=($!)
  if [ "${#pids[@]}" -eq 2 ]; then
    if wait "${pids[0]}"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  if wait "$pid"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
