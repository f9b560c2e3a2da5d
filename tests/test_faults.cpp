// Fault injection (scenario key `faults`), end to end through the built binary: each injected
// fault fails exactly the request it hits and the next one runs (the driver recovers: status
// check, channel error, watchdog), issued = completed + failed + fallback in every run, digests
// stay right, a CPU fallback redoes failed requests on the CPU library, and TrustZone holding the lock too long
// times Linux's requests out.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::make_scenario_dir("faults");
    fs::copy_file(test::scenario_source("study-trustzone.json"), dir + "/tz.json");
    seed = json::parse(test::slurp(dir + "/seed.json"));
  }
  void TearDown() override { test::remove_tree(dir); }

  // Runs `scenario` with the given faults; the variants' JSON results by name.
  std::map<std::string, json> run(json scenario, const json& faults, std::vector<std::string> extra = {}) {
    scenario["faults"] = faults;
    test::write_text(dir + "/s.json", scenario.dump());
    std::vector<std::string> args = {"run", "s.json", "--json", "r.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_qcesim(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    last_out = r.out;
    std::map<std::string, json> by_name;
    if (r.exit_code != 0) return by_name;
    const json doc = json::parse(test::slurp(dir + "/r.json"));
    for (const json& v : doc["variants"]) {
      // Every run adds up.
      EXPECT_EQ(
          v["completed"].get<std::uint64_t>() + v["failed"].get<std::uint64_t>() + v["fallback"].get<std::uint64_t>(),
          v["issued"].get<std::uint64_t>())
          << v["name"];
      by_name[v["name"]] = v;
    }
    return by_name;
  }

  std::string dir, last_out;
  json seed;
};

const std::vector<std::string> kQce = {"--variant", "sha256-qce-nolock",     "--variant", "sha256-qce-lock",
                                       "--set",     "workload.messages=1500"};

}  // namespace

TEST_F(Faults, EachInjectedFaultFailsOneRequestAndTheNextRuns) {
  struct Kind {
    const char* key;
    const char* counter;
    bool times_out;
  };
  for (const Kind& k :
       {Kind{"bam_data_error", "bam_data_errors", false}, Kind{"bam_descriptor_drop", "bam_descriptor_drops", true},
        Kind{"engine_axi_error", "engine_axi_errors", false}, Kind{"engine_hang", "engine_hangs", true}}) {
    const auto res = run(seed, {{k.key, 0.04}}, kQce);
    ASSERT_EQ(res.size(), 2u) << k.key;
    for (const auto& [name, v] : res) {
      const std::uint64_t injected = v["faults"][k.counter];
      EXPECT_GT(injected, 30u) << k.key << " " << name;  // 4% of 1500
      EXPECT_EQ(v["issued"], 1500) << k.key << " " << name;
      // No cascade: exactly the hit requests fail, every other one completes with the right digest.
      EXPECT_EQ(v["failed"], injected) << k.key << " " << name;
      EXPECT_EQ(v["completed"].get<std::uint64_t>(), 1500 - injected) << k.key << " " << name;
      EXPECT_EQ(v["digest_mismatches"], 0) << k.key << " " << name;
      EXPECT_EQ(v["faults"]["timeouts"], k.times_out ? injected : 0) << k.key << " " << name;
    }
  }
  EXPECT_NE(last_out.find("requests: 1500 issued = "), std::string::npos) << last_out;
}

