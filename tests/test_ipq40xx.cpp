// The second SoC: the IPQ40xx profile's wiring (its device tree: EE 1, pipes 2/3), its early-2020
// driver (tasklet done path, every AES mode up to aes_sw_max_len to software) and its CPU path
// (the NEON set: aes-neonbs in whole eight-block passes, aes-arm for CBC encryption,
// sha256-neon), and a sweep's break-even per key size. Each through the CLI: one elaboration
// per process.
#include <gtest/gtest.h>

#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "model/profile.h"
#include "soc/device_tree.h"
#include "tests/process.h"

using nlohmann::json;
namespace test = qcesim::test;

namespace {

const std::string kSrc = QCESIM_SOURCE_DIR;

}  // namespace

// Built from the device tree, the driver and published costs: nothing in it was fitted.
TEST(Ipq40xx, ProfileIsSourcedAndUnfitted) {
  const auto p = qcesim::model::Profile::load(kSrc + "/scenarios/ipq40xx.json");
  for (const auto& [name, prm] : p.params()) EXPECT_NE(prm.provenance.rfind("calibrated:", 0), 0u) << name;
  EXPECT_EQ(p.text("soc.dt"), "ipq4019");
  EXPECT_EQ(p.text("cpu.crypto"), "neon");
  EXPECT_EQ(p.text("cpu.cpus"), "cortex-a7,cortex-a7,cortex-a7,cortex-a7");  // no Crypto Extensions
  EXPECT_EQ(p.num("driver.era"), 2020);
  EXPECT_EQ(p.text("iommu.mode"), "none");
  EXPECT_DOUBLE_EQ(p.num("cpu.cortex-a7.freq"), 0.716);
  const auto& dt = qcesim::soc::device_tree("ipq4019");
  EXPECT_EQ(dt.qce_base, 0x08e3a000u);
  EXPECT_EQ(dt.bam_base, 0x08e04000u);
  EXPECT_EQ(dt.bam_ee, 1u);
  EXPECT_EQ(dt.rx_pipe, 2u);
  EXPECT_EQ(dt.tx_pipe, 3u);
  EXPECT_EQ(dt.bam_spi, 207u);
  EXPECT_THROW(qcesim::soc::device_tree("ipq8074"), std::invalid_argument);
}

// cbc(aes) through QCE on EE 1's pipes 2 and 3: every output checked, one interrupt per request,
// and the 2020 driver completes in its done tasklet (softirq), not a kworker.
TEST(Ipq40xx, CbcThroughQceIsBitExactOnEe1Pipes2And3WithTheDoneTasklet) {
  const test::VariantRun r = test::run_scenario_variant("ipq40xx-cipher.json", "qce", {"workload.messages=6"});
  const json& v = r.variant;
  EXPECT_EQ(v["completed"], 6);
  EXPECT_EQ(v["digest_mismatches"], 0);
  EXPECT_EQ(v["software"], 0);
  EXPECT_EQ(v["irqs"], 6);
  EXPECT_GT(test::function_cpu_s(v, "qce_tasklet_req_done"), 0);
  EXPECT_EQ(test::function_cpu_s(v, "qce_req_done_work"), 0);
  EXPECT_EQ(v["kworker_s"], 0);
  const test::ProcessResult e = test::run_qcesim(
      {"explain", kSrc + "/scenarios/ipq40xx-cipher.json", "--variant", "qce", "--request", "2"}, kSrc);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("BAM pipe 2 (EE 1, consumer)"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("BAM pipe 3 (EE 1, producer)"), std::string::npos);
  EXPECT_NE(e.out.find("softirq                   qce_tasklet_req_done"), std::string::npos);
}

// The 2020 rules send every AES mode up to aes_sw_max_len (512) to software; at 0 they do not.
TEST(Ipq40xx, SmallRequestsOfEveryAesModeGoToTheNeonFallback) {
  for (const char* alg : {"cbc(aes)", "ctr(aes)", "ecb(aes)"}) {
    const test::VariantRun r = test::run_scenario_variant(
        "ipq40xx-cipher.json", "qce",
        {"workload.messages=4", "workload.message_bytes=256", std::string("workload.algorithm=") + alg});
    EXPECT_EQ(r.variant["software"], 4) << alg;
    EXPECT_EQ(r.variant["irqs"], 0) << alg;
    EXPECT_EQ(r.variant["digest_mismatches"], 0) << alg;
    // Latency from the submission the task reached, not from a stale clock: one request's CPU time.
    EXPECT_NEAR(r.variant["latency_us"]["max"].get<double>(), r.variant["wall_s"].get<double>() / 4 * 1e6, 1e-3) << alg;
  }
  const test::VariantRun direct = test::run_scenario_variant("ipq40xx-cipher.json", "qce-no-sw-fallback",
                                                             {"workload.messages=4", "workload.message_bytes=256"});
  EXPECT_EQ(direct.variant["software"], 0);
  EXPECT_EQ(direct.variant["irqs"], 4);
}

