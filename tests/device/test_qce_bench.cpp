// The engine alone on a bench (no BAM, no SoC, no Linux driver): the test writes its registers
// over TLM as the driver's register sequence does and plays the BAM's part itself, handing data
// in through the consumer side (bam_din) and taking the result dump from the producer side
// (bam_dout). SHA-256 of FIPS 180-2's "abc" and of two blocks; an operation starved of data
// (a hang from the engine's side) cleared by GOPROC.CLR_CNTXT and the next one right; the block
// reset putting every register back. Its own test binary (qcesim_qce_bench_tests), linking only
// the model, bam and qce layers. One elaboration per test (each its own process).
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "model/sha_core.h"
#include "qce/qce.h"
#include "qce/regs_v5.h"
#include "tests/device/bench.h"

using namespace qcesim;
using namespace qcesim::qce;

namespace {

class QceBench : public sc_core::sc_module {
 public:
  QceBench(sc_core::sc_module_name n, const QceConfig& cfg) : sc_core::sc_module(n), cpu("cpu"), qce("qce", cfg) {
    cpu.bind(qce.regs_socket);
    qce.bam_set_state_listener([this] { changed.notify(sc_core::SC_ZERO_TIME); });
  }

  void write(std::uint32_t off, std::uint32_t v) { access(tlm::TLM_WRITE_COMMAND, off, v); }
  std::uint32_t read(std::uint32_t off) { return access(tlm::TLM_READ_COMMAND, off, 0); }

