// Random messages from 0 to 200000 bytes, the block and descriptor boundaries among them,
// through the emulated engine against OpenSSL: one-shot digests and init/update/final with
// random update sizes (many requests carrying IV and byte count), plain and HMAC.
#include <gtest/gtest.h>

#include <random>

#include "tests/emu_helpers.h"

using namespace qcesim;
using test::hex;

namespace {

std::vector<std::size_t> sizes_under_test() {
  std::vector<std::size_t> s{0,     1,     3,     55,    56,    57,    63,     64,     65,    119,   120,
                             127,   128,   129,   1000,  4095,  4096,  4097,   32759,  32760, 32761, 32768,
                             65519, 65520, 65521, 65536, 98280, 98281, 131072, 199999, 200000};
  std::mt19937 rng(2026);
  std::uniform_int_distribution<std::size_t> d(0, 200000);
  for (int i = 0; i < 30; ++i) s.push_back(d(rng));
  return s;
}

std::vector<std::uint8_t> random_message(std::size_t n, std::mt19937& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

void random_digests(qce::RegIo io, HashAlg alg, bool hmac) {
  std::mt19937 rng(static_cast<unsigned>(7 + static_cast<int>(alg) * 3 + (hmac ? 1 : 0)));
  std::optional<std::vector<std::uint8_t>> key;
  if (hmac) key = random_message(37, rng);
  test::with_emulator(io, [&](soc::Emulator& e) {
    for (std::size_t n : sizes_under_test()) {
      const auto msg = random_message(n, rng);
      const auto want = hex(hmac ? test::openssl_hmac(alg, *key, msg) : test::openssl_digest(alg, msg));
      ASSERT_EQ(hex(test::qce_digest(e, alg, msg, key)), want) << "digest of " << n << " bytes";
      // The same message in random update() pieces: several engine requests.
      std::vector<std::size_t> cuts;
      std::uniform_int_distribution<std::size_t> piece(1, 70000);
      for (std::size_t off = 0; off < n;) {
        cuts.push_back(std::min(piece(rng), n - off));
        off += cuts.back();
      }
      std::uint64_t requests = 0;
      ASSERT_EQ(hex(test::qce_hash_chunked(e, alg, msg, cuts, key, &requests)), want)
          << "update/final of " << n << " bytes in " << cuts.size() << " pieces";
      if (n > 128 && cuts.size() > 2) {
        EXPECT_GE(requests, 2u);
      }
    }
  });
}

}  // namespace

TEST(RandomVsOpenSsl, Sha256_mmio) { random_digests(qce::RegIo::mmio, HashAlg::sha256, false); }
TEST(RandomVsOpenSsl, Sha256_bam) { random_digests(qce::RegIo::bam, HashAlg::sha256, false); }
TEST(RandomVsOpenSsl, Sha1_mmio) { random_digests(qce::RegIo::mmio, HashAlg::sha1, false); }
TEST(RandomVsOpenSsl, Sha1_bam) { random_digests(qce::RegIo::bam, HashAlg::sha1, false); }
TEST(RandomVsOpenSsl, HmacSha256_mmio) { random_digests(qce::RegIo::mmio, HashAlg::sha256, true); }
TEST(RandomVsOpenSsl, HmacSha256_bam) { random_digests(qce::RegIo::bam, HashAlg::sha256, true); }
TEST(RandomVsOpenSsl, HmacSha1_mmio) { random_digests(qce::RegIo::mmio, HashAlg::sha1, true); }

// One message of 1 MiB + 13 bytes in updates of 64 KiB - 1: every request but the last
// carries a partial block forward in the driver and IV/byte count forward in the engine.
TEST(RandomVsOpenSsl, MultiRequestStateCarriesAcrossManyRequests) {
  std::mt19937 rng(11);
  const auto msg = random_message((1u << 20) + 13, rng);
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    std::vector<std::size_t> cuts((msg.size() + 65534) / 65535, 65535);
    std::uint64_t requests = 0;
    EXPECT_EQ(hex(test::qce_hash_chunked(e, HashAlg::sha256, msg, cuts, std::nullopt, &requests)),
              hex(test::openssl_digest(HashAlg::sha256, msg)));
    EXPECT_EQ(requests, cuts.size() + 1);  // one per update, plus final
    // The engine's byte count after the last request covers the whole message.
    EXPECT_EQ(e.soc().qce.stats().operations, requests);
  });
}

// A message longer than the FIFO holds (4095 descriptors of 32760 bytes is ~134 MB) is not
// needed to fill it: 4096 descriptors of 64 bytes do, and the driver reloads on interrupt.
TEST(RandomVsOpenSsl, MultiRequestRequestWithMoreDescriptorsThanTheRing) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    std::mt19937 rng(12);
    const std::size_t n = 5000 * 64;
    const auto msg = random_message(n, rng);
    cpu::DmaBuf b = test::load(e.host(), msg);
    qce::ShaRequest req;
    req.carry.iv = sha_initial_state(HashAlg::sha256).h;
    for (std::size_t i = 0; i < 5000; ++i) req.src.push_back({b.addr + i * 64, 64});
    req.nbytes = static_cast<std::uint32_t>(n);
    e.qce().run_sha(e.task(), req);
    EXPECT_EQ(hex(req.digest), hex(test::openssl_digest(HashAlg::sha256, msg)));
    EXPECT_EQ(e.soc().bam.pipe_stats(4).descriptors, 5000u);
    EXPECT_EQ(e.bam_dma().chan(4).stats.doorbells, 2u);  // 4095, then the other 905
  });
}
