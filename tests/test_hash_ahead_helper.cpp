// model/hash_ahead.h alone, without SystemC: a posted job is used only for the same bytes at the
// same place from the same state. These tests also run in the ThreadSanitizer build
// (scripts/ci-sanitize.sh), which compiles only the helper and them.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <random>
#include <vector>

#include "model/hash_ahead.h"

using namespace qcesim;

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

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

TEST(HashAheadHelper, HashAheadHitGivesTheStateOfCompressingInLine) {
  const auto msg = random_bytes(4096 + 10, 1);
  HashAhead ha;
  ShaState from = sha_initial_state(HashAlg::sha256);
  from.h[0] ^= 1;                         // any starting state, not just the initial one
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

TEST(HashAheadHelper, HashAheadOtherBytesPlaceOrStateAreMisses) {
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
  EXPECT_FALSE(ha.take(st, copy.data(), copy.size()));  // equal bytes elsewhere
  EXPECT_FALSE(ha.take(st, msg.data(), 2048));          // fewer bytes
  msg[4000] ^= 0x80;                                    // the bytes changed after the post
  EXPECT_FALSE(ha.take(st, msg.data(), msg.size()));
  EXPECT_EQ(st.h, from.h);
  EXPECT_EQ(ha.stats().misses, 4u);
  EXPECT_EQ(ha.stats().hits, 0u);
}

TEST(HashAheadHelper, HashAheadRingOfPostsKeepsUpWithManyJobs) {
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

TEST(HashAheadHelper, ReadOnlyPagesProtectsWholePagesUntilItGoes) {
  const std::size_t page = ReadOnlyPages::page_size();
  Pages mem(3);
  ASSERT_NE(mem.p, MAP_FAILED);
  {
    ReadOnlyPages ro;
    EXPECT_FALSE(ro.protect(mem.p + 1, page));  // not on a page boundary
    EXPECT_FALSE(ro.protect(mem.p, page + 1));  // not whole pages
    ASSERT_TRUE(ro.protect(mem.p, 2 * page));
    EXPECT_TRUE(ro.covers(mem.p + 10, 100));
    EXPECT_FALSE(ro.covers(mem.p + 2 * page - 10, 20));  // runs into the writable page
    mem.p[2 * page] = 1;                                 // the third page stays writable
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(mem.p[page + 5] = 1, "");
  }
  mem.p[page + 5] = 2;  // writable again
  EXPECT_EQ(mem.p[page + 5], 2);
}

TEST(HashAheadHelper, HashAheadReadOnlyBytesAreHashedInPlace) {
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

// The replay's pattern at length, for the ThreadSanitizer build: batches of four posts with one
// publish, half of them in place on read-only pages, taken two batches behind, each result and
// padding checked against compressing in line.
TEST(HashAheadHelper, HashAheadThousandsOfBatchedJobsMatchInLineCompression) {
  const std::size_t page = ReadOnlyPages::page_size();
  Pages mem(16);
  ASSERT_NE(mem.p, MAP_FAILED);
  const auto bytes = random_bytes(mem.size, 6);
  std::copy(bytes.begin(), bytes.end(), mem.p);
  ReadOnlyPages ro;
  ASSERT_TRUE(ro.protect(mem.p, 8 * page));  // the first half in place, the second copied
  HashAhead ha;
  const ShaState from = sha_initial_state(HashAlg::sha256);
  auto at = [&](std::size_t job) { return mem.p + (job * 4096) % (mem.size - 4096); };
  constexpr std::size_t kJobs = 20000, kBehind = 8;
  std::size_t taken = 0;
  for (std::size_t posted = 0; posted < kJobs; posted += 4) {
    for (std::size_t k = 0; k < 4; ++k) ha.post(from, at(posted + k), 4096, &ro);
    ha.publish();
    for (; taken + kBehind <= posted && taken < kJobs; ++taken) {
      ShaState st = from, expect = from;
      sha_compress(expect, at(taken), 64);
      ASSERT_TRUE(ha.take(st, at(taken), 4096)) << taken;
      ASSERT_EQ(st.h, expect.h) << taken;
      ShaState padded = st;
      ASSERT_TRUE(ha.take_padded(padded)) << taken;
      ASSERT_EQ(padded.h, sha_pad(expect, nullptr, 0).h) << taken;
    }
  }
  ha.drain();
  EXPECT_EQ(ha.stats().posted, kJobs);
  EXPECT_GT(ha.stats().in_place, kJobs / 4);
  EXPECT_EQ(ha.stats().hits, taken);
}
