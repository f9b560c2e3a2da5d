// model/hash_ahead.h inside the engine: the engine's digests are the same with and without it.
// The helper alone, and read-only pages: tests/test_hash_ahead_helper.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/hash_ahead.h"
#include "soc/soc.h"
#include "drivers/crypto/qce/sha.h"
#include "tests/emu_helpers.h"

using namespace qcesim;
using test::hex;
using test::random_bytes;

namespace {
// The engine with a hash-ahead helper: a message posted before the request.
std::vector<std::uint8_t> engine_digest(bool change_after_post, HashAheadStats& stats, std::size_t bytes = 4096 + 100) {
  soc::EmulatorConfig cfg;
  cfg.soc.qce.hash_ahead = true;
  soc::Emulator emu(cfg);
  std::vector<std::uint8_t> d;
  emu.run([&](soc::Emulator& e) {
    const auto msg = random_bytes(bytes, 4);
    cpu::DmaBuf b = test::load(e.host(), msg);
    HashAhead& ha = *e.soc().qce.hash_ahead();
    ha.post(sha_initial_state(HashAlg::sha256), b.ptr, msg.size());
    ha.drain();
    if (change_after_post) b.ptr[17] ^= 1;
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    d = h.digest(b.addr, static_cast<std::uint32_t>(msg.size()));
    auto now = msg;
    if (change_after_post) now[17] ^= 1;
    EXPECT_EQ(hex(d), hex(test::openssl_digest(HashAlg::sha256, now)));
    stats = ha.stats();
  });
  return d;
}
}  // namespace

TEST(HashAhead, EngineTakesThePostedJob) {
  HashAheadStats s;
  engine_digest(false, s);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.padded, 0u);  // 4196 bytes: a partial block is left, the engine pads it
}

TEST(HashAhead, EngineTakesThePaddingOfAWholeBlockMessage) {
  HashAheadStats s;
  engine_digest(false, s, 4096);  // checked against OpenSSL inside
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.padded, 1u);
}

TEST(HashAhead, EngineHashesChangedBytesItself) {
  HashAheadStats s;
  engine_digest(true, s);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 1u);
}