TEST_F(Faults, ACpuFallbackRedoesEveryFailedRequest) {
  const json faults = {{"engine_axi_error", 0.05}, {"bam_data_error", 0.02}};
  const auto failed = run(seed, faults, kQce);
  json with_fallback = faults;
  with_fallback["cpu_fallback"] = true;
  std::vector<std::string> with_lib = kQce;
  with_lib.insert(with_lib.end(), {"--variant", "sha256-lib"});
  const auto redone = run(seed, with_fallback, with_lib);
  // What one message costs the CPU library (the CPU variant's CPU time per request).
  const json& lib = redone.at("sha256-lib");
  const double per_hash = lib["cpu_s"].get<double>() / lib["requests"].get<double>();
  for (const char* name : {"sha256-qce-nolock", "sha256-qce-lock"}) {
    const json& a = failed.at(name);
    const json& b = redone.at(name);
    EXPECT_GT(a["failed"], 50) << name;
    EXPECT_EQ(b["failed"], 0) << name;
    EXPECT_EQ(b["fallback"], a["failed"]) << name;  // the same faults (same seed), now redone
    EXPECT_EQ(b["digest_mismatches"], 0) << name;   // the CPU's digests are checked too
    // Each fallback is one run of the CPU library in the caller's task context.
    double library = 0;
    for (const json& f : b["profile"])
      for (const char* fn : {"sha256_lib_call", "kernel_neon_begin", "sha256_ce_transform", "kernel_neon_end"})
        if (f["function"] == fn && f["context"] == "task") library += f["cpu_s"].get<double>();
    EXPECT_NEAR(library, b["fallback"].get<double>() * per_hash, 1e-9 * b["fallback"].get<double>()) << name;
  }
}

// Cipher workloads (skcipher and AEAD) as hashes: each fault fails the request it hits and the
// run goes on with every other output right; with cpu_fallback the caller redoes failed ones in
// software, their outputs checked too.
TEST_F(Faults, CipherRequestsFailAloneAndTheRunGoesOn) {
  fs::copy_file(test::scenario_source("sm8650-cipher.json"), dir + "/cipher.json");
  json cipher = json::parse(test::slurp(dir + "/cipher.json"));
  cipher["profile"] = "sm8650.json";
  struct Kind {
    const char* key;
    const char* counter;
    bool times_out;
  };
  for (const char* alg : {"cbc(aes)", "ccm(aes)"}) {
    json sc = cipher;
    sc["workload"]["algorithm"] = alg;
    sc["workload"]["messages"] = 600;
    if (std::string(alg) == "ccm(aes)") sc["workload"]["assoc_bytes"] = 16;
    for (const Kind& k :
         {Kind{"bam_data_error", "bam_data_errors", false}, Kind{"bam_descriptor_drop", "bam_descriptor_drops", true},
          Kind{"engine_axi_error", "engine_axi_errors", false}, Kind{"engine_hang", "engine_hangs", true}}) {
      const auto res = run(sc, {{k.key, 0.05}}, {"--variant", "qce-nolock", "--variant", "qce-lock"});
      ASSERT_EQ(res.size(), 2u) << alg << " " << k.key;
      for (const auto& [name, v] : res) {
        const std::uint64_t injected = v["faults"][k.counter];
        EXPECT_GT(injected, 10u) << alg << " " << k.key << " " << name;
        EXPECT_EQ(v["issued"], 600) << alg << " " << k.key << " " << name;
        EXPECT_EQ(v["failed"], injected) << alg << " " << k.key << " " << name;
        EXPECT_EQ(v["completed"].get<std::uint64_t>(), 600 - injected) << alg << " " << k.key << " " << name;
        EXPECT_EQ(v["digest_mismatches"], 0) << alg << " " << k.key << " " << name;
        EXPECT_EQ(v["faults"]["timeouts"], k.times_out ? injected : 0) << alg << " " << k.key << " " << name;
      }
    }
    const auto redone = run(sc, {{"engine_axi_error", 0.05}, {"cpu_fallback", true}}, {"--variant", "qce-nolock"});
    const json& v = redone.at("qce-nolock");
    EXPECT_EQ(v["failed"], 0) << alg;
    EXPECT_EQ(v["fallback"], v["faults"]["engine_axi_errors"]) << alg;
    EXPECT_GT(v["fallback"], 10) << alg;
    EXPECT_EQ(v["digest_mismatches"], 0) << alg;
  }
}

