// The text fuzzers' corpus and regressions (fuzz/corpus, fuzz/regressions), replayed in the
// ordinary suite: each input loads or ends as a ConfigError, never anything else. The device
// fuzzer's inputs replay under scripts/ci-sanitize.sh.
#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/board_archive.h"
#include "ingest/ingest.h"
#include "model/config_error.h"
#include "studies/scenario.h"
#include "studies/sweep.h"
#include "tests/process.h"

using namespace qcesim;
namespace fs = std::filesystem;

namespace {

// Every file of one target, corpus and regressions.
std::vector<std::string> inputs(const std::string& target) {
  std::vector<std::string> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(QCESIM_SOURCE_DIR) / "fuzz" / kind / target;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) files.push_back(e.path().string());
  }
  return files;
}

// A folder as the fuzzer lays it out: the seed scenario and its profile beside the input.
class FuzzInputs : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::make_scenario_dir("fuzz-inputs"); }
  void TearDown() override { test::remove_tree(dir); }

  // Loads with `load`; true when it loaded, false for a ConfigError (anything else fails the test).
  template <typename F>
  bool loads(const std::string& file, F&& load) {
    try {
      load();
      return true;
    } catch (const model::ConfigError&) {
      return false;
    } catch (const std::exception& e) {
      ADD_FAILURE() << file << ": " << e.what();
      return false;
    }
  }
  std::string dir;
};

}  // namespace

TEST_F(FuzzInputs, ScenarioSweepProfileAndSetInputsLoadOrAreConfigErrors) {
  std::size_t loaded = 0, total = 0;
  for (const auto& f : inputs("scenario")) {
    fs::copy_file(f, dir + "/in.json", fs::copy_options::overwrite_existing);
    loaded += loads(f, [&] { studies::Scenario::load(dir + "/in.json"); });
    ++total;
  }
  for (const auto& f : inputs("sweep")) {
    fs::copy_file(f, dir + "/in.json", fs::copy_options::overwrite_existing);
    loaded += loads(f, [&] { studies::Sweep::load(dir + "/in.json"); });
    ++total;
  }
  for (const auto& f : inputs("profile")) {
    loaded += loads(f, [&] { model::Profile::parse(model::read_json_file(f, "profile file"), f); });
    ++total;
  }
  for (const auto& f : inputs("set")) {
    loaded += loads(f, [&] { studies::Scenario::load(dir + "/seed.json", {test::slurp(f)}); });
    ++total;
  }
  EXPECT_GE(total, 25u);
  // The seeds are good inputs: the committed corpus starts from files that load.
  EXPECT_GE(loaded, 25u);
}

TEST_F(FuzzInputs, ArchiveAndDeviceTreeInputsLoadOrAreConfigErrors) {
  std::size_t loaded = 0, total = 0;
  for (const auto& f : inputs("archive")) {
    loaded += loads(f, [&] {
      const ingest::BoardArchive a = ingest::parse_board_archive(test::slurp(f), f);
      (void)ingest::ingest_board(a, "fuzzed", std::string(QCESIM_SOURCE_DIR) + "/scenarios");
    });
    ++total;
  }
  for (const auto& f : inputs("fdt")) {
    loaded += loads(f, [&] { (void)ingest::read_fdt(test::slurp(f), f, "system/fdt"); });
    ++total;
  }
  EXPECT_GE(total, 2u);
  EXPECT_GE(loaded, 2u);  // the seeds are good inputs
}
