// The sideband between a BAM and its peripheral (here the crypto engine): consumer pipes push
// data into the peripheral, producer pipes pull data out, and the NWD handshake asks whether the
// peripheral has finished the transaction a pipe fed. The functional model moves runs of
// 64-byte bursts per call; the peripheral may take fewer bytes than offered (back-pressure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <systemc>

namespace qcesim::bam {

class BamPeripheralIf : public virtual sc_core::sc_interface {
 public:
  // Consumer pipe to peripheral: bursts flow from `start` (now or later: the descriptor may
  // still be in fetch), one 64-byte burst per `burst_time`. Returns the bytes taken (0: not
  // ready now) and in `delivered_at` when the last of them has gone over, back-pressure from
  // the peripheral's input FIFO included. `desc_end` marks that the offered run ends a
  // descriptor, `eot` that it ends an EOT descriptor.
  virtual std::size_t bam_din(unsigned pipe, const std::uint8_t* data, std::size_t len, bool desc_end, bool eot,
                              const sc_core::sc_time& start, const sc_core::sc_time& burst_time,
                              sc_core::sc_time& delivered_at) = 0;
  // Producer pipe from peripheral. Copies up to `max` bytes into dst; sets `eot` when the
  // copied run ends the peripheral's transfer.
  virtual std::size_t bam_dout(unsigned pipe, std::uint8_t* dst, std::size_t max, bool& eot) = 0;
  // NWD: has the transaction fed through this pipe finished?
  virtual bool bam_transaction_done(unsigned pipe) const = 0;
  // The BAM's listener, called at once whenever any answer above may have changed (a direct
  // call: no method in between, so a waiting pipe runs in the same delta cycle).
  virtual void bam_set_state_listener(std::function<void()> fn) = 0;
};

}  // namespace qcesim::bam
