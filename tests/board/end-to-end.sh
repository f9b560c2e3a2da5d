#!/usr/bin/env bash
# Board.KitOnQemuThenIngestAndValidate: from `sh qcesim-measure` on a real arm64 Linux (Debian's
# kernel under QEMU, tests/board/qemu-kit.sh) to `qcesim validate` showing the board's rows, as
# docs/board.md tells a user. QEMU has no crypto engine: the kit must say so and still measure
# the CPU path and collect everything else.
# Usage: end-to-end.sh QCESIM KIT_DIR GUEST_DIR WORK_DIR
set -euo pipefail
qcesim=$1 kit=$2 guest=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "end-to-end: $*" >&2; exit 1; }
[ -f "$guest/ok" ] || fail "no guest in $guest: scripts/setup.sh unpacks Debian's arm64 kernel and busybox there"
[ -x "$kit/afalg-bench-arm64" ] || fail "no $kit/afalg-bench-arm64: the board-kit target builds it (gcc-aarch64-linux-gnu)"

[ -x "$kit/afalg-bench-armhf" ] || fail "no $kit/afalg-bench-armhf: the board-kit target builds it (gcc-arm-linux-gnueabihf)"

# Quick counts, a bounded budget, tcrypt and function_graph on: every part of the kit runs. Then
# the kit again under linux32, as on an ARMv7 board (the IPQ40xx's): the armhf afalg-bench.
QCESIM_KIT_ARMHF="-q -T -t 120" "$here/qemu-kit.sh" "$guest" "$kit" "$work" -q -t 240 -f
grep -q "no Qualcomm crypto engine driver registered" "$work/console.log" || fail "the kit did not say QCE is absent"
grep -q QCESIM-TMO-OK "$work/console.log" || fail "the kit's watchdog failed under busybox sh (console.log)"
grep -q QCESIM-AF-ALG-UNLOADED "$work/console.log" || fail "the guest could not unload AF_ALG's modules"
grep -q "the kernel has no AF_ALG sockets" "$work/console.log" || fail "the kit did not say AF_ALG is missing"

cd "$work"
rm -rf out
"$qcesim" ingest board.tar.gz -o out --name qemu-virt >report.md
python3 - <<'PY'
import json, sys
def check(ok, what):
    if not ok:
        sys.exit("end-to-end: " + what)
report = open("report.md").read()
check("has no crypto engine node: the CPU part only" in report, "the report does not say the FDT has no crypto node")
check("`qce` (absent" in report, "the report does not list the missing engine")
# bam_dma is loaded (bound to nothing): the kit lists its functions by name and module, nothing else.
import re, tarfile
with tarfile.open("board.tar.gz") as t:
    names = t.extractfile("system/kallsyms-crypto").read().decode().splitlines()
check("bam_dma_terminate_all [bam_dma]" in names and "bam_chan_init_hw [bam_dma]" in names,
      "system/kallsyms-crypto lacks bam_dma's functions: %s" % names[:5])
check(all(re.fullmatch(r"(qce|bam)_[A-Za-z0-9_.]* \[[a-z_]+\]", n) for n in names),
      "system/kallsyms-crypto holds something besides names and modules: %s" % names[:5])
check(len(names) == len(set(names)), "system/kallsyms-crypto repeats a name")
check("`system/kallsyms-crypto`" not in report, "the report lists the drivers' names as missing")
check("(cortex-a57)" in report or "MIDR says unknown" in report, "the report does not name the unknown cores")
seed = json.load(open("out/qemu-virt-sha256-4096.json"))
v = seed["variants"]
check(len(v) == 1 and v[0]["engine"] == "cpu", "the seed scenario should hold the CPU's driver only: %s" % v)
check(v[0]["name"] in ("sha256-ce", "sha256-arm64", "sha256-generic"), "unexpected CPU driver %s" % v[0]["name"])
m = v[0]["measured"]
check(m["messages"] == 2000 and m["message_bytes"] == 4096 and m["wall_s"] > 0 and m["cpu_s"] > 0, "measured %s" % m)
check("output equal" in v[0]["about"], "the driver's digest was not checked against sha256-generic")
fn = json.load(open("out/qemu-virt-functions.json"))
names = {f["function"]: f for f in fn["functions"]}
check(any(n.startswith("__sha2_ce_transform") for n in names), "function_graph gave no sha2-ce function: %s" % list(names))
check("| sha256-ce | digest | 4096 |" in report, "no tcrypt row for sha256-ce at 4096 bytes")
prof = json.load(open("out/qemu-virt-profile.json"))
check(prof["parameters"]["cpuidle.off"]["value"] == 1, "QEMU virt has no cpuidle driver: cpuidle.off should be 1")
check(prof["parameters"]["driver.era"]["provenance"].startswith("measured: on the board, kernel release 6.1"), "era")
check("older than 6.5: its AF_ALG hash socket hashes each message as init, update and final" in report,
      "a 6.1 kernel's AF_ALG hashes by init/update/final: the report should say so")
check(seed["workload"].get("hash_calls") == "init_update_final",
      "a 6.1 kernel's hash scenario should replay init, update and final: %s" % seed["workload"])
check(seed["workload"].get("caller") == "af_alg", "the hash scenario should replay afalg-bench's system calls")
more = json.load(open("out/qemu-virt-sha256-4096-more.json"))
check(more["workload"].get("hash_calls") == "init_update_final" and len(more["variants"]) == 1,
      "the MSG_MORE run should be its own init/update/final scenario: %s" % more)
check("output equal" in more["variants"][0]["about"], "the MSG_MORE run's digest was not checked: %s" % more)
print("end-to-end: archive, report, scenarios and function table checked")
PY

# The armhf pass: the same runs through the 32-bit binary and the kernel's compat system calls,
# each output still equal to the generic driver's.
rm -rf out-armhf
"$qcesim" ingest board-armhf.tar.gz -o out-armhf --name qemu-armhf >report-armhf.md
python3 - <<'PY'
import json, sys
def check(ok, what):
    if not ok:
        sys.exit("end-to-end (armhf): " + what)
report = open("report-armhf.md").read()
check(") armv8l." in report, "the 32-bit pass's uname should say armv8l (linux32), so the kit ran afalg-bench-armhf")
for name, driver in (("sha256-4096", "sha256-ce"), ("cbc-aes128-4096", "cbc-aes-ce")):
    s = json.load(open("out-armhf/qemu-armhf-%s.json" % name))
    v = s["variants"]
    check(len(v) == 1 and v[0]["name"] == driver, "%s: expected the %s run alone: %s" % (name, driver, v))
    check("output equal" in v[0]["about"], "%s: the 32-bit run's output was not checked equal" % name)
    m = v[0]["measured"]
    check(m["wall_s"] > 0 and m["message_bytes"] == 4096, "%s measured %s" % (name, m))
    # CPU is /proc/stat's busy ticks (10 ms): the seed's 2000 requests take seconds under TCG,
    # the cipher's 200 may round to none.
    check(name != "sha256-4096" or m["cpu_s"] > 0, "%s: no busy CPU time measured: %s" % (name, m))
print("end-to-end: the armhf pass measured through the compat system calls, outputs checked")
PY
"$qcesim" validate out --samples 3 --messages 200 >validate.txt
grep -q "^qemu-virt:" validate.txt || fail "validate shows no rows for the board"
grep -q "qemu-virt-sha256-4096" validate.txt || fail "validate shows no seed row"
echo "end-to-end: validate shows the board's rows" >&2
