// model/hash_ahead.h: a posted job is used only for the same bytes at the same place from the
// same state, and the engine's digests are the same with and without it.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>

#include "model/hash_ahead.h"
#include "model/soc.h"
#include "qce/qce_sha.h"
#include "tests/emu_helpers.h"

using namespace qcesim;
using test::hex;
using test::random_bytes;

TEST(HashAhead, HitGivesTheStateOfCompressingInLine) {
  const auto msg = random_bytes(4096 + 10, 1);
  HashAhead ha;
  ShaState from = sha_initial_state(HashAlg::sha256);
  from.h[0] ^= 1;  // any starting state, not just the initial one
  ha.post(from, msg.data(), msg.size());  // whole blocks only: 4096 bytes
  ShaState expect = from;
  sha_compress(expect, msg.data(), 64);
  ShaState st = from;
  ASSERT_TRUE(ha.take(st, msg.data(), 4096));
  EXPECT_EQ(st.h, expect.h);
  EXPECT_EQ(st.byte_count, 4096u);
  EXPECT_EQ(ha.stats().hits, 1u);
  // The padding after the taken state, as sha_finish would add it: only for that state, once.
  ShaState other = st;
  other.h[7] ^= 1;
  EXPECT_FALSE(ha.take_padded(other));
  ShaState padded = st;
  ASSERT_TRUE(ha.take_padded(padded));
  EXPECT_EQ(padded.h, sha_pad(expect, nullptr, 0).h);
  EXPECT_FALSE(ha.take_padded(st));
  // A job is used once.
  ShaState again = from;
  EXPECT_FALSE(ha.take(again, msg.data(), 4096));
}

TEST(HashAhead, OtherBytesPlaceOrStateAreMisses) {
  auto msg = random_bytes(4096, 2);
  const auto copy = msg;
  HashAhead ha;
  const ShaState from = sha_initial_state(HashAlg::sha256);
  ha.post(from, msg.data(), msg.size());
  ha.drain();
  ShaState other = from;
  other.byte_count = 64;
  EXPECT_FALSE(ha.take(other, msg.data(), msg.size()));  // another starting state
  ShaState st = from;
  EXPECT_FALSE(ha.take(st, copy.data(), copy.size()));   // equal bytes elsewhere
  EXPECT_FALSE(ha.take(st, msg.data(), 2048));           // fewer bytes
  msg[4000] ^= 0x80;                                      // the bytes changed after the post
  EXPECT_FALSE(ha.take(st, msg.data(), msg.size()));
  EXPECT_EQ(st.h, from.h);
  EXPECT_EQ(ha.stats().misses, 4u);
  EXPECT_EQ(ha.stats().hits, 0u);
}

TEST(HashAhead, RingOfPostsKeepsUpWithManyJobs) {
  const auto msgs = random_bytes(64 * 1024, 3);
  HashAhead ha;
  const ShaState from = sha_initial_state(HashAlg::sha1);
  for (std::size_t i = 0; i < 64; ++i) {
    ha.post(from, msgs.data() + 1024 * i, 1024);
    if (i >= 2) {  // taken two behind the posts, as the replay does
      ShaState st = from, expect = from;
      sha_compress(expect, msgs.data() + 1024 * (i - 2), 16);
      ASSERT_TRUE(ha.take(st, msgs.data() + 1024 * (i - 2), 1024)) << i;
      EXPECT_EQ(st.h, expect.h) << i;
    }
  }
  EXPECT_EQ(ha.stats().hits, 62u);
}

namespace {
// The engine with a hash-ahead helper: a message posted before the request.
std::vector<std::uint8_t> engine_digest(bool change_after_post, HashAheadStats& stats, std::size_t bytes = 4096 + 100) {
  model::EmulatorConfig cfg;
  cfg.soc.qce.hash_ahead = true;
  model::Emulator emu(cfg);
  std::vector<std::uint8_t> d;
  emu.run([&](model::Emulator& e) {
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

namespace {
// Page-aligned host memory for the read-only tests.
struct Pages {
  explicit Pages(std::size_t n) : size(n * ReadOnlyPages::page_size()) {
    p = static_cast<std::uint8_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~Pages() { munmap(p, size); }
  std::size_t size;
  std::uint8_t* p;
};
}  // namespace

TEST(ReadOnlyPages, ProtectsWholePagesUntilItGoes) {
  const std::size_t page = ReadOnlyPages::page_size();
  Pages mem(3);
  ASSERT_NE(mem.p, MAP_FAILED);
  {
    ReadOnlyPages ro;
    EXPECT_FALSE(ro.protect(mem.p + 1, page));      // not on a page boundary
    EXPECT_FALSE(ro.protect(mem.p, page + 1));      // not whole pages
    ASSERT_TRUE(ro.protect(mem.p, 2 * page));
    EXPECT_TRUE(ro.covers(mem.p + 10, 100));
    EXPECT_FALSE(ro.covers(mem.p + 2 * page - 10, 20));  // runs into the writable page
    mem.p[2 * page] = 1;                                  // the third page stays writable
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(mem.p[page + 5] = 1, "");
  }
  mem.p[page + 5] = 2;  // writable again
  EXPECT_EQ(mem.p[page + 5], 2);
}

TEST(HashAhead, ReadOnlyBytesAreHashedInPlace) {
  const std::size_t page = ReadOnlyPages::page_size();
  Pages mem(2);
  ASSERT_NE(mem.p, MAP_FAILED);
  const auto bytes = random_bytes(2 * page, 5);
  std::copy(bytes.begin(), bytes.end(), mem.p);
  ReadOnlyPages ro;
  ASSERT_TRUE(ro.protect(mem.p, 2 * page));
  HashAhead ha;
  const ShaState from = sha_initial_state(HashAlg::sha256);
  ha.post(from, mem.p, 4096, &ro);
  ha.post(from, mem.p + 64, 4096, &ro);
  ShaState expect = from, st = from;
  sha_compress(expect, bytes.data() + 64, 64);
  ASSERT_TRUE(ha.take(st, mem.p + 64, 4096));
  EXPECT_EQ(st.h, expect.h);
  expect = st = from;
  sha_compress(expect, bytes.data(), 64);
  ASSERT_TRUE(ha.take(st, mem.p, 4096));
  EXPECT_EQ(st.h, expect.h);
  EXPECT_EQ(ha.stats().hits, 2u);
  EXPECT_EQ(ha.stats().in_place, 2u);
  ha.post(from, bytes.data(), 4096, &ro);  // not on the read-only pages: copied
  EXPECT_EQ(ha.stats().in_place, 2u);
}
