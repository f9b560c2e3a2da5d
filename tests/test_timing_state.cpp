// Parts register themselves for the fast-forward's state digest (model/timing_state.h): every
// SystemC module of the elaborated SoC, another EE's agent included, is on the list and so are both
// drivers; the parts that draw random numbers deciding timing say so and switch the fast-forward
// off; a part that forgets to register is caught. One elaboration per process: one per test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/timing_state.h"
#include "studies/replay.h"
#include "tests/process.h"

using namespace qcesim;

namespace {

using test::seed_path;

soc::EmulatorConfig config(const std::vector<std::string>& sets) {
  const auto sc = studies::Scenario::load(seed_path(), sets);
  const auto& v = sc.variant("sha256-qce-lock");
  return studies::emulator_config(sc.profile_for(v), v, false, sc.workload, sc.faults);
}

void modules_under(sc_core::sc_object* o, std::vector<sc_core::sc_module*>& out) {
  if (auto* m = dynamic_cast<sc_core::sc_module*>(o)) out.push_back(m);
  for (sc_core::sc_object* c : o->get_child_objects()) modules_under(c, out);
}

// The modules of the elaborated design that are not on the list.
std::vector<std::string> unlisted_modules() {
  std::vector<sc_core::sc_module*> modules;
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) modules_under(o, modules);
  EXPECT_GT(modules.size(), 8u);  // soc, kernel, its cores, dram, bus, bam, qce, cpu, tz
  const auto& listed = model::TimingState::all();
  std::vector<std::string> missing;
  for (sc_core::sc_module* m : modules) {
    const auto* t = dynamic_cast<const model::TimingState*>(m);
    if (!t || std::find(listed.begin(), listed.end(), t) == listed.end()) missing.push_back(m->name());
  }
  return missing;
}

bool listed_named(const std::string& name) {
  for (const model::TimingState* t : model::TimingState::all())
    if (t->timing_name() == name) return true;
  return false;
}

// A module that keeps timing state but is no TimingState: what the test above must catch (a
// test double, not part of the SoC).
struct ForgetfulBlock : sc_core::sc_module {
  explicit ForgetfulBlock(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
};

}  // namespace

TEST(TimingState, EveryModuleOfTheSocAndBothDriversAreListed) {
  soc::Emulator emu(config({"workload.tz.rate_per_s=1000"}));
  EXPECT_EQ(unlisted_modules(), std::vector<std::string>{});
  EXPECT_TRUE(listed_named("bam_dma"));
  EXPECT_TRUE(listed_named("qce_device"));
  EXPECT_TRUE(listed_named("tz"));
  // Another EE's arrivals are random: its agent says so.
  EXPECT_EQ(emu.random_part(), "tz");
}

TEST(TimingState, AModuleWithoutAFingerprintIsCaught) {
  soc::Emulator emu(config({}));
  ForgetfulBlock extra("forgetful");
  EXPECT_EQ(unlisted_modules(), std::vector<std::string>{"forgetful"});
}

// Without randomness every part can repeat; each random source switches the fast-forward off
// itself, by the part that owns the generator.
TEST(TimingState, TheOwnersOfRandomGeneratorsSayTheyCannotRepeat) {
  {
    soc::Emulator emu(config({}));
    EXPECT_EQ(emu.random_part(), "");
  }
  // The one elaboration done, the blocks alone (no simulation needed to ask them).
  bam::BamConfig b;
  b.faults.drop = 0.01;
  bam::Bam bam("faulty_bam", b);
  EXPECT_FALSE(bam.repeats());
  qce::QceConfig q;
  qce::Qce engine("faulty_qce", q);
  EXPECT_TRUE(engine.repeats());
  q.faults.hang = 0.01;
  qce::Qce hanging("hanging_qce", q);
  EXPECT_FALSE(hanging.repeats());
  cpu::Core core("varying_core", 0);
  EXPECT_TRUE(core.repeats());
  core.set_variation(0.1, 5);
  EXPECT_FALSE(core.repeats());
  EXPECT_EQ(model::TimingState::first_random(), "faulty_bam");
}
