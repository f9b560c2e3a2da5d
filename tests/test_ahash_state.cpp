// qce_ahash_export / qce_ahash_import as the emulated driver does them: the 2021+ driver's
// struct qce_sha_saved_state byte for byte, a round trip that gives the same digest wherever it
// falls, a state the driver could not take refused, and the 2020 driver's import refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "drivers/crypto/qce/sha.h"
#include "model/byte_order.h"
#include "model/sha_core.h"
#include "tests/emu_helpers.h"

namespace qce = qcesim::qce;
namespace test = qcesim::test;
namespace soc = qcesim::soc;
namespace cpu = qcesim::cpu;
using qcesim::HashAlg;
using qcesim::ShaState;

namespace {

std::uint64_t le(const std::vector<std::uint8_t>& s, std::size_t at, std::size_t bytes) {
  return qcesim::load_le(s.data() + at, bytes);
}

std::vector<std::uint8_t> message(std::size_t n) {
  std::vector<std::uint8_t> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return m;
}

}  // namespace

// struct qce_sha_saved_state as arm64's ABI lays it out (a mirror with the driver's field types):
// the offsets the emulated driver writes at.
struct SavedStateMirror {
  std::uint8_t pending_buf[64];
  std::uint8_t partial_digest[32];
  std::uint32_t byte_count[2];
  unsigned int pending_buflen;
  unsigned int flags;
  std::uint64_t count;
  bool first_blk;
};
static_assert(sizeof(SavedStateMirror) == 128 && qce::AhashSavedStateLayout::size == 128);
static_assert(offsetof(SavedStateMirror, partial_digest) == qce::AhashSavedStateLayout::partial_digest);
static_assert(offsetof(SavedStateMirror, byte_count) == qce::AhashSavedStateLayout::byte_count);
static_assert(offsetof(SavedStateMirror, pending_buflen) == qce::AhashSavedStateLayout::pending_buflen);
static_assert(offsetof(SavedStateMirror, flags) == qce::AhashSavedStateLayout::flags);
static_assert(offsetof(SavedStateMirror, count) == qce::AhashSavedStateLayout::count);
static_assert(offsetof(SavedStateMirror, first_blk) == qce::AhashSavedStateLayout::first_blk);

// After an update of 100 bytes the engine has hashed one block and the driver holds 36 back:
// the state says so field by field, at the struct's offsets on arm64 (written out here).
TEST(AhashState, TheExportedStateIsTheDriversStructFieldByField) {
  const std::vector<std::uint8_t> m = message(100);
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    cpu::DmaBuf buf = e.host().dma_alloc(m.size(), 64);
    std::memcpy(buf.ptr, m.data(), m.size());
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    EXPECT_EQ(h.statesize(), 128u);
    // Before any update: the standard IV as qce_ahash_init's u32 array, first_blk set.
    std::vector<std::uint8_t> s = h.export_state();
    ASSERT_EQ(s.size(), 128u);
    EXPECT_EQ(le(s, 64, 4), 0x6a09e667u);
    EXPECT_EQ(s[120], 1);
    EXPECT_EQ(le(s, 108, 4), 1u << 4);  // QCE_HASH_SHA256
    h.update(buf.addr, 100);
    s = h.export_state();
    EXPECT_EQ(le(s, 104, 4), 36u);
    EXPECT_EQ(le(s, 112, 8), 100u);
    EXPECT_EQ(s[120], 0);
    EXPECT_EQ(std::vector<std::uint8_t>(s.begin(), s.begin() + 36), std::vector<std::uint8_t>(m.begin() + 64, m.end()));
    ShaState one = qcesim::sha_initial_state(HashAlg::sha256);
    qcesim::sha_compress(one, m.data(), 1);
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(qcesim::load_be32(s.data() + 64 + 4 * i), one.h[i]) << i;
    EXPECT_EQ(qcesim::load_be32(s.data() + 96), 64u);  // the engine's count, as a __be32
    EXPECT_EQ(qcesim::load_be32(s.data() + 100), 0u);
    // HMAC(SHA-1) after a request: its flag (QCE_HASH_SHA1_HMAC), and the engine's count, which
    // includes the key block the engine hashed first.
    qce::QceAhash hm(e.qce(), e.task(), HashAlg::sha1, std::vector<std::uint8_t>{1, 2, 3});
    hm.update(buf.addr, 100);
    s = hm.export_state();
    EXPECT_EQ(le(s, 108, 4), 1u << 5);
    EXPECT_EQ(le(s, 104, 4), 36u);
    EXPECT_EQ(qcesim::load_be32(s.data() + 96), 128u);
    e.host().dma_free(buf);
  });
}

