// Cipher and AEAD workloads in the replay (studies/cipher_workload.cpp through the request loop):
// real data through the CPU path and the driver in both register-I/O modes with every output checked, both directions;
// the descriptors per request the reference counts; the kernel era's aes_sw_max_len sending
// small XTS requests to the software fallback (and a scenario override turning it off); the
// workload keys' refusals.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cpu/ce_core.h"
#include "studies/processes.h"
#include "studies/replay.h"
#include "tests/process.h"

using namespace qcesim;

namespace {

std::string xts_path() { return std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-xts-4k.json"; }

// Every variant of the XTS scenario with these edits, one process each.
std::vector<studies::VariantResult> run_all(const std::vector<std::string>& sets, bool timing_only = false) {
  const auto sc = studies::Scenario::load(xts_path(), sets);
  const auto raw = studies::fork_each(
      sc.variants.size(), 2,
      [&](std::size_t i) { return studies::run_variant(sc, sc.variants[i], timing_only).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  std::vector<studies::VariantResult> r;
  for (const auto& j : raw) {
    EXPECT_FALSE(j.contains("error")) << j.dump();
    if (!j.contains("error")) r.push_back(studies::VariantResult::from_json(j));
  }
  return r;
}

void expect_all_right(const std::vector<studies::VariantResult>& rs, std::uint64_t n, const std::string& what) {
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& r : rs) {
    EXPECT_EQ(r.requests, n) << what << " " << r.name;
    EXPECT_EQ(r.completed, n) << what << " " << r.name;
    EXPECT_EQ(r.digest_mismatches, 0u) << what << " " << r.name;
    EXPECT_GT(r.wall_s, 0.0) << what << " " << r.name;
  }
}

}  // namespace

// xts(aes) AES-256 over 4 KiB sectors, both directions: every output right; per request the
// engine path takes rx 1 + tx 2 descriptors without locking, interrupts on both pipes; the CPU
// path is the CE's xts loop in task context only.
TEST(CipherReplay, XtsBothDirectionsEveryOutputRight) {
  for (const char* dir : {"encrypt", "decrypt"}) {
    const auto rs = run_all({"workload.messages=200", std::string("workload.direction=") + dir});
    expect_all_right(rs, 200, dir);
    const auto& cpu = rs[0];
    const auto& nolock = rs[2];
    EXPECT_EQ(cpu.irqs, 0u);
    EXPECT_GT(cpu.task_s, 0.0);
    EXPECT_EQ(nolock.bam_descriptors, 200u * 3);
    EXPECT_EQ(nolock.irqs, 200u * 2);
    EXPECT_GT(rs[1].bam_descriptors, nolock.bam_descriptors);  // the series' command and lock descriptors
    EXPECT_GT(rs[1].wall_s, nolock.wall_s);
  }
}

// The AEADs with associated data, both directions, in place of the xts workload.
TEST(CipherReplay, AeadsBothDirectionsEveryOutputRight) {
  for (const char* alg : {"ccm(aes)", "authenc(hmac(sha256),cbc(aes))"})
    for (const char* dir : {"encrypt", "decrypt"}) {
      const auto rs =
          run_all({"workload.messages=100", std::string("workload.algorithm=") + alg, "workload.key_bytes=32",
                   "workload.assoc_bytes=20", "workload.message_bytes=1024", std::string("workload.direction=") + dir});
      expect_all_right(rs, 100, std::string(alg) + " " + dir);
    }
}

// 512-byte XTS requests: the 2024 driver's aes_sw_max_len (512) sends every one to software (no
// interrupt, no descriptor); with the override driver.aes_sw_max_len = 0 they go to the engine.
TEST(CipherReplay, AesSwMaxLenSendsSmallXtsToSoftware) {
  auto rs = run_all({"workload.messages=100", "workload.message_bytes=512"});
  expect_all_right(rs, 100, "512 B");
  EXPECT_EQ(rs[2].software, 100u);
  EXPECT_EQ(rs[2].irqs, 0u);
  EXPECT_EQ(rs[2].bam_descriptors, 0u);
  rs = run_all({"workload.messages=100", "workload.message_bytes=512", "overrides.driver.aes_sw_max_len=0"});
  expect_all_right(rs, 100, "512 B, no fallback");
  EXPECT_EQ(rs[2].software, 0u);
  EXPECT_EQ(rs[2].irqs, 200u);
}

// workload.in_place: the request's source is its destination (tcrypt's speed tests): every output
// still right in both directions and for an AEAD; the driver maps one list both ways instead of
// two, so the CPU's map and unmap time falls.
TEST(CipherReplay, InPlaceRequestsMapOneListAndEveryOutputIsRight) {
  auto maps = [](const studies::VariantResult& r) {
    double s = 0;
    for (const auto& f : r.profile)
      if (f.function == "dma_map_sg" || f.function == "dma_unmap_sg") s += f.seconds;
    return s;
  };
  for (const char* dir : {"encrypt", "decrypt"}) {
    const auto apart = run_all({"workload.messages=200", std::string("workload.direction=") + dir});
    const auto same =
        run_all({"workload.messages=200", std::string("workload.direction=") + dir, "workload.in_place=true"});
    expect_all_right(same, 200, std::string("in place ") + dir);
    ASSERT_EQ(apart.size(), 3u);
    for (std::size_t v = 1; v < 3; ++v) {
      EXPECT_LT(maps(same[v]), maps(apart[v])) << same[v].name;
      EXPECT_LT(same[v].wall_s, apart[v].wall_s) << same[v].name;
    }
    // Without the series the data's lists are all the driver maps: one of two saved. With it the
    // command elements' maps stay, and the same data maps are saved.
    EXPECT_LT(maps(same[2]), 0.8 * maps(apart[2]));
    EXPECT_NEAR(maps(apart[1]) - maps(same[1]), maps(apart[2]) - maps(same[2]), 0.2 * (maps(apart[2]) - maps(same[2])));
    EXPECT_DOUBLE_EQ(same[0].wall_s, apart[0].wall_s);  // the CPU path has no mapping
  }
  const auto aead = run_all({"workload.messages=100", "workload.algorithm=\"ccm(aes)\"", "workload.key_bytes=16",
                             "workload.assoc_bytes=20", "workload.message_bytes=1024", "workload.direction=decrypt",
                             "workload.in_place=true"});
  expect_all_right(aead, 100, "ccm(aes) in place");
}

TEST(CipherReplay, WorkloadKeysAreChecked) {
  struct Case {
    std::vector<std::string> sets;
    const char* says;
  };
  const Case cases[] = {
      {{"workload.key_bytes=48"}, "/workload/key_bytes: expected 32, 48 or 64"},  // 48 is fine for XTS: AES-192 halves
      {{"workload.algorithm=\"cbc(aes)\"", "workload.key_bytes=16", "workload.message_bytes=100"},
       "/workload/message_bytes: expected a multiple of 16"},
      {{"workload.algorithm=\"cbc(aes)\"", "workload.key_bytes=20"}, "/workload/key_bytes: expected 16, 24 or 32"},
      {{"workload.tag_bytes=8"}, "/workload/tag_bytes: expected nothing: xts(aes) is not an AEAD"},
      {{"workload.algorithm=\"ccm(aes)\"", "workload.key_bytes=16", "workload.tag_bytes=5"},
       "/workload/tag_bytes: expected an even number"},
      {{"workload.algorithm=\"gcm(aes)\""}, "/workload/algorithm: expected"},
      {{"workload.algorithm=\"sha256\""}, "/workload/key_bytes: expected nothing: the workload's algorithm is a hash"},
      {{"workload.direction=\"sideways\""}, "/workload/direction"},
      {{"workload.in_place=1"}, "/workload/in_place: expected true or false"},
      {{"workload.scatterlist=\"sg\""}, "/workload/scatterlist: expected \"one\" or \"pages\""},
      {{"workload.algorithm=\"ccm(aes)\"", "workload.key_bytes=16", "workload.scatterlist=\"pages\""},
       "/workload/scatterlist: expected nothing for ccm(aes)"},
  };
  for (const Case& c : cases) {
    std::string err;
    try {
      (void)studies::Scenario::load(xts_path(), c.sets);
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (std::string(c.says).find("48") != std::string::npos) {
      EXPECT_EQ(err, "") << "AES-192 XTS is a valid workload (the driver's fallback runs it)";
      continue;
    }
    EXPECT_NE(err.find(c.says), std::string::npos) << c.says << " -> " << err;
  }
}

// workload.size_mix: the IPsec study's 7:4:1 packet mix as one repeating pattern of 12 sizes,
// spread evenly; every packet through authenc comes out right and the bytes add up.
TEST(CipherReplay, SizeMixIsARepeatingPatternAndEveryPacketIsRight) {
  const auto sc = studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-ipsec-mix.json",
                                          {"workload.messages=120"});
  const std::vector<std::uint32_t> want = {64, 576, 64, 64, 576, 64, 1504, 64, 576, 64, 576, 64};
  EXPECT_EQ(sc.workload.size_pattern, want);
  EXPECT_EQ(sc.workload.message_bytes, 1504u);
  EXPECT_EQ(sc.workload.bytes_of_first(120), 10u * (7 * 64 + 4 * 576 + 1504));
  const auto raw = studies::fork_each(
      sc.variants.size(), 2, [&](std::size_t i) { return studies::run_variant(sc, sc.variants[i], false).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  for (const auto& j : raw) {
    ASSERT_FALSE(j.contains("error")) << j.dump();
    const auto r = studies::VariantResult::from_json(j);
    EXPECT_EQ(r.completed, 120u) << r.name;
    EXPECT_EQ(r.digest_mismatches, 0u) << r.name;
    EXPECT_EQ(r.bytes, 42560u) << r.name;
  }
  std::string err;
  try {
    (void)studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-ipsec-mix.json",
                                  {"workload.size_mix.0.bytes=65"});
  } catch (const std::exception& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("/workload/size_mix: expected sizes of a multiple of 16"), std::string::npos) << err;
}

// A QCE variant of an algorithm its kernel era's driver does not register is refused before any
// run, naming driver.era (the 2026 removal of ECB, DES and 3DES).
TEST(CipherReplay, AnAlgorithmTheErasDriverDoesNotRegisterIsRefused) {
  std::string err;
  try {
    (void)studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-cipher.json",
                                  {"workload.algorithm=\"ecb(aes)\"", "overrides.driver.era=2026"});
  } catch (const std::exception& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("/overrides/driver.era: expected an era whose qce driver registers ecb(aes) (variant qce-nolock)"),
            std::string::npos)
      << err;
  // The 2024 driver registers it.
  EXPECT_NO_THROW((void)studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-cipher.json",
                                                {"workload.algorithm=\"ecb(aes)\""}));
}

// The skcipher API around a CPU cipher request: skcipher_walk_virt once per request, one
// skcipher_walk_done step for each page after the first (buffers page-aligned); and XTS's first
// call encrypting the IV with the second key, one serial block on top of the loop's blocks.
TEST(CipherReplay, TheSkcipherWalkIsPerRequestAndPerFurtherPageAndXtsEncryptsItsTweak) {
  std::map<std::string, double> per_request[2];
  for (int i = 0; i < 2; ++i) {
    const auto rs = run_all({"workload.messages=50", "workload.message_bytes=" + std::to_string(4096 * (i + 1))}, true);
    ASSERT_EQ(rs.size(), 3u);
    for (const auto& f : rs[0].profile) per_request[i][f.function] += f.seconds / static_cast<double>(rs[0].requests);
  }
  const double walk = per_request[0]["skcipher_walk_virt"];
  EXPECT_GT(walk, 0.0);
  EXPECT_NEAR(per_request[1]["skcipher_walk_virt"], walk, walk * 1e-6);
  EXPECT_EQ(per_request[0].count("skcipher_walk_done"), 0u);
  EXPECT_GT(per_request[1]["skcipher_walk_done"], 0.0);  // the second page's step

  const double t1 = per_request[0]["ce_aes_xts_encrypt"], t2 = per_request[1]["ce_aes_xts_encrypt"];
  const double per_block = (t2 - t1) / 256, tweak = t1 - 256 * per_block;
  const cpu::CeCoreTable& x4 = cpu::ce_core_table("cortex-x4");
  EXPECT_NEAR(tweak / per_block,
              cpu::aes_ce_cycles_per_block(x4, 14, cpu::AesLoop::serial) /
                  cpu::aes_ce_cycles_per_block(x4, 14, cpu::AesLoop::xts),
              0.01);  // the charges are whole picoseconds
}