  // qce_setup_regs_ahash's sequence for a one-shot SHA-256 of `len` bytes, GO with the dump.
  void program_sha256(std::uint32_t len) {
    write(REG_STATUS, 0);
    write(REG_CONFIG, kConfig);
    const ShaState iv = sha_initial_state(HashAlg::sha256);
    for (unsigned i = 0; i < 8; ++i) write(REG_AUTH_IV0 + 4 * i, iv.h[i]);
    for (unsigned i = 0; i < 4; ++i) write(REG_AUTH_BYTECNT0 + 4 * i, 0);
    write(REG_AUTH_SEG_CFG, (AUTH_ALG_SHA << AUTH_ALG_SHIFT) | (AUTH_MODE_HASH << AUTH_MODE_SHIFT) |
                                (AUTH_SIZE_SHA256 << AUTH_SIZE_SHIFT) | AUTH_FIRST | AUTH_LAST);
    write(REG_AUTH_SEG_SIZE, len);
    write(REG_AUTH_SEG_START, 0);
    write(REG_ENCR_SEG_CFG, 0);
    write(REG_SEG_SIZE, len);
    write(REG_CONFIG, kConfig | LITTLE_ENDIAN_MODE);
    write(REG_GOPROC, GO | RESULTS_DUMP);
  }
  // The BAM's part: the message into pipe 0 (one EOT descriptor), then the dump out of pipe 1.
  std::vector<std::uint8_t> feed_and_dump(const std::string& msg) {
    std::size_t given = 0;
    while (given < msg.size()) {
      sc_core::sc_time at;
      const auto* p = reinterpret_cast<const std::uint8_t*>(msg.data()) + given;
      given += qce.bam_din(0, p, msg.size() - given, true, true, sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME, at);
      if (given < msg.size()) sc_core::wait(changed);
    }
    return take_dump();
  }
  std::vector<std::uint8_t> take_dump() {
    std::vector<std::uint8_t> out(RESULT_DUMP_BYTES);
    std::size_t got = 0;
    bool eot = false;
    for (int tries = 0; got < out.size() && tries < 100; ++tries) {
      got += qce.bam_dout(1, out.data() + got, out.size() - got, eot);
      if (got < out.size()) sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    out.resize(got);
    return out;
  }

  tlm_utils::simple_initiator_socket<QceBench> cpu;
  Qce qce;
  sc_core::sc_event changed;

 private:
  // REQ_SIZE 7 (64-byte bursts), the engine's interrupts masked, pipe set 0.
  static constexpr std::uint32_t kConfig = (7u << REQ_SIZE_SHIFT) | MASK_DOUT_INTR | MASK_OP_DONE_INTR | MASK_ERR_INTR;

  std::uint32_t access(tlm::tlm_command cmd, std::uint32_t off, std::uint32_t v) {
    return test::reg_access(cpu, cmd, off, v);
  }
};

void run_bench(const QceConfig& cfg, const std::function<void(QceBench&)>& body) {
  QceBench bench("bench", cfg);
  test::run_on(bench, body);
}

// The digest in the dump's AUTH_IV words (big-endian, as the driver copies it out), as hex.
std::string digest_hex(const std::vector<std::uint8_t>& dump) {
  std::string s;
  for (unsigned i = 0; i < 32 && DUMP_AUTH_IV + i < dump.size(); ++i) {
    static const char* d = "0123456789abcdef";
    s += d[dump[DUMP_AUTH_IV + i] >> 4];
    s += d[dump[DUMP_AUTH_IV + i] & 15];
  }
  return s;
}

// FIPS 180-2 appendix B.1 and B.2 (also tests/vectors: SHA256ShortMsg).
const std::string kAbc = "abc";
const std::string kAbcDigest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const std::string kTwoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const std::string kTwoBlocksDigest = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";

}  // namespace

TEST(QceBench, Sha256ThroughTheRegisters) {
  run_bench(QceConfig{}, [](QceBench& b) {
    EXPECT_EQ(b.read(REG_VERSION), QceConfig{}.version);
    b.program_sha256(3);
    EXPECT_EQ(digest_hex(b.feed_and_dump(kAbc)), kAbcDigest);
    b.program_sha256(static_cast<std::uint32_t>(kTwoBlocks.size()));
    EXPECT_EQ(digest_hex(b.feed_and_dump(kTwoBlocks)), kTwoBlocksDigest);
    EXPECT_EQ(b.qce.stats().operations, 2u);
    EXPECT_EQ(b.qce.stats().errors, 0u);
  });
}

// An operation told to expect 64 bytes gets 3 and no more: it never finishes (no dump comes,
// STATUS keeps the core busy). GOPROC.CLR_CNTXT abandons it, as the driver's recovery does, and
// the next operation runs and is right. A GO while it hangs is refused (SW_ERR).
TEST(QceBench, AStarvedOperationIsClearedAndTheNextIsRight) {
  run_bench(QceConfig{}, [](QceBench& b) {
    b.program_sha256(64);
    sc_core::sc_time at;
    EXPECT_EQ(b.qce.bam_din(0, reinterpret_cast<const std::uint8_t*>(kAbc.data()), 3, false, false,
                            sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME, at),
              3u);
    EXPECT_TRUE(b.take_dump().empty());
    EXPECT_TRUE(b.qce.busy());
    b.write(REG_GOPROC, GO | RESULTS_DUMP);
    EXPECT_TRUE(b.read(REG_STATUS) & SW_ERR);
    b.write(REG_GOPROC, CLR_CNTXT);
    EXPECT_FALSE(b.qce.busy());
    b.program_sha256(3);
    EXPECT_EQ(digest_hex(b.feed_and_dump(kAbc)), kAbcDigest);
  });
}

// The block reset: the hung operation abandoned and every register back to its reset value
// (VERSION and ENGINES_AVAIL keep theirs); programmed again, the engine is right.
TEST(QceBench, TheBlockResetPutsEveryRegisterBack) {
  run_bench(QceConfig{}, [](QceBench& b) {
    const std::uint32_t avail = b.read(REG_ENGINES_AVAIL);
    b.program_sha256(64);
    EXPECT_TRUE(b.qce.busy());
    b.qce.reset();
    EXPECT_FALSE(b.qce.busy());
    for (std::uint32_t off : {REG_STATUS, REG_CONFIG, REG_SEG_SIZE, REG_AUTH_SEG_CFG, REG_AUTH_SEG_SIZE, REG_AUTH_IV0,
                              REG_AUTH_BYTECNT0, REG_ENCR_SEG_CFG, REG_CNTR0_IV0})
      EXPECT_EQ(b.read(off), 0u) << std::hex << off;
    EXPECT_EQ(b.read(REG_VERSION), QceConfig{}.version);
    EXPECT_EQ(b.read(REG_ENGINES_AVAIL), avail);
    b.program_sha256(3);
    EXPECT_EQ(digest_hex(b.feed_and_dump(kAbc)), kAbcDigest);
  });
}
