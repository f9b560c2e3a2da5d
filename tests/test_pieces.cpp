// Pure C++ pieces: hash core state import/export, padding, HMAC, hex, checksum lines,
// the DMA allocator and the register bank. No SystemC elaboration here.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cli/hash_command.h"
#include "cli/hex.h"
#include "cpu/ce_sha.h"
#include "cpu/host.h"
#include "model/register_bank.h"
#include "model/sha_core.h"
#include "tests/emu_helpers.h"

using namespace qcesim;
using test::hex;
using test::random_bytes;

TEST(Pieces, ShaCoreCompressInPiecesEqualsOneShot) {
  for (HashAlg alg : {HashAlg::sha1, HashAlg::sha256}) {
    const auto msg = random_bytes(64 * 10, 1);
    ShaState a = sha_initial_state(alg);
    sha_compress(a, msg.data(), 3);
    // Export, then import into a fresh state as an engine would between requests.
    ShaState b = sha_initial_state(alg);
    b.h = a.h;
    b.byte_count = a.byte_count;
    sha_compress(b, msg.data() + 3 * 64, 7);
    EXPECT_EQ(b.byte_count, 640u);
    EXPECT_EQ(hex(sha_finish(b, nullptr, 0)), hex(test::openssl_digest(alg, msg)));
  }
}

TEST(Pieces, ShaCorePaddingAtEveryLengthUpTo200) {
  for (HashAlg alg : {HashAlg::sha1, HashAlg::sha256}) {
    const auto data = random_bytes(200, 2);
    for (std::size_t n = 0; n <= 200; ++n) {
      std::vector<std::uint8_t> msg(data.begin(), data.begin() + static_cast<long>(n));
      ASSERT_EQ(hex(sha_digest(alg, msg.data(), n)), hex(test::openssl_digest(alg, msg))) << "length " << n;
    }
  }
}

TEST(Pieces, ShaCoreStreamAcceptsAnySplit) {
  const auto msg = random_bytes(1000, 3);
  ShaStream s(HashAlg::sha256);
  std::size_t off = 0;
  for (std::size_t step : {1u, 7u, 63u, 64u, 65u, 200u, 600u}) {
    s.update(msg.data() + off, step);
    off += step;
  }
  ASSERT_EQ(off, 1000u);
  EXPECT_EQ(hex(s.finish()), hex(test::openssl_digest(HashAlg::sha256, msg)));
}

TEST(Pieces, ShaCoreHmacMatchesOpenSslForShortBlockAndLongKeys) {
  const auto msg = random_bytes(300, 4);
  for (HashAlg alg : {HashAlg::sha1, HashAlg::sha256}) {
    for (std::size_t klen : {0u, 1u, 20u, 32u, 64u, 65u, 131u}) {
      const auto key = random_bytes(klen, 5);
      EXPECT_EQ(hex(hmac_digest(alg, key, msg.data(), msg.size())), hex(test::openssl_hmac(alg, key, msg)))
          << hash_alg_name(alg) << " key " << klen;
      cpu::CeSha ce(alg, key);
      ce.update(msg.data(), msg.size());
      EXPECT_EQ(hex(ce.final()), hex(test::openssl_hmac(alg, key, msg)));
    }
  }
}

TEST(Pieces, HexParsesAndExplainsErrors) {
  EXPECT_EQ(hex(*cli::parse_hex("00ffA0")), "00ffa0");
  std::string why;
  EXPECT_FALSE(cli::parse_hex("abc", &why));
  EXPECT_NE(why.find("even number"), std::string::npos);
  EXPECT_FALSE(cli::parse_hex("zz", &why));
  EXPECT_NE(why.find("'z'"), std::string::npos);
}

TEST(Pieces, ChecksumLineMatchesSha256sumEscaping) {
  const std::vector<std::uint8_t> d{0xab, 0xcd};
  EXPECT_EQ(cli::checksum_line(d, "file.bin"), "abcd  file.bin");
  EXPECT_EQ(cli::checksum_line(d, "-"), "abcd  -");
  EXPECT_EQ(cli::checksum_line(d, "a\\b"), "\\abcd  a\\\\b");
  EXPECT_EQ(cli::checksum_line(d, "a\nb"), "\\abcd  a\\nb");
}

TEST(Pieces, DmaAllocatorAlignsSplitsAndCoalesces) {
  cpu::DmaAllocator a(0x1000, 0x10000);
  const auto x = a.alloc(100, 64);
  const auto y = a.alloc(5000, 4096);
  EXPECT_EQ(x % 64, 0u);
  EXPECT_EQ(y % 4096, 0u);
  EXPECT_GE(y, x + 100);
  a.free(x);
  a.free(y);
  EXPECT_EQ(a.bytes_free(), 0x10000u);
  EXPECT_EQ(a.alloc(0x10000, 1), 0x1000u);  // all one block again
  EXPECT_THROW(a.alloc(1, 1), std::bad_alloc);
}

// A burst write that reaches a missing register takes no effect at all; a whole one writes
// each word in order.
TEST(Pieces, RegisterBankBurstWriteIsAllOrNothing) {
  model::RegisterBank bank("t");
  bank.add("A", 0x0, 0);
  bank.add("B", 0x4, 0);
  std::uint32_t words[3] = {1, 2, 3};
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(words));
  t.set_data_length(12);
  t.set_address(0x0);
  bank.transport(t);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bank.at(0x0).value, 0u);
  t.set_data_length(8);
  bank.transport(t);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(bank.at(0x0).value, 1u);
  EXPECT_EQ(bank.at(0x4).value, 2u);
}

TEST(Pieces, RegisterBankAccessKindsAndDecode) {
  model::RegisterBank bank("t");
  bank.add("RW", 0x0, 0x11);
  bank.add("RO", 0x4, 0x22, model::Access::ro);
  bank.add("WO", 0x8, 0, model::Access::wo);
  std::uint32_t v = 0;
  EXPECT_TRUE(bank.write(0x4, 0x99));  // ignored, like the hardware
  EXPECT_TRUE(bank.read(0x4, v));
  EXPECT_EQ(v, 0x22u);
  EXPECT_TRUE(bank.write(0x8, 0x55));
  EXPECT_TRUE(bank.read(0x8, v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(bank.read(0xC, v));

  tlm::tlm_generic_payload t;
  std::uint32_t data = 0;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
  t.set_data_length(4);
  t.set_address(0x2);
  bank.transport(t);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
  t.set_address(0x0);
  bank.transport(t);
  EXPECT_TRUE(t.is_response_ok());
  EXPECT_EQ(data, 0x11u);
  t.set_address(0x10);
  bank.transport(t);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);

  // Sparse offsets, as a BAM's pipe windows are: the decode finds each, and nothing between, below
  // or beyond them (the table is made in 1 KiB pages where registers land).
  bank.add("FAR", 0x13004, 0x33);
  bank.add("FARTHER", 0x7F3FC, 0x44);
  EXPECT_TRUE(bank.read(0x13004, v));
  EXPECT_EQ(v, 0x33u);
  EXPECT_TRUE(bank.read(0x7F3FC, v));
  EXPECT_EQ(v, 0x44u);
  for (std::uint32_t off : {0x13000u, 0x13008u, 0x12FFCu, 0x40000u, 0x7F400u, 0xFFFFFFFCu})
    EXPECT_FALSE(bank.read(off, v)) << std::hex << off;
  EXPECT_THROW(bank.add("AGAIN", 0x13004), std::invalid_argument);
}
