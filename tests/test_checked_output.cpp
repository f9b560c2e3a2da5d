// Nothing lost in silence (issue 22): every command whose standard output cannot take what it
// prints says so and exits non-zero; every count on the command line is read strictly, inside its
// documented range, before anything runs. Failing outputs are a read-only descriptor and a pipe
// without a reader: no test writes to /dev.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <regex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;

namespace {

class CheckedOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::make_scenario_dir("checked");
    ASSERT_FALSE(dir.empty());
    // A small sweep, a folded-stacks file and a folder of one scenario for validate.
    test::write_text(dir + "/s.json", json{{"sweep", "s"},
                                           {"scenario", "seed.json"},
                                           {"variants", {"sha256-qce-nolock"}},
                                           {"set", {{"workload.messages", 20}}},
                                           {"timing_only", true},
                                           {"axes", {{{"path", "workload.message_bytes"}, {"values", {64, 4096}}}}}}
                                          .dump());
    test::write_text(dir + "/p.folded", "task;caller 1000\nhardirq;readl 500\n");
    std::filesystem::create_directory(dir + "/v");
    std::filesystem::copy_file(dir + "/sm8650.json", dir + "/v/sm8650.json");
    std::filesystem::copy_file(dir + "/seed.json", dir + "/v/seed.json");
    test::write_text(dir + "/in.bin", std::string(64, 'a'));
  }
  void TearDown() override { test::remove_tree(dir); }

  std::string dir;
};

// One quick form of every command (and of --help and --version), each printing to stdout. A
// command that needs a file made first names the run that makes it (`before`): sensitivity's
// 177 runs are made once as a shard and each form of the command merges it (the same analysis
// and output, 45 s less under ASan).
struct CommandForm {
  const char* name;
  std::vector<std::string> args;
  std::vector<std::string> before;
};
const std::vector<std::string> kSensitivity = {"sensitivity",          "seed.json", "--set",
                                               "workload.messages=20", "--variant", "sha256-qce-nolock",
                                               "--trajectories",       "2"};
const std::vector<CommandForm> kEveryCommand = {
    {"Help", {"--help"}, {}},
    {"Version", {"--version"}, {}},
    {"RunHelp", {"run", "--help"}, {}},
    {"Hash", {"hash", "in.bin"}, {}},
    {"Cipher", {"cipher", "--alg", "ecb(aes)", "--key", "000102030405060708090a0b0c0d0e0f", "in.bin"}, {}},
    {"Run", {"run", "seed.json", "--timing-only", "--set", "workload.messages=20", "--jobs", "1"}, {}},
    {"RunUncertainty",
     {"run", "seed.json", "--set", "workload.messages=20", "--uncertainty", "2", "--variant", "sha256-qce-nolock",
      "--jobs", "1"},
     {}},
    {"Sweep", {"sweep", "s.json", "--jobs", "1", "--out", "sw"}, {}},
    {"Explain", {"explain", "seed.json", "--timing-only", "--request", "2", "--set", "workload.messages=5"}, {}},
    {"Validate", {"validate", "v", "--samples", "2", "--messages", "20", "--jobs", "1"}, {}},
    {"Profile", {"profile", "sm8650.json"}, {}},
    {"Flamegraph", {"flamegraph", "p.folded"}, {}},
    {"Calibrate",
     {"calibrate", "seed.json", "--fit", "cost.readl", "--messages", "20", "--iterations", "0", "--jobs", "1"},
     {}},
    {"Sensitivity", test::plus_args(kSensitivity, {"--merge", "shard.json"}),
     test::plus_args(kSensitivity, {"--jobs", "1", "--shard", "0/1", "--shard-out", "shard.json"})},
};

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// ctest's test list shows the command line.
void PrintTo(const CommandForm& c, std::ostream* os) { *os << joined(c.args); }

class CheckedOutputOf : public CheckedOutput, public ::testing::WithParamInterface<CommandForm> {};

}  // namespace

// Each command prints normally to a file, and to a failing stream exits non-zero naming it.
TEST_P(CheckedOutputOf, EveryCommandReportsAFailedStandardOutput) {
  const CommandForm& c = GetParam();
  if (!c.before.empty()) {
    const test::ProcessResult made = test::run_qcesim(c.before, dir);
    ASSERT_EQ(made.exit_code, 0) << joined(c.before) << "\n" << made.err;
  }
  const test::ProcessResult ok = test::run_qcesim(c.args, dir);
  ASSERT_EQ(ok.exit_code, 0) << joined(c.args) << "\n" << ok.err;
  ASSERT_FALSE(ok.out.empty()) << joined(c.args);
  for (const auto how : {test::FailingStdout::read_only, test::FailingStdout::broken_pipe}) {
    const test::ProcessResult r = test::run_qcesim_failing_stdout(c.args, dir, how);
    EXPECT_EQ(r.signal, 0) << joined(c.args);
    EXPECT_NE(r.exit_code, 0) << joined(c.args);
    EXPECT_NE(r.err.find("standard output: write failed"), std::string::npos) << joined(c.args) << "\n" << r.err;
  }
}
// One test per command: ctest spreads them over the cores.
INSTANTIATE_TEST_SUITE_P(Command, CheckedOutputOf, ::testing::ValuesIn(kEveryCommand),
                         [](const ::testing::TestParamInfo<CommandForm>& i) { return std::string(i.param.name); });