// One request loop for every workload: with the same fault seed a hash and a cipher workload
// fail the same requests (the faults hit engine operations by number) and account them alike.
TEST_F(Faults, HashAndCipherWorkloadsGoThroughTheSameLoop) {
  fs::copy_file(test::scenario_source("sm8650-xts-4k.json"), dir + "/xts.json");
  json xts = json::parse(test::slurp(dir + "/xts.json"));
  const json faults = {{"engine_hang", 0.02}, {"cpu_fallback", true}, {"seed", 3}};
  for (int depth : {1, 3}) {
    json sha = seed, cipher = xts;
    sha["workload"]["messages"] = cipher["workload"]["messages"] = 800;
    sha["workload"]["queue_depth"] = cipher["workload"]["queue_depth"] = depth;
    const json h = run(sha, faults, {"--variant", "sha256-qce-nolock"}).at("sha256-qce-nolock");
    const json c = run(cipher, faults, {"--variant", "xts-qce-nolock"}).at("xts-qce-nolock");
    EXPECT_GT(h["fallback"], 5) << depth;
    for (const char* k : {"issued", "completed", "failed", "fallback", "failed_requests", "digest_mismatches"})
      EXPECT_EQ(h[k], c[k]) << k << " at queue depth " << depth;
    EXPECT_EQ(h["faults"]["engine_hangs"], c["faults"]["engine_hangs"]) << depth;
  }
}

TEST_F(Faults, SameSeedSameFaultsAnotherSeedOthers) {
  const auto a = run(seed, {{"engine_hang", 0.03}, {"seed", 5}}, kQce);
  const auto b = run(seed, {{"engine_hang", 0.03}, {"seed", 5}}, kQce);
  const auto c = run(seed, {{"engine_hang", 0.03}, {"seed", 6}}, kQce);
  const json& x = a.at("sha256-qce-lock");
  EXPECT_EQ(x["faults"], b.at("sha256-qce-lock")["faults"]);
  EXPECT_EQ(x["wall_s"], b.at("sha256-qce-lock")["wall_s"]);
  EXPECT_NE(x["wall_s"], c.at("sha256-qce-lock")["wall_s"]);
}

// TrustZone keeps the BAM lock 3 ms past each of its jobs: Linux's requests, stuck behind its
// LOCK, hit the 2 ms watchdog. Without the hold none fails.
TEST_F(Faults, TrustZoneHoldingTheLockTooLongTimesLinuxOut) {
  json tz = json::parse(test::slurp(dir + "/tz.json"));
  tz["profile"] = "sm8650.json";
  tz["workload"]["messages"] = 1000;
  tz["workload"]["tz"]["rate_per_s"] = 300;
  const std::vector<std::string> v = {"--variant", "series-lock-dump-status", "--timing-only"};
  const auto held = run(tz, {{"tz_lock_hold_us", 3000}}, v).at("series-lock-dump-status");
  const auto normal = run(tz, {{"tz_lock_hold_us", 0}}, v).at("series-lock-dump-status");
  EXPECT_EQ(normal["failed"], 0);
  EXPECT_GT(held["failed"], 10);
  EXPECT_EQ(held["faults"]["timeouts"], held["failed"]);
  EXPECT_GT(held["lock_wait_s"].get<double>(), 10 * normal["lock_wait_s"].get<double>());
}

TEST_F(Faults, BadFaultValuesAreRefusedBeforeTheRun) {
  struct Case {
    json faults;
    std::string message;
  };
  for (const Case& c :
       {Case{{{"engine_hang", 2}},
             "at /faults/engine_hang: expected a number of probability per engine operation in [0, 1]"},
        Case{{{"engine_hang", 0.6}, {"engine_axi_error", 0.6}}, "expected engine_axi_error + engine_hang <= 1"},
        Case{{{"tz_lock_hold_us", 100}}, "tz_lock_hold_us only with another EE on the engine"},
        Case{{{"hang", 0.1}}, "at /faults/hang: expected one of seed, bam_data_error"}}) {
    json s = seed;
    s["faults"] = c.faults;
    test::write_text(dir + "/s.json", s.dump());
    const auto r = test::run_qcesim({"run", "s.json"}, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("variant(s)"), std::string::npos) << r.err;
  }
}
