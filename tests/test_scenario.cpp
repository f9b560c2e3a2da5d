// Scenario and profile loading: every bad input names the file, the JSON path, what was
// expected and what was found. No SystemC elaboration here.
#include <gtest/gtest.h>

#include <linux/magic.h>
#include <sys/vfs.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "cpu/costs.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "tests/process.h"

using namespace qcesim::model;
using namespace qcesim::studies;
namespace cpu = qcesim::cpu;

namespace {

using qcesim::test::seed_path;

std::string error_of(const std::vector<std::string>& sets) {
  try {
    Scenario::load(seed_path(), sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/qcesim-scenario-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

}  // namespace

TEST(Scenario, SeedLoadsWithItsThreeVariantsAndMeasurements) {
  const Scenario sc = Scenario::load(seed_path());
  ASSERT_EQ(sc.variants.size(), 3u);
  EXPECT_EQ(sc.variants[0].name, "sha256-lib");
  EXPECT_EQ(sc.variants[1].reg_io, qcesim::qce::RegIo::bam);
  EXPECT_TRUE(sc.variants[1].bam_lock);
  EXPECT_FALSE(sc.variants[2].bam_lock);
  EXPECT_EQ(sc.workload.messages, 50000u);
  EXPECT_DOUBLE_EQ(sc.variants[1].measured.at("wall_s"), 10.76);
}

// A board's interrupt count per request is a measured value: kept as it is (a count per request
// does not scale with the message count, as the times do), and checked like the others.
TEST(Scenario, MeasuredInterruptsPerRequestAreKeptUnscaled) {
  const Scenario sc = Scenario::load(seed_path(), {"variants.1.measured.irqs_per_request=2",
                                                   "variants.1.measured.messages=50000", "workload.messages=500"});
  const auto m = measured_for(sc.variants[1], sc.workload);
  EXPECT_DOUBLE_EQ(m.at("irqs_per_request"), 2);
  EXPECT_DOUBLE_EQ(m.at("wall_s"), 10.76 * 500 / 50000);
  std::string e = error_of({"variants.1.measured.irqs_per_request=\"two\""});
  EXPECT_NE(e.find("/variants/1/measured/irqs_per_request: expected a number"), std::string::npos) << e;
  e = error_of({"variants.1.measured.irqs_per_request=-1"});
  EXPECT_NE(e.find("/variants/1/measured/irqs_per_request"), std::string::npos) << e;
  EXPECT_NE(e.find("interrupts per request"), std::string::npos) << e;
  e = error_of({"variants.1.measured.interrupts=2"});
  EXPECT_NE(e.find("/variants/1/measured"), std::string::npos) << e;
  EXPECT_NE(e.find("irqs_per_request"), std::string::npos) << e;  // the keys it may have are named
}

// A count matches within half an interrupt, the edge included, wherever it is compared (run's
// line and the bands' inside()): 2.5 per request matches a measured 2 and 3, 2.51 only 3.
TEST(Scenario, InterruptCountsMatchWithinHalfAnInterrupt) {
  EXPECT_TRUE(irqs_match(2.0, 2.0));
  EXPECT_TRUE(irqs_match(2.5, 2.0));
  EXPECT_TRUE(irqs_match(2.5, 3.0));
  EXPECT_FALSE(irqs_match(2.51, 2.0));
  EXPECT_FALSE(irqs_match(1.0, 2.0));
}

TEST(Scenario, SetChangesWorkloadAndProfileParameters) {
  const Scenario sc = Scenario::load(seed_path(), {"workload.message_bytes=1048576", "qce.clock=200",
                                                   "overrides.cost.readl=500", "variants.0.ce_interleave=2"});
  EXPECT_EQ(sc.workload.message_bytes, 1048576u);
  EXPECT_EQ(sc.variants[0].ce_interleave, 2u);
  const Profile p = sc.profile_for(sc.variants[2]);
  EXPECT_DOUBLE_EQ(p.num("qce.clock"), 200);
  EXPECT_DOUBLE_EQ(p.num("cost.readl"), 500);
}

// A study's forked runs take the scenario its design read, more sets on top of the first ones,
// without reading the file again: what the file holds by then does not matter.
TEST(Scenario, WithSetsAddsToTheTextReadNotTheFile) {
  const std::string dir = qcesim::test::make_scenario_dir("with-sets");
  ASSERT_FALSE(dir.empty());
  const Scenario sc = Scenario::load(dir + "/seed.json", {"workload.messages=7"});
  qcesim::test::write_text(dir + "/seed.json", "not a scenario any more");
  const Scenario more = sc.with_sets({"qce.clock=200"});
  // Nor where it was: its profile is still the one beside it when it was read, not a name looked
  // up in the current folder once the file is gone.
  std::remove((dir + "/seed.json").c_str());
  EXPECT_EQ(sc.with_sets({}).profile_file, dir + "/sm8650.json");
  EXPECT_EQ(more.workload.messages, 7u);
  EXPECT_DOUBLE_EQ(more.profile_for(more.variants[2]).num("qce.clock"), 200);
  EXPECT_EQ(more.edited, (std::vector<std::string>{"/workload/messages", "/overrides/qce.clock"}));
  try {
    (void)sc.with_sets({"workload.messages=0"});
    ADD_FAILURE() << "a bad set was taken";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file, "--set workload.messages=0") << e.what();
  }
  qcesim::test::remove_tree(dir);
}

TEST(Scenario, ErrorsNameFilePathExpectedAndFound) {
  std::string e = error_of({"workload.messages=-1"});
  // A bad value from --set names the option, not the file that never said it.
  EXPECT_NE(e.find("--set workload.messages=-1: at /workload/messages: expected a whole number"), std::string::npos)
      << e;
  EXPECT_NE(e.find("found the number -1"), std::string::npos) << e;
  e = error_of({"qce.clock=5000"});
  EXPECT_NE(e.find("/overrides/qce.clock: expected qce.clock in [50, 600] MHz, found 5000"), std::string::npos) << e;
  e = error_of({"qce.clok=100"});
  EXPECT_NE(e.find("expected a parameter of profile sm8650, found \"qce.clok\""), std::string::npos) << e;
  e = error_of({"variants.0.engine=\"gpu\""});
  EXPECT_NE(e.find("/variants/0/engine: expected \"qce\", \"cpu\" or \"ce\", found the string \"gpu\""),
            std::string::npos)
      << e;
  e = error_of({"variants.2.lock_batch=4"});
  EXPECT_NE(e.find("/variants/2/lock_batch: expected a variant with bam_lock (there is no lock to place)"),
            std::string::npos)
      << e;
  e = error_of({"variants.1.lock_when=\"shared\"", "variants.1.lock_batch=2"});
  EXPECT_NE(e.find("/variants/1/lock_batch: expected 1 with lock_when \"shared\""), std::string::npos) << e;
  e = error_of({"variants.2.unlock_interrupt=false"});
  EXPECT_NE(e.find("/variants/2/unlock_interrupt: expected true unless the variant has bam_lock"), std::string::npos)
      << e;
  e = error_of({"variants.1.unlock_interrupt=0"});
  EXPECT_NE(e.find("/variants/1/unlock_interrupt: expected true or false"), std::string::npos) << e;
  e = error_of({"variants.1.unlock_interrupt=false", "variants.1.lock_batch=4"});
  EXPECT_NE(e.find("/variants/1/unlock_interrupt: expected true with lock_batch"), std::string::npos) << e;
  e = error_of({"variants.1.unlock_interrupt=false", "variants.1.completion=poll"});
  EXPECT_NE(e.find("/variants/1/unlock_interrupt: expected true with completion \"poll\""), std::string::npos) << e;
  e = error_of({"variants.2.ce_buffers=\"coherent\""});
  EXPECT_NE(e.find("/variants/2/ce_buffers"), std::string::npos) << e;
  e = error_of({"workload.size=3"});
  EXPECT_NE(e.find("/workload/size: expected one of messages"), std::string::npos) << e;
  e = error_of({"workload.hash_calls=\"update\""});
  EXPECT_NE(e.find("/workload/hash_calls: expected \"digest\" or \"init_update_final\", found the string \"update\""),
            std::string::npos)
      << e;
  e = error_of({"workload.algorithm=\"cbc(aes)\"", "workload.hash_calls=\"digest\""});
  EXPECT_NE(e.find("/workload/hash_calls: expected nothing: cbc(aes) is not a hash"), std::string::npos) << e;
  EXPECT_EQ(Scenario::load(seed_path(), {"workload.hash_calls=init_update_final"}).workload.hash_calls,
            Workload::HashCalls::init_update_final);
  EXPECT_EQ(Scenario::load(seed_path()).workload.hash_calls, Workload::HashCalls::digest);
  e = error_of({"workload.caller=\"user\""});
  EXPECT_NE(e.find("/workload/caller: expected \"kernel\", \"af_alg\", \"af_alg_aio\" or \"cryptodev\", found the "
                   "string \"user\""),
            std::string::npos)
      << e;
  EXPECT_EQ(Scenario::load(seed_path(),
                           {"workload.algorithm=\"xts(aes)\"", "workload.key_bytes=32", "workload.caller=\"af_alg\""})
                .workload.caller,
            Workload::Caller::af_alg);
  EXPECT_EQ(Scenario::load(seed_path(), {"workload.caller=af_alg"}).workload.caller, Workload::Caller::af_alg);
  // af_alg_control: an AF_ALG skcipher socket's; anything else refuses it.
  e = error_of({"workload.af_alg_control=\"once\""});
  EXPECT_NE(e.find("/workload/af_alg_control: expected nothing with caller \"kernel\" for sha256: only an AF_ALG "
                   "skcipher socket takes control messages"),
            std::string::npos)
      << e;
  e = error_of({"workload.caller=af_alg_aio", "workload.af_alg_control=\"once\""});
  EXPECT_NE(e.find("/workload/caller: expected \"kernel\" or \"af_alg\" for sha256"), std::string::npos) << e;
  e = error_of({"workload.caller=af_alg", "workload.af_alg_control=\"once\""});
  EXPECT_NE(e.find("/workload/af_alg_control: expected nothing with caller \"af_alg\" for sha256"), std::string::npos)
      << e;
  const std::vector<std::string> cbc_af_alg = {"workload.algorithm=\"cbc(aes)\"", "workload.key_bytes=16",
                                               "workload.caller=\"af_alg\""};
  EXPECT_TRUE(Scenario::load(seed_path(), cbc_af_alg).workload.af_alg_control_each);
  auto once = cbc_af_alg;
  once.push_back("workload.af_alg_control=once");
  EXPECT_FALSE(Scenario::load(seed_path(), once).workload.af_alg_control_each);
  once.back() = "workload.af_alg_control=\"sometimes\"";
  e = error_of(once);
  EXPECT_NE(e.find("/workload/af_alg_control: expected \"each\" or \"once\", found the string \"sometimes\""),
            std::string::npos)
      << e;
  e = error_of({"workload.in_place=true"});
  EXPECT_NE(e.find("/workload/in_place: expected nothing: the workload's algorithm is a hash"), std::string::npos) << e;
}

// A restated parameter ({value, interval, provenance}) is checked like a profile entry: its keys,
// its value and interval against the profile's range, its provenance's kind; words cannot be restated.
TEST(Scenario, RestatedParametersAreCheckedLikeTheProfile) {
  const Scenario sc = Scenario::load(
      seed_path(), {R"(cost.readl={"value": 500, "interval": [400, 900], "provenance": "estimate: this board"})"});
  const Profile prof = sc.profile_for(sc.variants[2]);
  const Param& p = prof.param("cost.readl");
  EXPECT_DOUBLE_EQ(p.value, 500);
  EXPECT_TRUE(p.has_interval);
  EXPECT_DOUBLE_EQ(p.lo, 400);
  EXPECT_DOUBLE_EQ(p.hi, 900);
  EXPECT_EQ(p.provenance, "estimate: this board");
  std::string e = error_of({R"(cost.readl={"value": 500, "range": [0, 1], "provenance": "estimate: x"})"});
  EXPECT_NE(e.find("/overrides/cost.readl/range: expected value, interval or provenance"), std::string::npos) << e;
  e = error_of({R"(cost.readl={"value": 500})"});
  EXPECT_NE(e.find("/overrides/cost.readl/provenance: expected a string naming its source, found nothing"),
            std::string::npos)
      << e;
  e = error_of({R"(cost.readl={"value": 500, "provenance": "because"})"});
  EXPECT_NE(e.find("/overrides/cost.readl/provenance: expected a string starting with measured:"), std::string::npos)
      << e;
  e = error_of({R"(cost.readl={"value": 500, "interval": [400, 1e9], "provenance": "estimate: x"})"});
  EXPECT_NE(e.find("/overrides/cost.readl/interval: expected [low, high] inside the range"), std::string::npos) << e;
  e = error_of({R"(cost.readl={"value": -5, "provenance": "estimate: x"})"});
  EXPECT_NE(e.find("/overrides/cost.readl/value: expected a value in"), std::string::npos) << e;
  e = error_of({R"(cost.readl={"value": 500, "provenance": "estimate: \u0007"})"});
  EXPECT_NE(e.find("/overrides/cost.readl/provenance: expected a provenance without control characters"),
            std::string::npos)
      << e;
  e = error_of({R"(cpu.governor={"value": "schedutil", "provenance": "estimate: x"})"});
  EXPECT_NE(e.find("/overrides/cpu.governor: expected a word for cpu.governor"), std::string::npos) << e;
  e = error_of({"cost.readl=[1]"});
  EXPECT_NE(e.find("expected a number, a word or {value, interval, provenance}"), std::string::npos) << e;
}

TEST(Scenario, BadFilesAreReportedNotCrashed) {
  const std::string bad_json = write_temp("{\"scenario\": ");
  EXPECT_THROW(Scenario::load(bad_json), ConfigError);
  const std::string no_variants = write_temp(R"({"scenario":"x","profile":"sm8650.json","variants":[]})");
  try {
    Scenario::load(no_variants);
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/variants: expected a non-empty array"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Scenario::load("/nonexistent.json"), ConfigError);
  std::remove(bad_json.c_str());
  std::remove(no_variants.c_str());
}

// Profile::load parses a file once per process and does not read it again while the file's stamp
// (the file, its size and times) says the text is the one parsed. A stamp stands for a text only
// once settled (file times move in clock ticks: a write just after a read may leave them as they
// were), and every write is seen, just after the last read and long after it.
TEST(Scenario, AProfileWrittenAgainIsReadAgain) {
  const std::string src = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json";
  nlohmann::json j = nlohmann::json::parse(std::ifstream(src));
  const std::string file = write_temp("");
  const auto write_clock = [&](int mhz) {
    j["parameters"]["qce.clock"]["value"] = mhz;
    std::ofstream(file) << j.dump(1);  // in place: the same file, the same size for 150 and 151
  };
  const auto clock_now = [&] { return Profile::load(file).num("qce.clock"); };
  FileStamp fresh, settled, again;
  const auto written = std::chrono::steady_clock::now();
  write_clock(150);
  ASSERT_TRUE(read_input_file_unless(file, "profile", InputKind::regular, nullptr, fresh));
  if (std::chrono::steady_clock::now() - written < std::chrono::milliseconds(800)) {  // not on a stalled machine
    EXPECT_FALSE(fresh.settled);
    EXPECT_TRUE(read_input_file_unless(file, "profile", InputKind::regular, &fresh, again));  // not yet a proof
  }
  EXPECT_EQ(clock_now(), 150);
  write_clock(151);
  EXPECT_EQ(clock_now(), 151);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  ASSERT_TRUE(read_input_file_unless(file, "profile", InputKind::regular, nullptr, settled));
  struct statfs fs {};
  ASSERT_EQ(statfs(file.c_str(), &fs), 0);
  const std::set<unsigned long> local = {EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC,  BTRFS_SUPER_MAGIC,
                                         TMPFS_MAGIC,      F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC};
  if (local.count(static_cast<unsigned long>(fs.f_type))) {  // elsewhere a stamp never settles
    EXPECT_TRUE(settled.settled);
    EXPECT_FALSE(read_input_file_unless(file, "profile", InputKind::regular, &settled, again));  // not read
  } else {
    EXPECT_FALSE(settled.settled);
  }
  EXPECT_EQ(clock_now(), 151);
  write_clock(150);
  EXPECT_TRUE(read_input_file_unless(file, "profile", InputKind::regular, &settled, again));
  EXPECT_EQ(clock_now(), 150);
  EXPECT_EQ(clock_now(), 150);
  std::remove(file.c_str());
}

TEST(Scenario, ProfileEveryParameterHasUnitRangeProvenanceAndDoc) {
  const Profile p = Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json");
  EXPECT_GT(p.params().size(), 40u);
  for (const auto& [name, prm] : p.params()) {
    EXPECT_FALSE(prm.unit.empty()) << name;
    // A cost item's line is in cpu/costs.h's table, named once (CostItems.*).
    EXPECT_FALSE(prm.doc.empty() && cpu::cost_param_doc(name).empty()) << name;
    EXPECT_FALSE(prm.provenance.empty()) << name;
    if (!prm.is_text()) {
      EXPECT_LE(prm.min, prm.value) << name;
      EXPECT_LE(prm.value, prm.max) << name;
    }
  }
  EXPECT_EQ(p.time("cost.readl"), sc_core::sc_time(886.7, sc_core::SC_NS));  // fitted to P1 (docs/calibration.md)
}

// Each cost item is named once: a field, a kernel label and a doc line in cpu/costs.h; the
// profile gives its value under "cost.<field>", and charges carry the label.
TEST(Scenario, CostItemsEveryItemHasALabelADocAndAProfileValue) {
  const Profile p = Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json");
  const cpu::Costs k = cpu::costs_from_profile(p);
  const cpu::CoreType& task = k.cpus.at(k.task_cpu);
  const double ghz = task.freq_max * task.kernel_ipc;
  for (const cpu::CostItem& c : cpu::kCostItems) {
    EXPECT_NE(std::string(c.label), "") << c.field;
    EXPECT_GT(std::string(c.doc).size(), 10u) << c.field;
    const qcesim::model::Param& prm = p.param(cpu::cost_profile_key(c.id));
    if (prm.unit == "instructions") {
      EXPECT_TRUE(k[c.id].work) << c.field;
      EXPECT_EQ(k.on(c.id, task), sc_core::sc_time(prm.value / ghz, sc_core::SC_NS)) << c.field;
    } else if (prm.unit == "cycles") {  // serialising events: the core's cycles, whatever its IPC
      EXPECT_TRUE(k[c.id].work) << c.field;
      EXPECT_EQ(k.on(c.id, task), sc_core::sc_time(prm.value / task.freq_max, sc_core::SC_NS)) << c.field;
    } else {
      EXPECT_FALSE(k[c.id].work) << c.field;
      EXPECT_EQ(k.on(c.id, task), p.time(cpu::cost_profile_key(c.id))) << c.field;
    }
    EXPECT_EQ(k(c.id).fn, c.label);
  }
  EXPECT_EQ(k.on(cpu::Cost::readl, task), sc_core::sc_time(886.7, sc_core::SC_NS));
  EXPECT_EQ(std::string(k(cpu::Cost::context_switch).fn), "__schedule");
}

// Work travels: the same item on a core type at half the clock, or with half the kernel IPC,
// takes twice as long; a wait (an MMIO read's bus round trip, the SMMU's TLB sync) is the same on
// every core.
TEST(Scenario, CostItemsWorkScalesWithTheCoreAndWaitsDoNot) {
  const Profile p = Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json");
  const cpu::Costs k = cpu::costs_from_profile(p);
  cpu::CoreType base = k.cpus.at(k.task_cpu), slow = base, narrow = base;
  slow.freq_max /= 2;
  narrow.kernel_ipc /= 2;
  const auto ps = [](const sc_core::sc_time& t) { return static_cast<double>(t.value()); };
  EXPECT_NEAR(ps(k.on(cpu::Cost::context_switch, slow)), 2.0 * ps(k.on(cpu::Cost::context_switch, base)), 1.0);
  EXPECT_NEAR(ps(k.on(cpu::Cost::context_switch, narrow)), 2.0 * ps(k.on(cpu::Cost::context_switch, base)), 1.0);
  EXPECT_EQ(k.on(cpu::Cost::readl, slow), k.on(cpu::Cost::readl, base));
  EXPECT_EQ(k.on(cpu::Cost::arm_smmu_tlb_sync, narrow), k.on(cpu::Cost::arm_smmu_tlb_sync, base));
  // Each CPU's type is the one cpu.cpus names, with that type's own clock.
  ASSERT_EQ(k.cpus.size(), 8u);
  EXPECT_EQ(k.cpus[0].name, "cortex-a520");
  EXPECT_EQ(k.cpus[7].name, "cortex-x4");
  EXPECT_DOUBLE_EQ(k.cpus[0].freq_max, p.num("cpu.cortex-a520.freq"));
}

// The lines an item moves between cores (lines.<item>) are a wait of cpu.line_transfer each, on
// any core and at any clock, where the caller's core and the interrupt's differ; none where one
// core does both; a lines.* key must name a cost item.
TEST(Scenario, CostItemsLinesMovedBetweenCoresAreAWaitWhereTheCoresDiffer) {
  Profile p = Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json");
  const cpu::Costs k = cpu::costs_from_profile(p);
  ASSERT_TRUE(k.cores_differ);  // the caller on CPU7, the BAM's interrupt on CPU0
  EXPECT_EQ(k.line_transfer, sc_core::sc_time(70, sc_core::SC_NS));
  EXPECT_DOUBLE_EQ(k[cpu::Cost::qce_ahash_done].lines, 5);
  EXPECT_EQ(k.moved(cpu::Cost::qce_ahash_done), sc_core::sc_time(350, sc_core::SC_NS));
  EXPECT_EQ(k.moved(cpu::Cost::readl), sc_core::SC_ZERO_TIME);  // counts no lines
  cpu::CoreType a520 = k.cpus.at(0), slow = a520;
  slow.freq_max /= 2;
  const auto i = static_cast<std::size_t>(cpu::Cost::qce_ahash_done);
  EXPECT_EQ(cpu::item_times(k, a520).moved[i], cpu::item_times(k, slow).moved[i]);     // a wait
  EXPECT_EQ(cpu::item_times(k, a520).time[i], k.on(cpu::Cost::qce_ahash_done, a520));  // the work apart
  p.set("cpu.irq_cpu", 7, "t", "/");  // hypothesis H3: one core does both
  EXPECT_EQ(cpu::costs_from_profile(p).moved(cpu::Cost::qce_ahash_done), sc_core::SC_ZERO_TIME);
  nlohmann::json j = read_json_file(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json", "profile");
  j["parameters"]["lines.qce_ahash_dne"] = j["parameters"]["lines.qce_ahash_done"];
  std::string e;
  try {
    (void)cpu::costs_from_profile(Profile::parse(j, "t.json"));
  } catch (const ConfigError& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("t.json: at /parameters/lines.qce_ahash_dne: expected a cost item of cpu/costs.h"),
            std::string::npos)
      << e;
  j["parameters"].erase("lines.qce_ahash_dne");
  j["parameters"]["lines.qce_ahash_done"]["unit"] = "ns";
  e.clear();
  try {
    (void)cpu::costs_from_profile(Profile::parse(j, "t.json"));
  } catch (const ConfigError& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("/parameters/lines.qce_ahash_done/unit: expected lines"), std::string::npos) << e;
}

// Items that share a factor move together with it, the others not at all; a share must name a
// ratio parameter of the profile and sit on a cost item.
TEST(Scenario, CostItemsSharedItemsMoveWithTheirCommonFactor) {
  const std::string src = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json";
  Profile p = Profile::load(src);
  EXPECT_EQ(p.param("cost.bam_start_dma").shared, "cpu.count_scale");
  EXPECT_EQ(p.param("cost.context_switch").shared, "cpu.count_scale");  // counted
  EXPECT_EQ(p.param("cost.readl").shared, "");                          // a fitted wait: its own interval
  const cpu::Costs base = cpu::costs_from_profile(p);
  p.set("cpu.count_scale", 3, "t", "/");
  const cpu::Costs scaled = cpu::costs_from_profile(p);
  const auto n = [](const cpu::Costs& k, cpu::Cost c) { return k[c].instructions; };
  EXPECT_DOUBLE_EQ(n(scaled, cpu::Cost::bam_start_dma), 3.0 * n(base, cpu::Cost::bam_start_dma));
  EXPECT_DOUBLE_EQ(n(scaled, cpu::Cost::qce_skcipher_done), 3.0 * n(base, cpu::Cost::qce_skcipher_done));
  EXPECT_DOUBLE_EQ(n(scaled, cpu::Cost::context_switch), 3.0 * n(base, cpu::Cost::context_switch));
  EXPECT_EQ(scaled[cpu::Cost::readl].wait, base[cpu::Cost::readl].wait);
  EXPECT_EQ(scaled[cpu::Cost::caller_overhead].wait, base[cpu::Cost::caller_overhead].wait);  // fitted, not shared
  nlohmann::json j = nlohmann::json::parse(std::ifstream(src));
  for (const auto& [where, share] : {std::pair<std::string, std::string>{"cost.bam_start_dma", "cpu.cortex-x4.freq"},
                                     {"cost.bam_start_dma", "cpu.no_such"},
                                     {"qce.clock", "cpu.count_scale"}}) {
    nlohmann::json bad = j;
    bad["parameters"][where]["shared"] = share;
    try {
      (void)Profile::parse(bad, "p.json");
      ADD_FAILURE() << where << " " << share;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path, "/parameters/" + where + "/shared") << e.what();
    }
  }
}

// A profile without an item, or with a cost key no item has, is refused naming the key.
TEST(Scenario, CostItemsAMissingOrUnknownItemIsAnErrorNamingIt) {
  const std::string src = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json";
  nlohmann::json j = nlohmann::json::parse(std::ifstream(src));
  nlohmann::json missing = j;
  missing["parameters"].erase("cost.qce_ahash_done");
  try {
    (void)cpu::costs_from_profile(Profile::parse(missing, "p.json"));
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file, "p.json");
    EXPECT_EQ(e.path, "/parameters/cost.qce_ahash_done");
    EXPECT_EQ(e.found, "nothing");
  }
  nlohmann::json unknown = j;
  unknown["parameters"]["cost.qce_no_such_function"] = j["parameters"]["cost.qce_ahash_done"];
  try {
    (void)cpu::costs_from_profile(Profile::parse(unknown, "p.json"));
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "/parameters/cost.qce_no_such_function");
    EXPECT_NE(e.expected.find("qce_ahash_done"), std::string::npos) << e.expected;
  }
}

// A correlated group names two or more of the profile's log-normal parameters, once, with a
// symmetric, positive definite matrix of correlations and a provenance; anything else is refused
// at its own JSON path. A restated parameter leaves its group (the scenario's interval is its own).
TEST(Scenario, ProfileCorrelatedGroupsAreCheckedAndARestatedParameterLeavesItsGroup) {
  const std::string src = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json";
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(src));
  const Profile p = Profile::parse(j, "p.json");
  ASSERT_EQ(p.correlations().size(), 1u);
  EXPECT_EQ(p.correlations()[0].names,
            (std::vector<std::string>{"cost.caller_overhead", "cost.readl", "qce.finish", "bam.ce_fetch"}));
  auto refused = [&j](const std::function<void(nlohmann::json&)>& edit, const std::string& path,
                      const std::string& expected) {
    nlohmann::json bad = j;
    edit(bad["correlations"]);
    try {
      (void)Profile::parse(bad, "p.json");
      ADD_FAILURE() << path;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path, path) << e.what();
      EXPECT_NE(e.expected.find(expected), std::string::npos) << e.what();
    }
  };
  refused([](nlohmann::json& g) { g = 3; }, "/correlations", "an array");
  refused([](nlohmann::json& g) { g[0]["weights"] = 1; }, "/correlations/0/weights", "parameters, correlation");
  refused([](nlohmann::json& g) { g[0]["parameters"][1] = "cost.no_such"; }, "/correlations/0/parameters/1",
          "a parameter of this profile");
  refused([](nlohmann::json& g) { g[0]["parameters"][1] = "cost.caller_overhead"; }, "/correlations/0/parameters/1",
          "named once");
  refused([](nlohmann::json& g) { g[0]["parameters"][1] = "soc.dt"; }, "/correlations/0/parameters/1", "a log-normal");
  refused([](nlohmann::json& g) { g[0]["parameters"][1] = "cpu.cortex-x4.freq"; }, "/correlations/0/parameters/1",
          "a log-normal");  // held at its datasheet value: no interval
  refused([](nlohmann::json& g) { g.push_back(g[0]); }, "/correlations/1/parameters/0", "one correlated group");
  refused([](nlohmann::json& g) { g[0]["correlation"].erase(3); }, "/correlations/0/correlation", "4 rows of 4");
  refused([](nlohmann::json& g) { g[0]["correlation"][2] = {1, 0}; }, "/correlations/0/correlation/2", "4 rows");
  refused([](nlohmann::json& g) { g[0]["correlation"][1][1] = 0.9; }, "/correlations/0/correlation/1/1",
          "1 on the diagonal");
  refused([](nlohmann::json& g) { g[0]["correlation"][1][0] = 0.5; }, "/correlations/0/correlation/1/0", "symmetric");
  refused([](nlohmann::json& g) { g[0]["correlation"][0][1] = "high"; }, "/correlations/0/correlation/0/1",
          "in [-1, 1]");
  refused([](nlohmann::json& g) { g[0]["correlation"][0][1] = 1.5; }, "/correlations/0/correlation/0/1", "in [-1, 1]");
  // Each pair allowed on its own, together impossible: a, b, c with a~b and a~c at 0.9, b~c at -0.9.
  refused(
      [](nlohmann::json& g) {
        g[0]["parameters"] = {"cost.caller_overhead", "cost.readl", "qce.finish"};
        g[0]["correlation"] = {{1, 0.9, 0.9}, {0.9, 1, -0.9}, {0.9, -0.9, 1}};
      },
      "/correlations/0/correlation", "positive definite");
  refused([](nlohmann::json& g) { g[0].erase("provenance"); }, "/correlations/0/provenance", "a string");
  refused([](nlohmann::json& g) { g[0] = "cost.readl"; }, "/correlations/0", "an object");
  refused([](nlohmann::json& g) { g[0]["parameters"] = {"cost.readl"}; }, "/correlations/0/parameters", "at least two");
  refused([](nlohmann::json& g) { g[0]["parameters"] = "cost.readl"; }, "/correlations/0/parameters", "at least two");
  refused([](nlohmann::json& g) { g[0]["parameters"][0] = 7; }, "/correlations/0/parameters/0", "a parameter name");
  // A member shares a factor (its draw is multiplied by the factor's: its marginal is not its own).
  refused([](nlohmann::json& g) { g[0]["parameters"][1] = "cost.bam_start_dma"; }, "/correlations/0/parameters/1",
          "without a shared factor");
  // A member's interval reaches zero (a normal, not a log-normal) or has no width.
  for (const auto& [iv, name] : std::vector<std::pair<nlohmann::json, std::string>>{{{-5, 1000}, "cost.readl"},
                                                                                    {{886.7, 886.7}, "cost.readl"}}) {
    nlohmann::json bad = j;
    bad["parameters"][name]["range"] = {-10, 9880};
    bad["parameters"][name]["interval"] = iv;
    try {
      (void)Profile::parse(bad, "p.json");
      ADD_FAILURE() << iv.dump();
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path, "/correlations/0/parameters/1") << e.what();
      EXPECT_NE(e.expected.find("a log-normal"), std::string::npos) << e.what();
    }
  }
  // Restating one of the four takes it out of the group; restating three of them ends the group.
  Profile r = p;
  r.restate("qce.finish", {{"value", 20000}, {"interval", {15000, 30000}}, {"provenance", "estimate: a test's"}},
            "s.json", "/overrides/qce.finish");
  ASSERT_EQ(r.correlations().size(), 1u);
  EXPECT_EQ(r.correlations()[0].names,
            (std::vector<std::string>{"cost.caller_overhead", "cost.readl", "bam.ce_fetch"}));
  EXPECT_EQ(r.correlations()[0].matrix[0][1], p.correlations()[0].matrix[0][1]);
  EXPECT_EQ(r.correlations()[0].matrix[1][2], p.correlations()[0].matrix[1][3]);
  for (const char* n : {"cost.readl", "bam.ce_fetch"})
    r.restate(n, {{"value", 1000}, {"provenance", "estimate: a test's"}}, "s.json", std::string("/overrides/") + n);
  EXPECT_TRUE(r.correlations().empty());
}