// Counts: digits only, inside the documented range, or exit 2 naming the option, the range and
// what was found, before any run (nothing written, nothing simulated).
TEST_F(CheckedOutput, CountsAreReadStrictlyInsideTheirRanges) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"run", "seed.json", "--uncertainty", "-5"},
       "--uncertainty: expected a whole number from 2 to 10000, found \"-5\""},
      {{"run", "seed.json", "--uncertainty", "0"},
       "--uncertainty: expected a whole number from 2 to 10000, found \"0\""},
      {{"run", "seed.json", "--uncertainty", "10001"}, "from 2 to 10000, found \"10001\""},
      {{"run", "seed.json", "--uncertainty", "5x"}, "found \"5x\""},
      {{"run", "seed.json", "--uncertainty", " 5"}, "found \" 5\""},
      {{"run", "seed.json", "--seeds", "0"}, "--seeds: expected a whole number from 2 to 10000"},
      {{"run", "seed.json", "--seeds", "99999999999999999999999"}, "--seeds: expected a whole number from 2 to 10000"},
      {{"run", "seed.json", "--uncertainty", "3", "--seed", "-1"},
       "--seed: expected a whole number from 0 to 18446744073709551615, found \"-1\""},
      {{"run", "seed.json", "--jobs", "0"}, "--jobs: expected a whole number from 1 to 256"},
      {{"run", "seed.json", "--top", "+3"}, "--top: expected a whole number from 0 to 1000, found \"+3\""},
      {{"run", "seed.json", "--uncertainty", "3", "--shard", "1/2/3", "--shard-out", "x.json"},
       "--shard: expected I/N with 0 <= I < N <= 100000 (e.g. 0/4), found \"1/2/3\""},
      {{"run", "seed.json", "--uncertainty", "3", "--shard", "1/2x", "--shard-out", "x.json"}, "--shard: expected I/N"},
      {{"run", "seed.json", "--trace-requests", "-1:5"}, "--trace-requests: expected A:B"},
      {{"validate", "v", "--samples", "-2"}, "--samples: expected a whole number from 2 to 10000"},
      {{"sensitivity", "seed.json", "--trajectories", "501"}, "--trajectories: expected a whole number from 2 to 500"},
      {{"calibrate", "seed.json", "--fit", "cost.readl", "--prior-factor", "nan"},
       "--prior-factor: expected a number from"},
      {{"calibrate", "seed.json", "--fit", "cost.readl", "--iterations", "-1"},
       "--iterations: expected a whole number from 0"},
      {{"explain", "seed.json", "--request", "-2"}, "--request: expected a whole number from 0 to 1000000000"},
      {{"cipher", "--alg", "ecb(aes)", "--key", "000102030405060708090a0b0c0d0e0f", "--era", "-5", "in.bin"},
       "--era: expected a whole number from 0 to 9999, found \"-5\""},
      {{"cipher", "--alg", "ccm(aes)", "--key", "000102030405060708090a0b0c0d0e0f", "--iv", "101112131415161718191a1b",
        "--tag-bytes", "0", "in.bin"},
       "--tag-bytes: expected a whole number from 1 to 64, found \"0\""},
      {{"hash", "--request-bytes", "-64", "in.bin"}, "--request-bytes: expected a whole number from 1 to 67108864"},
  };
  for (const Case& c : cases) {
    const test::ProcessResult r = test::run_qcesim(c.args, dir);
    EXPECT_EQ(r.exit_code, 2) << joined(c.args);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << joined(c.args) << "\n" << r.err;
    EXPECT_EQ(r.err.find("simulated in"), std::string::npos) << joined(c.args) << ": ran before refusing";
    EXPECT_TRUE(r.out.empty()) << joined(c.args);
  }
}

// A regular file that reports size 0 but has contents (/proc, /sys) is read to its end.
TEST_F(CheckedOutput, CipherReadsAProcFileToItsEnd) {
  const test::ProcessResult r =
      test::run_qcesim({"cipher", "--alg", "ctr(aes)", "--key", "000102030405060708090a0b0c0d0e0f", "--iv",
                        "000102030405060708090a0b0c0d0e0f", "/proc/self/cmdline"},
                       dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.out.size(), 20u);  // the binary's path and the arguments, encrypted byte for byte
}

// `qcesim --version` names the revision it was built from (cmake/revision.cmake): in a git
// checkout of this tree, `git describe --always --dirty`; else "unknown".
TEST_F(CheckedOutput, VersionNamesTheBuildsRevision) {
  const test::ProcessResult r = test::run_qcesim({"--version"}, "/tmp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex("qcesim [0-9]+\\.[0-9]+\\.[0-9]+ \\([0-9A-Za-z._+-]+\\)\n"))) << r.out;
  if (std::filesystem::exists(std::string(QCESIM_SOURCE_DIR) + "/.git")) {
    EXPECT_EQ(r.out.find("(unknown)"), std::string::npos) << r.out;
  }
}
