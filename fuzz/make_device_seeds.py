#!/usr/bin/env python3
"""Writes the device fuzzer's seed programs (fuzz/corpus/device/*.bin): the request paths the
Linux drivers take, in the op codes of fuzz/device_ops.h, so that fuzzing starts from programs
that reach the engine's hash core, the result dump and the BAM's command elements and locks."""
import os
import struct

QCE = {"STATUS": 0x100, "SEG_SIZE": 0x110, "GOPROC": 0x120, "ENCR_SEG_CFG": 0x200,
       "AUTH_SEG_CFG": 0x300, "AUTH_SEG_SIZE": 0x304, "AUTH_SEG_START": 0x308, "AUTH_IV0": 0x310,
       "AUTH_BYTECNT0": 0x390, "CONFIG": 0x400}
GO, RESULTS_DUMP = 1, 4
SHA256_IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
AUTH_CFG = 1 | (1 << 9) | (1 << 16) | (1 << 17)              # SHA, SHA-256, LAST, FIRST
CONFIG = (7 << 17) | 0b1111 | (2 << 5) | (1 << 9)             # 64-byte bursts, masks, pipe set 2, little endian
INT, EOT, NWD, CMD, LOCK, UNLOCK = 0x8000, 0x4000, 0x1000, 0x0800, 0x0400, 0x0200
RX, TX = 4, 5
WINDOW_DATA, WINDOW_RESULT = 0x2000, 0x3000


def u8(v): return struct.pack("<B", v & 0xFF)
def u16(v): return struct.pack("<H", v & 0xFFFF)
def u32(v): return struct.pack("<I", v & 0xFFFFFFFF)


def qce_write(off, val): return u8(2) + u16(off // 4) + u32(val)
def qce_read(off): return u8(3) + u16(off // 4)
def bam_read(off): return u8(1) + u16(off // 4)
def pipe(p, producer, ee=0, ring=7): return u8(7) + u8(p) + u8((producer & 1) | (ee << 1) | (ring << 3))
def desc(p, i, off, size, flags): return u8(4) + u16(p * 64 + i) + u16(off) + u16(size) + u16(flags)
def doorbell(p, n): return u8(8) + u8(p) + u8(n)
def data(block, sixteen): return u8(6) + u8(block) + sixteen
def wait(n): return u8(9) + u8(n)
def ce(slot, reg, val, cmd=0, mask=0xFFFFFFFF): return u8(5) + u8(slot) + u8(cmd) + u16(reg // 4) + u32(val) + u32(mask)


def message(nbytes):
    return b"".join(data(i, bytes((i * 16 + k) & 0xFF for k in range(16))) for i in range(nbytes // 16))


def mmio_regs(nbytes):
    ops = [qce_write(QCE["STATUS"], 0), qce_write(QCE["CONFIG"], CONFIG & ~(1 << 9))]
    ops += [qce_write(QCE["AUTH_IV0"] + 4 * i, v) for i, v in enumerate(SHA256_IV)]
    ops += [qce_write(QCE["AUTH_BYTECNT0"] + 4 * i, 0) for i in range(4)]
    ops += [qce_write(QCE["AUTH_SEG_CFG"], AUTH_CFG), qce_write(QCE["AUTH_SEG_SIZE"], nbytes),
            qce_write(QCE["AUTH_SEG_START"], 0), qce_write(QCE["ENCR_SEG_CFG"], 0),
            qce_write(QCE["SEG_SIZE"], nbytes), qce_write(QCE["CONFIG"], CONFIG),
            qce_write(QCE["GOPROC"], GO | RESULTS_DUMP)]
    return b"".join(ops)


def mainline(nbytes):
    """qce_ahash_async_req_handle without the series: MMIO registers, one data and one result descriptor."""
    return (message(nbytes) + pipe(RX, 0) + pipe(TX, 1) + desc(RX, 0, WINDOW_DATA, nbytes, EOT | INT)
            + desc(TX, 0, WINDOW_RESULT, 128, EOT | INT) + doorbell(RX, 1) + doorbell(TX, 1) + mmio_regs(nbytes)
            + wait(200) + qce_read(QCE["STATUS"]) + bam_read(0x13010 + 0x1000 * TX) + bam_read(0x13800 + 0x1000 * TX))


def series(nbytes):
    """The locking series: the registers as command elements between LOCK and UNLOCK."""
    regs = [(QCE["STATUS"], 0), (QCE["CONFIG"], CONFIG & ~(1 << 9))]
    regs += [(QCE["AUTH_IV0"] + 4 * i, v) for i, v in enumerate(SHA256_IV)]
    regs += [(QCE["AUTH_SEG_CFG"], AUTH_CFG), (QCE["AUTH_SEG_SIZE"], nbytes), (QCE["SEG_SIZE"], nbytes),
             (QCE["CONFIG"], CONFIG), (QCE["GOPROC"], GO | RESULTS_DUMP)]
    prog = message(nbytes) + pipe(RX, 0) + pipe(TX, 1)
    prog += b"".join(ce(i, r, v) for i, (r, v) in enumerate(regs))
    prog += ce(len(regs), 0, 0)  # the dummy write LOCK and UNLOCK carry
    prog += desc(RX, 0, 0x1000 + 16 * len(regs), 16, CMD | LOCK)
    prog += desc(RX, 1, 0x1000, 16 * len(regs), CMD)
    prog += desc(RX, 2, WINDOW_DATA, nbytes, EOT | NWD)
    prog += desc(RX, 3, 0x1000 + 16 * len(regs), 16, CMD | UNLOCK | INT)
    prog += desc(TX, 0, WINDOW_RESULT, 128, EOT | INT)
    return prog + doorbell(TX, 1) + doorbell(RX, 4) + wait(255) + qce_read(QCE["STATUS"])


def errors():
    """Misprogramming the kernel never does: a ring of size 0, a doorbell past the ring, GO twice."""
    return (pipe(RX, 0, ring=0) + doorbell(RX, 64) + mmio_regs(64) + qce_write(QCE["GOPROC"], GO)
            + qce_write(QCE["GOPROC"], 2) + bam_read(0x1010) + qce_read(QCE["STATUS"]))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "device")
os.makedirs(out, exist_ok=True)
for name, prog in {"mainline-64.bin": mainline(64), "mainline-4096.bin": mainline(4096),
                   "series-256.bin": series(256), "errors.bin": errors()}.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(prog)