// A scenario's own correlated groups (`correlations`, beside its overrides or a variant's) are over
// what that level restates with an interval (a fit's posterior comes with its values): checked
// as a profile's are, a member named at another level or left at the profile's value is refused
// at its JSON path, and a member the same level holds at a plain value is pinned and leaves.
TEST(Scenario, AScenariosOwnCorrelatedGroupsAreOverWhatItRestates) {
  const std::string caller =
      R"(cost.caller_overhead={"value": 20000, "interval": [15000, 30000], "provenance": "estimate: a fit"})";
  const std::string readl = R"(cost.readl={"value": 900, "interval": [500, 1500], "provenance": "estimate: a fit"})";
  const std::string group = R"({"parameters": ["cost.caller_overhead", "cost.readl"], "correlation": [[1, -0.4],
      [-0.4, 1]], "provenance": "calibrated: a test's fit"})";
  const Scenario sc = Scenario::load(seed_path(), {caller, readl, "correlations=[" + group + "]"});
  const Profile shared = sc.shared_profile();
  ASSERT_EQ(shared.correlations().size(), 2u);  // the profile's, less the two, and the scenario's
  EXPECT_EQ(shared.correlations()[0].names, (std::vector<std::string>{"qce.finish", "bam.ce_fetch"}));
  EXPECT_EQ(shared.correlations()[1].names, (std::vector<std::string>{"cost.caller_overhead", "cost.readl"}));
  EXPECT_DOUBLE_EQ(shared.correlations()[1].matrix[0][1], -0.4);
  EXPECT_EQ(shared.correlations()[1].provenance, "calibrated: a test's fit");
  EXPECT_EQ(sc.profile_for(sc.variants[1]).correlations().size(), 2u);

  // Not restated here: the profile's own value, or another level's restatement.
  std::string e = error_of({caller, "correlations=[" + group + "]"});
  EXPECT_NE(e.find("/correlations/0/parameters/1: expected a parameter restated beside it"), std::string::npos) << e;
  EXPECT_NE(e.find("\"cost.readl\" as its profile has it"), std::string::npos) << e;
  e = error_of({caller, readl, "variants.1.correlations=[" + group + "]"});
  EXPECT_NE(e.find("/variants/1/correlations/0/parameters/0: expected a parameter restated beside it"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("restated at /overrides/cost.caller_overhead"), std::string::npos) << e;
  // Checked as a profile's groups are.
  e = error_of({caller, readl, R"(correlations=[{"parameters": ["cost.caller_overhead", "cost.readl"],
      "correlation": [[1, 0.5], [0.4, 1]], "provenance": "calibrated: x"}])"});
  EXPECT_NE(e.find("/correlations/0/correlation/1/0: expected the same as [0][1]"), std::string::npos) << e;
  e = error_of({caller, readl, "correlations={}"});
  EXPECT_NE(e.find("/correlations: expected"), std::string::npos) << e;
  EXPECT_EQ(error_of({caller, readl, "correlations=[]"}), "");  // none, as in a profile
  // A text parameter, even pinned by --set, is no member.
  e = error_of({caller, "cpu.governor=performance", R"(correlations=[{"parameters": ["cost.caller_overhead",
      "cpu.governor"], "correlation": [[1, 0], [0, 1]], "provenance": "calibrated: x"}])"});
  EXPECT_NE(e.find("/correlations/0/parameters/1: expected a numeric parameter"), std::string::npos) << e;
  e = error_of({caller, readl, "correlations=[" + group + ", " + group + "]"});
  EXPECT_NE(e.find("/correlations/1/parameters/0: expected a parameter in one correlated group"), std::string::npos)
      << e;

  // In a variant: over the variant's restatements; a plain value there pins a member, which
  // leaves the group (a sample's value routed to the variant does that to every member).
  auto variant_sets = [&](const std::string& readl_there) {
    return std::vector<std::string>{"variants.1.overrides.cost.caller_overhead=" + caller.substr(21),
                                    "variants.1.overrides.cost.readl=" + readl_there,
                                    "variants.1.correlations=[" + group + "]"};
  };
  const Scenario v = Scenario::load(seed_path(), variant_sets(readl.substr(11)));
  EXPECT_EQ(v.profile_for(v.variants[1]).correlations().size(), 2u);
  EXPECT_EQ(v.profile_for(v.variants[1]).correlations()[1].names,
            (std::vector<std::string>{"cost.caller_overhead", "cost.readl"}));
  EXPECT_EQ(v.profile_for(v.variants[2]).correlations().size(), 1u);  // the other variants: the profile's
  EXPECT_EQ(v.shared_profile().correlations()[0].names.size(), 4u);
  const Scenario pinned = Scenario::load(seed_path(), variant_sets("950"));
  const Profile p = pinned.profile_for(pinned.variants[1]);
  ASSERT_EQ(p.correlations().size(), 1u);  // the profile's, less the caller: the variant's ended
  EXPECT_EQ(p.correlations()[0].names, (std::vector<std::string>{"cost.readl", "qce.finish", "bam.ce_fetch"}));
  EXPECT_DOUBLE_EQ(p.num("cost.readl"), 950);
}