// Exported after any update and imported into a new request, the hash goes on as if nothing
// happened (SHA-1, SHA-256 and HMAC; pending lengths 0 to 64); the 2020 driver's sizes are the
// generic structs'.
TEST(AhashState, ARoundTripAfterAnyUpdateGivesTheSameDigest) {
  const std::vector<std::uint8_t> m = message(1000), key = {0x4a, 0x65, 0x66, 0x65};
  test::with_emulator(qce::RegIo::bam, [&](soc::Emulator& e) {
    cpu::DmaBuf buf = e.host().dma_alloc(m.size(), 64);
    std::memcpy(buf.ptr, m.data(), m.size());
    for (const HashAlg alg : {HashAlg::sha1, HashAlg::sha256})
      for (const bool hmac : {false, true}) {
        auto make = [&] {
          return hmac ? std::make_unique<qce::QceAhash>(e.qce(), e.task(), alg, key)
                      : std::make_unique<qce::QceAhash>(e.qce(), e.task(), alg);
        };
        const std::vector<std::uint8_t> want =
            hmac ? qcesim::hmac_digest(alg, key, m.data(), m.size()) : qcesim::sha_digest(alg, m.data(), m.size());
        for (const std::uint32_t step : {1u, 63u, 64u, 65u, 200u}) {
          auto h = make();
          for (std::uint32_t at = 0; at < 1000; at += step) {
            h->update(buf.addr + at, std::min(step, 1000 - at));
            const std::vector<std::uint8_t> st = h->export_state();
            h = make();
            h->import_state(st);
          }
          EXPECT_EQ(h->final(), want) << qcesim::hash_alg_name(alg) << (hmac ? " hmac" : "") << " step " << step;
        }
      }
    e.host().dma_free(buf);
  });
  EXPECT_EQ(qce::ahash_statesize(HashAlg::sha1, 2020), 96u);
  EXPECT_EQ(qce::ahash_statesize(HashAlg::sha256, 2020), 104u);
  EXPECT_EQ(qce::ahash_statesize(HashAlg::sha256, 2021), 128u);
}

// What the driver could not take: another size, another algorithm's flags, a pending length past
// rctx->buf (the driver's memcpy would overrun it).
TEST(AhashState, AStateTheDriverCouldNotTakeIsRefused) {
  using L = qce::AhashSavedStateLayout;
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    const std::vector<std::uint8_t> good = h.export_state();
    auto refused = [&](std::vector<std::uint8_t> s, const std::string& why) {
      try {
        h.import_state(s);
        ADD_FAILURE() << why;
      } catch (const qce::QceError& x) {
        EXPECT_NE(std::string(x.what()).find(why), std::string::npos) << x.what();
      }
    };
    refused(std::vector<std::uint8_t>(104), "not the driver's statesize 128");
    std::vector<std::uint8_t> s = good;
    s[L::flags] = static_cast<std::uint8_t>(qce::kQceHashSha1);
    refused(s, "another algorithm's");
    s = good;
    s[L::pending_buflen] = 65;
    refused(s, "pending_buflen 65");
    s = good;
    s[L::pending_buflen + 3] = 0x80;
    refused(s, "unchecked");
    s = good;
    s[120] = 0;  // first_blk cleared, nothing pending: final would give hash_zero
    refused(s, "pending_buflen 0 after the first block");
    EXPECT_NO_THROW(h.import_state(good));  // and the good one still goes in
  });
}

// The 2020 driver exports the generic struct sha256_state (104 bytes) and its import cannot take
// it back: it read rctx->flags from the request it restored into (v5.9 re-initialised it first).
TEST(AhashState, The2020DriversImportIsRefused) {
  qce::QceRules r2020;
  r2020.era = 2020;
  test::with_emulator(qce::RegIo::mmio, r2020, [&](soc::Emulator& e) {
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    const std::vector<std::uint8_t> s = h.export_state();
    EXPECT_EQ(s.size(), 104u);
    // struct sha256_state: state[0], the init IV's little-endian word byte-swapped by the export's
    // qce_cpu_to_be32p_array.
    EXPECT_EQ(le(s, 0, 4), 0x67e6096au);
    try {
      h.import_state(s);
      ADD_FAILURE();
    } catch (const qce::QceError& x) {
      EXPECT_NE(std::string(x.what()).find("re-initialize context on import"), std::string::npos) << x.what();
    }
  });
}
