#!/usr/bin/env python3
"""Writes the board-kit test inputs: for each of the two SoCs the model knows, a flattened device
tree with its crypto wiring (the facts of soc/device_tree.cpp's entry: sm8650.dtsi,
qcom-ipq4019.dtsi) and a kit archive around it, as the kit would write it on that board (the
IPQ40xx's: a 32-bit kernel, ARMv7 /proc/cpuinfo, no IOMMU, no idle driver).

They are TEST DATA, not a measurement: the SM8650 archive's runs carry the published seed
numbers (measurements.json P1), the IPQ40xx archive's cbc(aes) runs M1's published AES-128-CBC
rates, dressed as afalg-bench reports so that ingest's arithmetic can be checked against known
values; their CPU times, interrupt counts, clocks, idle states and the IPQ40xx's SHA-256 runs are
made up for the test and say so in the manifests. Outputs: tests/data/board/ (unit tests) and the
fuzzers' corpora fuzz/corpus/{archive,fdt}/. Deterministic: the same bytes on every run.
Usage: python3 fuzz/make_board_seeds.py [REPO]
"""
import io
import os
import struct
import sys
import tarfile

REPO = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")


def fdt(root):
    """A version-17 FDT from nested (name, [(prop, bytes)], [children]) tuples."""
    strings = bytearray()
    offsets = {}
    out = bytearray()

    def name_off(n):
        if n not in offsets:
            offsets[n] = len(strings)
            strings.extend(n.encode() + b"\0")
        return offsets[n]

    def pad():
        while len(out) % 4:
            out.append(0)

    def node(name, props, children):
        out.extend(struct.pack(">I", 1) + name.encode() + b"\0")
        pad()
        for p, v in props:
            out.extend(struct.pack(">III", 3, len(v), name_off(p)) + v)
            pad()
        for c in children:
            node(*c)
        out.extend(struct.pack(">I", 2))

    node(*root)
    out.extend(struct.pack(">I", 9))
    rsv = bytes(16)
    off_rsv = 40
    off_struct = off_rsv + len(rsv)
    off_strings = off_struct + len(out)
    total = off_strings + len(strings)
    header = struct.pack(">10I", 0xD00DFEED, total, off_struct, off_strings, off_rsv, 17, 16, 0, len(strings), len(out))
    return header + rsv + bytes(out) + bytes(strings)


def s(*words):
    return b"".join(w.encode() + b"\0" for w in words)


def u32(*cells):
    return struct.pack(">%dI" % len(cells), *cells)


CORES = ["cortex-a520"] * 2 + ["cortex-a720"] * 5 + ["cortex-x4"]
MIDR = {"cortex-a520": 0xD80, "cortex-a720": 0xD81, "cortex-x4": 0xD82}
cpus = [("cpu@%d" % (i * 100), [("device_type", s("cpu")), ("compatible", s("arm," + c)), ("reg", u32(0, i * 0x100))], [])
        for i, c in enumerate(CORES)]
SMMU, BAM = 1, 2
tree = ("", [("model", s("qcesim test board (SM8650 wiring)")), ("compatible", s("qcom,sm8650-qrd", "qcom,sm8650")),
             ("#address-cells", u32(2)), ("#size-cells", u32(2))], [
    ("cpus", [("#address-cells", u32(2)), ("#size-cells", u32(0))], cpus),
    ("soc@0", [("#address-cells", u32(2)), ("#size-cells", u32(2)), ("compatible", s("simple-bus"))], [
        ("iommu@15000000", [("compatible", s("qcom,sm8650-smmu-500", "arm,mmu-500")), ("reg", u32(0, 0x15000000, 0, 0x100000)),
                            ("#iommu-cells", u32(2)), ("phandle", u32(SMMU))], []),
        ("dma-controller@1dc4000", [("compatible", s("qcom,bam-v1.7.4", "qcom,bam-v1.7.0")),
                                    ("reg", u32(0, 0x1DC4000, 0, 0x28000)), ("interrupts", u32(0, 272, 4)),
                                    ("#dma-cells", u32(1)), ("qcom,ee", u32(0)), ("iommus", u32(SMMU, 0x480, 0)),
                                    ("phandle", u32(BAM))], []),
        ("crypto@1dfa000", [("compatible", s("qcom,sm8650-qce", "qcom,sm8150-qce", "qcom,qce")),
                            ("reg", u32(0, 0x1DFA000, 0, 0x6000)), ("dmas", u32(BAM, 4, BAM, 5)),
                            ("dma-names", s("rx", "tx")), ("iommus", u32(SMMU, 0x480, 0))], []),
    ]),
])
DTB = fdt(tree)


