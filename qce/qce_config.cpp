#include "qce/qce.h"

namespace qcesim::qce {

QceConfig qce_config(const model::Profile& p) {
  QceConfig c;
  const double hz = p.num("qce.clock") * 1e6;
  auto cycles = [hz](double n) { return sc_core::sc_time(n / hz, sc_core::SC_SEC); };
  c.block_sha256 = cycles(p.num("qce.cycles_per_block_sha256"));
  c.block_sha1 = cycles(p.num("qce.cycles_per_block_sha1"));
  c.block_aes128 = cycles(p.num("qce.cycles_per_block_aes128"));
  c.block_aes256 = cycles(p.num("qce.cycles_per_block_aes256"));
  c.block_des = cycles(p.num("qce.cycles_per_block_des"));
  c.block_3des = cycles(p.num("qce.cycles_per_block_3des"));
  c.go_latency = p.time("qce.go_latency");
  c.finish = p.time("qce.finish");
  c.finish_cipher = c.finish * p.num("qce.finish_cipher_share");
  c.fifo_bursts = static_cast<unsigned>(p.num("qce.fifo_bursts"));
  return c;
}

}  // namespace qcesim::qce