// A plain value written in the file where the group is (not an edit: --set, an uncertainty
// sample) is refused as a member, even over another level's restatement of it: a group says
// how values drawn together move, and a value written plainly is not drawn.
TEST(Scenario, AScenarioGroupRefusesAValueItsFileHoldsPlainly) {
  const std::string profile = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json";
  auto scenario = [&profile](const std::string& readl_in_variant) {
    return write_temp(R"({"scenario": "t", "profile": ")" + profile + R"(",
      "overrides": {"cost.readl": {"value": 900, "interval": [500, 1500], "provenance": "estimate: a fit"}},
      "variants": [{"name": "v", "engine": "qce", "overrides": {
        "cost.caller_overhead": {"value": 20000, "interval": [15000, 30000], "provenance": "estimate: a fit"},
        "cost.readl": )" +
                      readl_in_variant + R"(},
        "correlations": [{"parameters": ["cost.caller_overhead", "cost.readl"], "correlation": [[1, -0.4], [-0.4, 1]],
                          "provenance": "calibrated: a test's fit"}]}]})");
  };
  const std::string plain = scenario("950");
  try {
    (void)Scenario::load(plain);
    ADD_FAILURE() << "a plain member loaded";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "/variants/0/correlations/0/parameters/1") << e.what();
    EXPECT_NE(std::string(e.what()).find("held at a plain value at /variants/0/overrides/cost.readl"),
              std::string::npos)
        << e.what();
  }
  // The same value by --set pins it: the group ends, the scenario loads.
  const std::string restated = scenario(R"({"value": 950, "interval": [600, 1400], "provenance": "estimate: a fit"})");
  const Scenario ok = Scenario::load(restated, {"variants.0.overrides.cost.readl=950"});
  EXPECT_DOUBLE_EQ(ok.profile_for(ok.variants[0]).num("cost.readl"), 950);
  EXPECT_EQ(Scenario::load(restated).profile_for(Scenario::load(restated).variants[0]).correlations().back().names,
            (std::vector<std::string>{"cost.caller_overhead", "cost.readl"}));
  std::remove(plain.c_str());
  std::remove(restated.c_str());
}