def stat(user, nice, system, idle, iowait, irq, softirq, steal):
    return "cpu  %d %d %d %d %d %d %d %d 0 0" % (user, nice, system, idle, iowait, irq, softirq, steal)


def run(driver, wall_s, cpu_s, hardirq_ticks, softirq_ticks, irqs, messages=50000, bytes_=4096, alg="sha256", idle=(),
        cpu_end=7, send="whole", cpu_start=7, kind="hash", key_bytes=0, check="sha256-generic"):
    """cpu_s is every core's busy time (/proc/stat, as the seed measurement's CPU); the process's
    own utime + stime is made up as that time outside the interrupts."""
    busy = round(cpu_s * 100) - hardirq_ticks - softirq_ticks  # user + nice + system ticks
    task_s = busy / 100
    # Every column moves by its own amount, so a sum over the wrong columns shows: 3 of the busy
    # ticks are nice, a tenth user, the rest system; idle, iowait and steal move but are not busy.
    nice = min(3, busy)
    user = (busy - nice) // 10
    lines = ["qcesim-afalg 1", "check equal " + check, "type " + kind, "alg " + alg, "driver " + driver,
             "bytes %d" % bytes_, "messages %d" % messages, "requested %d" % messages, "key_bytes %d" % key_bytes]
    lines += ["send " + send] if kind == "hash" else []
    lines += ["wall_ns %d" % round(wall_s * 1e9), "utime_us %d" % round(task_s * 0.1e6),
              "stime_us %d" % round(task_s * 0.9e6), "clk_tck 100", "cpu_start %d" % cpu_start, "cpu_end %d" % cpu_end,
              "stat_before " + stat(1000, 40, 2000, 50000, 10, 100, 200, 5),
              "stat_after " + stat(1000 + user, 40 + nice, 2000 + busy - nice - user, 50400, 21, 100 + hardirq_ticks,
                                   200 + softirq_ticks, 18)]
    lines += ["irq %s" % i for i in irqs]  # an entry may carry its irq_cpu line after a newline
    lines += ["cpuidle %s" % i for i in idle]
    lines += ["status complete"]
    return "\n".join(lines) + "\n"