// aes-neonbs computes eight blocks per pass: 16 bytes cost what 128 do, 144 twice that, at the
// profile's cycles per byte and clock; CBC encryption runs aes-arm block by block.
TEST(Ipq40xx, NeonBitslicedCodeRunsWholeEightBlockPasses) {
  const double hz = 0.716e9;
  auto ctr = [](int bytes) {
    const test::VariantRun r = test::run_scenario_variant(
        "ipq40xx-cipher.json", "cpu",
        {"workload.messages=3", "workload.algorithm=ctr(aes)", "workload.message_bytes=" + std::to_string(bytes)});
    EXPECT_EQ(r.variant["digest_mismatches"], 0);
    return test::function_cpu_s(r.variant, "aesbs_ctr_encrypt") / 3;
  };
  const double c16 = ctr(16), c128 = ctr(128), c144 = ctr(144);
  EXPECT_NEAR(c16, 128 * 36.05 / hz, 1e-11);  // Adiantum's A7 figure, cycles per byte
  EXPECT_NEAR(c128, c16, 1e-11);
  EXPECT_NEAR(c144, 2 * c16, 1e-11);
  const test::VariantRun cbc =
      test::run_scenario_variant("ipq40xx-cipher.json", "cpu", {"workload.messages=3", "workload.message_bytes=48"});
  EXPECT_NEAR(test::function_cpu_s(cbc.variant, "__aes_arm_encrypt") / 3, 48 * 45.0 / hz, 1e-11);
  EXPECT_EQ(test::function_cpu_s(cbc.variant, "kernel_neon_begin"), 0);  // scalar code: no NEON section
  const test::VariantRun dec = test::run_scenario_variant(
      "ipq40xx-cipher.json", "cpu",
      {"workload.messages=3", "workload.message_bytes=48", "workload.direction=decrypt", "workload.key_bytes=32"});
  EXPECT_NEAR(test::function_cpu_s(dec.variant, "aesbs_cbc_decrypt") / 3, 128 * 58.9 / hz, 1e-12);
}

// The 2020 driver's fallback tfm was allocated synchronous (until v5.9), which on 32-bit ARM
// excludes aes-neonbs (behind asynchronous SIMD wrappers): a small request the driver hands to
// software runs the templates over the scalar aes-arm cipher in every mode, without NEON, where
// the CPU path (an asynchronous user) gets the bit-sliced code.
TEST(Ipq40xx, TheSynchronousFallbackRunsAesArmInEveryMode) {
  const double hz = 0.716e9;
  const std::vector<std::string> ecb_dec = {"workload.messages=3", "workload.algorithm=ecb(aes)",
                                            "workload.direction=decrypt", "workload.message_bytes=64"};
  const test::VariantRun fb = test::run_scenario_variant("ipq40xx-cipher.json", "qce", ecb_dec);
  EXPECT_EQ(fb.variant["digest_mismatches"], 0);
  EXPECT_EQ(fb.variant["software"], 3);
  EXPECT_NEAR(test::function_cpu_s(fb.variant, "__aes_arm_decrypt") / 3, 64 * 45.0 / hz, 1e-11);
  EXPECT_EQ(test::function_cpu_s(fb.variant, "aesbs_ecb_decrypt"), 0);
  EXPECT_EQ(test::function_cpu_s(fb.variant, "kernel_neon_begin"), 0);
  const test::VariantRun cpu = test::run_scenario_variant("ipq40xx-cipher.json", "cpu", ecb_dec);
  EXPECT_NEAR(test::function_cpu_s(cpu.variant, "aesbs_ecb_decrypt") / 3, 128 * 42.72 / hz, 1e-11);
}

