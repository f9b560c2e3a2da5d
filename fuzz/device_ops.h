// The device fuzzer: an input is a program of register reads and writes, descriptor rings,
// command elements and data, run against the SM8650 BAM and crypto engine models (no driver),
// in the spirit of QEMU's generic-fuzz. Each input starts from reset pipes, a cleared engine
// context and a zeroed 64 KiB memory window; pointers an input writes into descriptors and
// rings land in that window, so the hardware really fetches, streams and writes back.
//
// Op codes (one byte each, then operands, little-endian; the input ends the program):
//   0 BAM write  (u16 word offset, u32 value)     1 BAM read  (u16 word offset)
//   2 QCE write  (u16 word offset, u32 value)     3 QCE read  (u16 word offset)
//   4 descriptor (u16 slot, u16 window offset, u16 size, u16 flags): slot s is descriptor s % 64
//     of pipe s / 64's ring (window 0x0000 + 0x200 per pipe)
//   5 command element (u8 slot, u8 command, u16 engine word offset, u32 data, u32 mask) at
//     window 0x1000 + 16 x slot; a read's destination lands in the window
//   6 data (u8 block, 16 bytes) at window 0x2000 + 16 x block
//   7 pipe set-up (u8 pipe, u8 mode: bit 0 producer, bits 1-2 EE, bits 3-5 ring of 8 x (n + 1)
//     descriptors) on that pipe's ring
//   8 doorbell (u8 pipe, u8 descriptors: P_EVNT_REG = 8 x (n mod 65))   9 wait (u8: (n + 1) x 100 ns)
// Guest programming errors must end as the documented pipe errors, P_ERR or engine STATUS bits, or
// a bus error for a missing register; any other exception, a crash or a hang is a finding.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qcesim::fuzz {

// Elaborates the platform (once per process) and starts the program runner.
void device_elaborate();
// Runs one input (libFuzzer's callback).
int device_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace qcesim::fuzz
