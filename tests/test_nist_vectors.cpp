// Every NIST SHA-1/SHA-256 ShortMsg, LongMsg and Monte vector, HMAC.rsp (L=20, L=32) and
// RFC 4231, through the full emulated path (driver, BAM descriptors, QCE, result dump), in
// both register-I/O modes. One TEST per file and mode: one elaboration per process.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/emu_helpers.h"
#include "tests/testdata.h"

using namespace qcesim;
using test::hex;
using test::unhex;

namespace {

// ShortMsg/LongMsg: Len is in bits; Len = 0 carries a placeholder "00" message.
void check_msg_file(qce::RegIo io, HashAlg alg, const std::string& file, std::size_t expected_records) {
  const auto recs = test::parse_rsp(file);
  std::size_t checked = 0;
  test::with_emulator(io, [&](soc::Emulator& e) {
    for (const auto& r : recs) {
      if (!r.fields.count("Len")) continue;
      auto msg = unhex(r.at("Msg"));
      msg.resize(std::stoul(r.at("Len")) / 8);
      ASSERT_EQ(hex(test::qce_digest(e, alg, msg)), r.at("MD")) << file << " Len=" << r.at("Len");
      ++checked;
    }
  });
  EXPECT_EQ(checked, expected_records);
}

// SHAVS Monte Carlo: MD_i = H(MD_{i-3} || MD_{i-2} || MD_{i-1}), 1000 per checkpoint.
void check_monte(qce::RegIo io, HashAlg alg, const std::string& file) {
  const auto recs = test::parse_rsp(file);
  std::vector<std::uint8_t> seed;
  std::vector<std::string> expected;
  for (const auto& r : recs) {
    if (r.fields.count("Seed")) seed = unhex(r.at("Seed"));
    if (r.fields.count("MD")) expected.push_back(r.at("MD"));
  }
  ASSERT_EQ(expected.size(), 100u);
  test::with_emulator(io, [&](soc::Emulator& e) {
    const std::size_t dl = digest_bytes(alg);
    cpu::DmaBuf buf = e.host().dma_alloc(3 * dl, 64);
    qce::QceAhash h(e.qce(), e.task(), alg);
    for (std::size_t j = 0; j < expected.size(); ++j) {
      std::vector<std::uint8_t> md[3] = {seed, seed, seed};
      for (int i = 3; i < 1003; ++i) {
        for (std::size_t k = 0; k < 3; ++k) std::memcpy(buf.ptr + k * dl, md[k].data(), dl);
        auto next = h.digest(buf.addr, static_cast<std::uint32_t>(3 * dl));
        md[0] = std::move(md[1]);
        md[1] = std::move(md[2]);
        md[2] = std::move(next);
      }
      seed = md[2];
      ASSERT_EQ(hex(seed), expected[j]) << file << " COUNT=" << j;
    }
  });
}

void check_hmac_rsp(qce::RegIo io, const std::string& section, HashAlg alg, std::size_t expected_records) {
  const auto recs = test::parse_rsp("hmac/HMAC.rsp");
  std::size_t checked = 0;
  test::with_emulator(io, [&](soc::Emulator& e) {
    for (const auto& r : recs) {
      if (r.section != section || !r.fields.count("Mac")) continue;
      const auto key = unhex(r.at("Key"));
      ASSERT_EQ(key.size(), std::stoul(r.at("Klen")));
      const auto mac = hex(test::qce_digest(e, alg, unhex(r.at("Msg")), key));
      const std::size_t tlen = std::stoul(r.at("Tlen"));
      ASSERT_EQ(mac.substr(0, 2 * tlen), r.at("Mac")) << section << " Count=" << r.at("Count");
      ++checked;
    }
  });
  EXPECT_EQ(checked, expected_records);
}

void check_rfc4231(qce::RegIo io) {
  std::ifstream in(test::testdata_path("hmac/rfc4231-hmac-sha256.json"));
  ASSERT_TRUE(in) << "missing rfc4231-hmac-sha256.json";
  const auto j = nlohmann::json::parse(in);
  std::size_t checked = 0;
  test::with_emulator(io, [&](soc::Emulator& e) {
    for (const auto& v : j.at("vectors")) {
      const std::string want = v.at("hmac_sha256");
      const auto mac = hex(test::qce_digest(e, HashAlg::sha256, unhex(v.at("data")), unhex(v.at("key"))));
      ASSERT_EQ(mac.substr(0, want.size()), want) << "RFC 4231 case " << v.at("test_case");
      ++checked;
    }
  });
  EXPECT_EQ(checked, 7u);
}

}  // namespace

#define NIST_TESTS(MODE, IO)                                                                                           \
  TEST(NistVectors, NistSha256ShortMsg_##MODE) {                                                                       \
    check_msg_file(IO, HashAlg::sha256, "sha256/SHA256ShortMsg.rsp", 65);                                              \
  }                                                                                                                    \
  TEST(NistVectors, NistSha256LongMsg_##MODE) { check_msg_file(IO, HashAlg::sha256, "sha256/SHA256LongMsg.rsp", 64); } \
  TEST(NistVectors, NistSha256Monte_##MODE) { check_monte(IO, HashAlg::sha256, "sha256/SHA256Monte.rsp"); }            \
  TEST(NistVectors, NistSha1ShortMsg_##MODE) { check_msg_file(IO, HashAlg::sha1, "sha1/SHA1ShortMsg.rsp", 65); }       \
  TEST(NistVectors, NistSha1LongMsg_##MODE) { check_msg_file(IO, HashAlg::sha1, "sha1/SHA1LongMsg.rsp", 64); }         \
  TEST(NistVectors, NistSha1Monte_##MODE) { check_monte(IO, HashAlg::sha1, "sha1/SHA1Monte.rsp"); }                    \
  TEST(NistVectors, NistHmacL20_Sha1_##MODE) { check_hmac_rsp(IO, "L=20", HashAlg::sha1, 300); }                       \
  TEST(NistVectors, NistHmacL32_Sha256_##MODE) { check_hmac_rsp(IO, "L=32", HashAlg::sha256, 225); }                   \
  TEST(NistVectors, Rfc4231HmacSha256_##MODE) { check_rfc4231(IO); }

NIST_TESTS(mmio, qce::RegIo::mmio)
NIST_TESTS(bam, qce::RegIo::bam)