// The SHA-256 library on the A7 is sha256-neon; through QCE the digests are the engine's.
TEST(Ipq40xx, Sha256RunsSha256NeonOnTheCpuAndQceBitExact) {
  const test::VariantRun cpu =
      test::run_scenario_variant("ipq40xx-sha256.json", "sha256-neon", {"workload.messages=4"});
  EXPECT_EQ(cpu.variant["digest_mismatches"], 0);
  const double blocks = (4096 + 9 + 63) / 64;
  EXPECT_NEAR(test::function_cpu_s(cpu.variant, "sha256_block_data_order_neon") / 4, blocks * 64 * 17 / 0.716e9, 1e-12);
  EXPECT_EQ(test::function_cpu_s(cpu.variant, "sha256_ce_transform"), 0);
  const test::VariantRun qce = test::run_scenario_variant("ipq40xx-sha256.json", "sha256-qce", {"workload.messages=4"});
  EXPECT_EQ(qce.variant["completed"], 4);
  EXPECT_EQ(qce.variant["digest_mismatches"], 0);
}

// A sweep over key size and message size: break-even along the last axis, once per key size.
TEST(Ipq40xx, TcryptStudyBreaksEvenPerKeySize) {
  const test::TempDir tmp("ipqsweep");
  const std::string& dir = tmp.path();
  const test::ProcessResult r = test::run_qcesim(
      {"sweep", kSrc + "/scenarios/study-ipq40xx-tcrypt-cbc.json", "--set", "workload.messages=8", "--out", dir + "/s"},
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json be = json::parse(test::slurp(dir + "/s.json"))["analysis"]["break_even"];
  EXPECT_EQ(be["axis"], "workload.message_bytes");
  ASSERT_EQ(be["groups"].size(), 2u);
  EXPECT_EQ(be["groups"][0]["at"]["workload.key_bytes"], 16);
  EXPECT_EQ(be["groups"][1]["at"]["workload.key_bytes"], 32);
  double x[2];
  for (std::size_t g = 0; g < 2; ++g) {
    const json& e = be["groups"][g]["variants"]["qce-no-sw-fallback"]["us_per_request"];
    ASSERT_TRUE(e["x"].is_number()) << e.dump();
    x[g] = e["x"];
    EXPECT_EQ(e["offload_wins"], "above");
  }
  EXPECT_LT(x[1], x[0]);  // AES-256's slower software crosses earlier
  EXPECT_NE(r.out.find(" at workload.key_bytes = 32:"), std::string::npos);
}

// explain narrates a request of the steady state unless told otherwise: on the router ondemand
// lowers CPU0's clock after its first look, so an early request is faster than the run's own.
TEST(Ipq40xx, ExplainNarratesASteadyStateRequestByDefault) {
  auto wall = [](const test::ProcessResult& e) {
    const std::string key = "  wall ";
    const std::size_t at = e.out.find(key);
    EXPECT_NE(at, std::string::npos) << e.out;
    return at == std::string::npos ? 0.0 : std::stod(e.out.substr(at + key.size()));
  };
  const test::VariantRun run = test::run_scenario_variant("ipq40xx-sha256.json", "sha256-qce", {});
  const double per_request_us = run.variant["wall_s"].get<double>() / run.variant["requests"].get<double>() * 1e6;
  const test::ProcessResult steady =
      test::run_qcesim({"explain", kSrc + "/scenarios/ipq40xx-sha256.json", "--timing-only"}, kSrc);
  ASSERT_EQ(steady.exit_code, 0) << steady.err;
  EXPECT_NE(steady.err.find("in the steady state"), std::string::npos) << steady.err;
  EXPECT_NEAR(wall(steady), per_request_us, 0.005 * per_request_us);
  const test::ProcessResult early =
      test::run_qcesim({"explain", kSrc + "/scenarios/ipq40xx-sha256.json", "--timing-only", "--request", "10"}, kSrc);
  ASSERT_EQ(early.exit_code, 0) << early.err;
  EXPECT_LT(wall(early), 0.95 * per_request_us);  // still at the boot clock: why the default moved
  // The accounting says so: CPU0's clock, ondemand's in the steady state, the maximum before its
  // first look.
  auto clock = [](const test::ProcessResult& e) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(e.out, m, std::regex(R"(cpu0 at ([0-9.]+) GHz: busy)"))) << e.out;
    return m.empty() ? 0.0 : std::stod(m[1]);
  };
  EXPECT_DOUBLE_EQ(clock(early), 0.716);
  EXPECT_LT(clock(steady), 0.716);
}