cpuinfo = "".join("processor\t: %d\nBogoMIPS\t: 38.40\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                  "CPU variant\t: 0x0\nCPU part\t: 0x%03x\nCPU revision\t: 0\n\n" % (i, MIDR[c]) for i, c in enumerate(CORES))
crypto = ""
for name, driver, prio, module in [("sha256", "sha256-ce", 200, "sha2_ce"), ("sha256", "sha256-qce", 275, "qcrypto"),
                                   ("sha256", "sha256-generic", 100, "kernel")]:
    crypto += "name         : %s\ndriver       : %s\nmodule       : %s\npriority     : %d\ntype         : ahash\n\n" % (
        name, driver, module, prio)
cpufreq = ""
for pol, cpus, lo, hi in [("policy0", "0 1", 307200, 2265600), ("policy2", "2 3 4 5 6", 499200, 3148800),
                          ("policy7", "7", 480000, 3302400)]:
    cpufreq += "%s related_cpus %s\n%s scaling_governor schedutil\n%s cpuinfo_min_freq %d\n%s cpuinfo_max_freq %d\n" % (
        pol, cpus, pol, pol, lo, pol, hi)
cpuidle = "cpuidle current_driver psci_idle\ncpuidle current_governor menu\n"
for st, name, lat, res in [("state0", "WFI", 1, 1), ("state1", "cpu-sleep-0", 1200, 7000), ("state2", "cluster-sleep-0", 2200, 9000)]:
    cpuidle += "cpu7 %s name %s\ncpu7 %s latency %d\ncpu7 %s residency %d\ncpu7 %s disable 0\n" % (st, name, st, lat, st, res, st)
graph = """# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 7)               |  qce_ahash_async_req_handle [qcrypto]() {
 7)               |    iommu_dma_map_sg() {
 7)   0.900 us    |      __arm_lpae_map();
 7)   0.700 us    |      __arm_lpae_map();
 7)   3.000 us    |    }
 7)   1.200 us    |    bam_prep_slave_sg();
 7)   9.000 us    |  }
 0)   2.500 us    |  bam_dma_irq();
 7)               |  qce_ahash_async_req_handle [qcrypto]() {
 7)   2.600 us    |    iommu_dma_map_sg();
 7)   1.000 us    |    bam_prep_slave_sg();
 7)   7.000 us    |  }
 0)               |  qce_dma_terminate_all [qcrypto]() {
 0)   0.800 us    |    bam_dma_terminate_all();
 0)   0.600 us    |    bam_dma_terminate_all();
 0)   1.900 us    |  }
 0)               |  qce_dma_terminate_all [qcrypto]() {
 0)   0.700 us    |    bam_dma_terminate_all();
 0)   0.600 us    |    bam_dma_terminate_all();
 0)   1.800 us    |  }
"""
# The qce and BAM drivers' names in /proc/kallsyms (mainline's: no command-descriptor register
# I/O, no pipe lock), and the functions the trace filter matched (ftrace/functions).
kallsyms = """bam_alloc_chan [bam_dma]
bam_chan_init_hw [bam_dma]
bam_dma_irq [bam_dma]
bam_dma_terminate_all [bam_dma]
bam_prep_slave_sg [bam_dma]
bam_start_dma [bam_dma]
qce_ahash_async_req_handle [qcrypto]
qce_ahash_done [qcrypto]
qce_dma_request [qcrypto]
qce_dma_terminate_all [qcrypto]
qce_handle_queue.constprop.0 [qcrypto]
qce_start [qcrypto]
"""
traceable = """qce_ahash_async_req_handle [qcrypto]
qce_ahash_done [qcrypto]
qce_dma_terminate_all [qcrypto]
bam_chan_init_hw [bam_dma]
bam_dma_irq [bam_dma]
bam_dma_terminate_all [bam_dma]
bam_prep_slave_sg [bam_dma]
iommu_dma_map_sg
__arm_lpae_map
"""
tcrypt = """[  100.000000] tcrypt:
[  100.000001] testing speed of async sha256 (sha256-qce)
[  100.000002] tcrypt: test  0 (   16 byte blocks,   16 bytes per update,   1 updates):
[  101.000000]  20000 opers/sec,    320000 bytes/sec
[  102.000000] tcrypt: test 21 ( 4096 byte blocks, 4096 bytes per update,   1 updates):  10500 opers/sec,  43008000 bytes/sec
"""
manifest = """qcesim-board-archive 1
kit 1
started 2026-12-03T00:00:00Z
options synthetic test archive (fuzz/make_board_seeds.py): P1's published numbers, made-up clocks, idle states and interrupts
item system/uname collected
item system/cmdline collected
item system/cpuinfo collected
item system/crypto collected
item system/config collected /proc/config.gz
item system/fdt collected
item system/cpufreq collected
item system/cpuidle collected
item system/iommu collected
item qce present sha256-qce
item system/qce-parameters collected
item system/kallsyms-crypto collected
item runs/seed-cpu collected sha256-ce
item runs/seed-qce collected sha256-qce
item runs/seed-more-qce collected sha256-qce
item tcrypt/sha256-qce collected mode=400 sec=1
item ftrace/graph collected function_graph, 2 x 4096-byte sha256 on sha256-qce
item iommu-mode optional run again after booting with iommu.strict=0
item dma_map_benchmark optional no /sys/kernel/debug/dma_map_benchmark (CONFIG_DMA_MAP_BENCHMARK)
finished 2026-12-03T00:10:00Z
"""
members = [
    ("manifest.txt", manifest),
    ("system/uname", "Linux 6.12.0-test #1 SMP PREEMPT aarch64\n"),
    ("system/cmdline", "console=ttyMSM0 root=/dev/sda1\n"),
    ("system/cpuinfo", cpuinfo),
    ("system/crypto", crypto),
    ("system/config", "CONFIG_HZ=250\nCONFIG_IRQ_TIME_ACCOUNTING=y\nCONFIG_IOMMU_DEFAULT_DMA_STRICT=y\n"),
    ("system/fdt", DTB),
    ("system/cpufreq", cpufreq),
    ("system/cpuidle", cpuidle),
    ("system/iommu", "group 12 DMA-FQ 1dfa000.crypto\ngroup 3 DMA a600000.usb\n"),
    ("system/qce-parameters", "aes_sw_max_len 512\n"),
    ("system/kallsyms-crypto", kallsyms),
    ("runs/seed-cpu", run("sha256-ce", 0.10, 0.10, 0, 0, ["IPI1 10 Function call interrupts"],
                          idle=["7 0 10 100 WFI"], cpu_end=6)),  # the loop moved: CPU 7's states are not its
    ("runs/seed-qce", run("sha256-qce", 4.85, 2.78, 55, 94, ["250 50000 GICv3 304 Level bam_dma\nirq_cpu 250 0 50000",
                                                            "11 1212 GICv3 27 Level arch_timer\nirq_cpu 11 7 1200"],
                          idle=["0 0 100000 1800000 WFI", "7 0 49000 4655000 WFI", "7 1 1000 120000 cpu-sleep-0"])),
    # MSG_MORE, finalised by the read: two engine requests per message (four interrupts).
    ("runs/seed-more-qce", run("sha256-qce", 0.28, 0.17, 4, 8, ["250 8000 GICv3 304 Level bam_dma"], messages=2000,
                               send="more")),
    ("tcrypt/sha256-qce", tcrypt),
    ("ftrace/graph", graph),
    ("ftrace/functions", traceable),
]


def archive(members):
    buf = io.BytesIO()
    dirs = sorted({m[0].split("/")[0] for m in members if "/" in m[0]}, key=["system", "runs", "tcrypt", "ftrace"].index)
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for d in dirs:
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            t.addfile(info)
        for name, data in members:
            b = data if isinstance(data, bytes) else data.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(b), 0o644, 0
            t.addfile(info, io.BytesIO(b))
    return buf.getvalue()


TAR = archive(members)

# ---- an IPQ4019 router (qcom-ipq4019.dtsi; OpenWrt's 4.19 kernel, as M1 and M2 ran) -------------
GIC = 1
ipq_cpus = [("cpu@%d" % i, [("device_type", s("cpu")), ("compatible", s("arm,cortex-a7")), ("reg", u32(i))], [])
            for i in range(4)]
ipq_tree = ("", [("model", s("qcesim test board (IPQ4019 wiring)")), ("compatible", s("asus,rt-ac58u", "qcom,ipq4019")),
                 ("#address-cells", u32(1)), ("#size-cells", u32(1))], [
    ("cpus", [("#address-cells", u32(1)), ("#size-cells", u32(0))], ipq_cpus),
    ("soc", [("#address-cells", u32(1)), ("#size-cells", u32(1)), ("compatible", s("simple-bus"))], [
        ("interrupt-controller@b000000", [("compatible", s("qcom,msm-qgic2")), ("reg", u32(0x0B000000, 0x1000)),
                                          ("interrupt-controller", b""), ("#interrupt-cells", u32(3)),
                                          ("phandle", u32(GIC))], []),
        ("dma@8e04000", [("compatible", s("qcom,bam-v1.7.0")), ("reg", u32(0x08E04000, 0x20000)),
                         ("interrupts", u32(0, 207, 4)), ("#dma-cells", u32(1)), ("qcom,ee", u32(1)),
                         ("qcom,controlled-remotely", b""), ("phandle", u32(BAM))], []),
        ("crypto@8e3a000", [("compatible", s("qcom,crypto-v5.1")), ("reg", u32(0x08E3A000, 0x6000)),
                            ("dmas", u32(BAM, 2, BAM, 3)), ("dma-names", s("rx", "tx")), ("status", s("okay"))], []),
    ]),
])
IPQ_DTB = fdt(ipq_tree)
ipq_cpuinfo = "".join("processor\t: %d\nmodel name\t: ARMv7 Processor rev 5 (v7l)\nBogoMIPS\t: 96.00\n"
                      "Features\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae evtstrm\n"
                      "CPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xc07\n"
                      "CPU revision\t: 5\n\n" % i for i in range(4)) + "Hardware\t: Generic DT based system\nRevision\t: 0000\n"
ipq_crypto = ""
for name, driver, prio, module, kind in [
        ("cbc(aes)", "cbc-aes-qce", 300, "qcrypto", "skcipher"), ("cbc(aes)", "cbc-aes-neonbs", 250, "aes_neon_bs", "skcipher"),
        ("sha256", "sha256-qce", 300, "qcrypto", "ahash"), ("sha256", "sha256-neon", 250, "sha256_arm", "shash"),
        ("sha256", "sha256-generic", 100, "kernel", "shash")]:
    ipq_crypto += "name         : %s\ndriver       : %s\nmodule       : %s\npriority     : %d\ntype         : %s\n\n" % (
        name, driver, module, prio, kind)
ipq_cpufreq = ("policy0 related_cpus 0 1 2 3\npolicy0 scaling_governor ondemand\npolicy0 scaling_driver cpufreq-dt\n"
               "policy0 cpuinfo_min_freq 48000\npolicy0 cpuinfo_max_freq 716800\n"
               "policy0 scaling_available_frequencies 48000 200000 500000 716800\n")
BAM_ROW = "31 %d GIC-0 239 Level bam_dma"  # GIC SPI 207 is hwirq 239 on a GICv2 (SPIs start at 32)
BLSP_ROW = "26 %d GIC-0 270 Level bam_dma"  # the BLSP's BAM (SPI 238: the serial console's UART)


def m1(bytes_, qce_kbps, soft_kbps):
    """M1's AES-128-CBC rates (openssl speed, 3 s per size) as two afalg-bench runs."""
    out = []
    for side, drv, kbps, irqs in [("qce", "cbc-aes-qce", qce_kbps, 1), ("cpu", "cbc-aes-neonbs", soft_kbps, 0)]:
        n = round(kbps * 1000 * 3.0 / bytes_)
        wall = n * bytes_ / (kbps * 1000)
        rows = [BAM_ROW % (n * irqs)] if irqs else []
        if irqs and bytes_ == 1024:
            rows.append(BLSP_ROW % 250)  # the console busy during this run: a second bam_dma row
        out.append(("runs/cbc-aes128-%d-%s" % (bytes_, side),
                    run(drv, wall, wall * 0.9, 0, 0, rows, messages=n, bytes_=bytes_, alg="cbc(aes)", cpu_start=0,
                        cpu_end=0, kind="skcipher", key_bytes=16, check="cbc(aes-generic)")))
    return out


ipq_manifest = """qcesim-board-archive 1
kit 1
started 2026-12-06T00:00:00Z
options synthetic test archive (fuzz/make_board_seeds.py): M1's published AES-128-CBC rates (the threshold not in force: aes_sw_max_len 0); made-up CPU times, interrupt counts and SHA-256 runs
item system/uname collected
item system/cmdline collected
item system/cpuinfo collected
item system/crypto collected
item system/config absent no /proc/config.gz (CONFIG_IKCONFIG_PROC) and no /boot/config-4.19.78
item system/fdt collected
item system/cpufreq collected
item system/cpuidle absent no cpuidle states (driver: none)
item system/iommu absent no IOMMU groups: no IOMMU, or it is off
item qce present cbc-aes-qce
item system/qce-parameters collected
item runs/seed-cpu collected sha256-neon
item runs/seed-qce collected sha256-qce
item runs/cbc-aes128-256-qce collected cbc-aes-qce
item runs/cbc-aes128-256-cpu collected cbc-aes-neonbs
item runs/cbc-aes128-1024-qce collected cbc-aes-qce
item runs/cbc-aes128-1024-cpu collected cbc-aes-neonbs
finished 2026-12-06T00:10:00Z
"""
ipq_members = [
    ("manifest.txt", ipq_manifest),
    ("system/uname", "Linux 4.19.78 #0 SMP Mon Jan 20 22:45:09 2020 armv7l\n"),
    ("system/cmdline", "console=ttyMSM0,115200n8 ubi.mtd=UBI_DEV\n"),
    ("system/cpuinfo", ipq_cpuinfo),
    ("system/crypto", ipq_crypto),
    ("system/fdt", IPQ_DTB),
    ("system/cpufreq", ipq_cpufreq),
    ("system/cpuidle", "cpuidle current_driver none\ncpuidle current_governor_ro menu\n"),
    ("system/qce-parameters", "aes_sw_max_len 0\n"),
    ("runs/seed-cpu", run("sha256-neon", 0.40, 0.40, 0, 0, [], messages=2000, cpu_start=0, cpu_end=0)),
    ("runs/seed-qce", run("sha256-qce", 0.30, 0.12, 2, 5, [BAM_ROW % 4000 + "\nirq_cpu 31 0 4000"], messages=2000,
                          cpu_start=0, cpu_end=0)),
] + m1(256, 2704.10, 6808.92) + m1(1024, 12314.37, 11418.80)
IPQ_TAR = archive(ipq_members)

for path, data in [("tests/data/board/sm8650-like.dtb", DTB), ("tests/data/board/sm8650-like.tar", TAR),
                   ("tests/data/board/ipq40xx-like.tar", IPQ_TAR),
                   ("fuzz/corpus/fdt/sm8650-like.dtb", DTB), ("fuzz/corpus/archive/sm8650-like.tar", TAR),
                   ("fuzz/corpus/fdt/ipq40xx-like.dtb", IPQ_DTB), ("fuzz/corpus/archive/ipq40xx-like.tar", IPQ_TAR)]:
    with open(os.path.join(REPO, path), "wb") as f:
        f.write(data)
print("wrote %d- and %d-byte device trees and %d- and %d-byte archives" % (len(DTB), len(IPQ_DTB), len(TAR), len(IPQ_TAR)))