// The BAM waits for the SMMU's walks of the pages mapped for each request: the locking series'
// command elements (each its own IOVA page) cost a walk each; passthrough has none.
TEST(Ipq40xx, IotlbTheBamWaitsForAWalkPerFreshlyMappedPage) {
  auto lat = [](const std::string& mode, std::string* narration) {
    const std::vector<std::string> sets = {"workload.messages=6", "iommu.mode=" + mode};
    const test::VariantRun r = test::run_scenario_variant("sm8650-seed.json", "sha256-qce-lock", sets);
    const test::ProcessResult e = test::run_qcesim({"explain", kSrc + "/scenarios/sm8650-seed.json", "--variant",
                                                    "sha256-qce-lock", "--set", "iommu.mode=" + mode},
                                                   kSrc);
    EXPECT_EQ(e.exit_code, 0) << e.err;
    *narration = e.out;
    return r.variant["latency_us"]["p50"].get<double>();
  };
  std::string strict, passthrough;
  const double with_walks = lat("strict", &strict), without = lat("passthrough", &passthrough);
  // Each descriptor walks the fresh page it touches first: LOCK and the 21 command elements
  // before their run, the data page before its bursts, UNLOCK's own when it executes, the
  // result page on the producer pipe.
  EXPECT_NE(strict.find("22 SMMU page walks"), std::string::npos) << strict;
  EXPECT_NE(strict.find("1 SMMU page walk "), std::string::npos);
  EXPECT_EQ(passthrough.find("SMMU page walk"), std::string::npos);
  EXPECT_GT(with_walks - without, 24 * 0.3);  // the walks, on top of the IOMMU's CPU work
}

// A 256-byte request's interrupt reaches CPU0 after the caller's way to its sleep
// (crypto_wait_req), while it switches CPU0 to idle: __schedule runs with interrupts off, so
// explain shows the interrupt held off until the switch ends, the done tasklet waking the caller
// (try_to_wake_up in softirq) and the switch back.
TEST(Ipq40xx, ExplainShowsTheInterruptHeldOffByTheCallersSwitch) {
  const test::ProcessResult e =
      test::run_qcesim({"explain", kSrc + "/scenarios/ipq40xx-m2-cbc128-256.json", "--variant", "qce"}, kSrc);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      e.out, m,
      std::regex(R"(\n +([0-9.]+) +([0-9.]+)  cpu0 interrupt held off +interrupts off: the interrupt waits)")))
      << e.out;
  const double held_end = std::stod(m[1]) + std::stod(m[2]);
  ASSERT_TRUE(
      std::regex_search(e.out, m, std::regex(R"(\n +([0-9.]+) +[0-9.]+  cpu0 hardirq \(as idle\) +el1_interrupt)")))
      << e.out;
  EXPECT_NEAR(std::stod(m[1]), held_end, 0.002);  // the handler starts as the switch ends, in the idle task
  EXPECT_TRUE(std::regex_search(e.out, std::regex(R"(cpu0 softirq +try_to_wake_up)"))) << e.out;
  EXPECT_NE(e.out.find("interrupts 1 from the BAM, 0 IPIs"), std::string::npos) << e.out;
}

// A 16-byte request's interrupt (the consumer pipe's EOT, soon after GO) comes while the caller is
// still on its way to sleep: the done tasklet completes the request with the caller running, so it
// neither switches out nor is woken, and goes on with the rest of crypto_wait_req.
TEST(Ipq40xx, ExplainShowsASmallRequestDoneBeforeTheCallerSleeps) {
  const test::ProcessResult e =
      test::run_qcesim({"explain", kSrc + "/scenarios/ipq40xx-m2-cbc128-16.json", "--variant", "qce"}, kSrc);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const std::regex wait(R"(cpu0 task: task +crypto_wait_req)");
  const auto n = std::distance(std::sregex_iterator(e.out.begin(), e.out.end(), wait), std::sregex_iterator());
  EXPECT_EQ(n, 2) << e.out;  // cut in two by the interrupt
  // Its entry before the hardirq clock is the task's time, as Linux counts it.
  EXPECT_TRUE(std::regex_search(e.out, std::regex(R"(cpu0 hardirq \(as task\) +el1_interrupt)"))) << e.out;
  EXPECT_EQ(e.out.find("try_to_wake_up"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("__schedule"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("interrupt held off"), std::string::npos) << e.out;
}
