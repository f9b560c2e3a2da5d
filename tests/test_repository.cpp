// The repository as a whole: it stands alone (nothing refers to files beside the clone), its
// vectors are the published files, the seed's measured values are P1's, and docs/profile.md is
// the generated table.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>

#include "tests/emu_helpers.h"
#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;
namespace fs = std::filesystem;

// Nothing in the build, the tests, the scripts or the docs reads from beside the clone.
TEST(Repository, NothingRefersToFilesBesideTheClone) {
  const fs::path root = QCESIM_SOURCE_DIR;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    if (rel.rfind(".git", 0) == 0 || rel.rfind("build", 0) == 0 || rel.rfind("tests/vectors", 0) == 0 ||
        !e.is_regular_file())
      continue;
    const std::string text = test::slurp(e.path().string());
    EXPECT_EQ(text.find(std::string("..") + "/shared"), std::string::npos) << rel;
  }
}

// The vectors are the published files: each matches the hash its SHA256SUMS line gives.
TEST(Repository, VectorsMatchTheirChecksums) {
  const std::string root = std::string(QCESIM_SOURCE_DIR) + "/tests/vectors/";
  std::istringstream sums(test::slurp(root + "SHA256SUMS"));
  std::size_t files = 0;
  for (std::string line; std::getline(sums, line);) {
    const std::string want = line.substr(0, 64), name = line.substr(66);
    const std::string text = test::slurp(root + name);
    ASSERT_FALSE(text.empty()) << name;
    const std::vector<std::uint8_t> bytes(text.begin(), text.end());
    EXPECT_EQ(test::hex(test::openssl_digest(HashAlg::sha256, bytes)), want) << name;
    ++files;
  }
  EXPECT_EQ(files, 75u);
}

// The seed scenario's measured block says what the published measurement (P1) says.
TEST(Repository, SeedMeasurementsAreP1) {
  const std::string src = QCESIM_SOURCE_DIR;
  const json p1 = json::parse(test::slurp(src + "/docs/reference/measurements.json"))["P1"];
  const json sc = json::parse(test::slurp(src + "/scenarios/sm8650-seed.json"));
  ASSERT_EQ(sc["variants"].size(), 3u);
  for (const json& v : sc["variants"]) {
    const json& m = p1["variants"][v["name"].get<std::string>()];
    for (const char* k : {"wall_s", "cpu_s", "hardirq_s", "softirq_s"})
      EXPECT_EQ(v["measured"][k], m[k]) << v["name"] << k;
    EXPECT_EQ(v["measured"]["messages"], p1["workload"]["messages"]);
  }
}

// M2's eighteen scenarios replay measurements.json's two runs of tcrypt: variant qce the engine-only
// run (aes_sw_max_len 0), variant soft the always-software one, each as 2000 requests in the time
// the published rate gives them.
TEST(Repository, Ipq40xxM2ScenariosAreTheirPublishedRates) {
  const std::string src = QCESIM_SOURCE_DIR;
  const json m2 = json::parse(test::slurp(src + "/docs/reference/measurements.json"))["M"]["M2"];
  int files = 0;
  for (const char* key : {"128", "256"})
    for (const char* size : {"16", "64", "256", "512", "768", "1024", "2048", "4096", "8192"}) {
      const json sc = json::parse(test::slurp(src + "/scenarios/ipq40xx-m2-cbc" + key + "-" + size + ".json"));
      const std::string aes = std::string("aes") + key;
      for (const json& v : sc["variants"]) {
        const bool soft = v["name"] == "soft";
        const double bps = m2[soft ? "bytes_per_s_always_sw" : "bytes_per_s"][aes][size].get<double>();
        const double n = v["measured"]["messages"].get<double>() * v["measured"]["message_bytes"].get<double>();
        EXPECT_NEAR(v["measured"]["wall_s"].get<double>(), n / bps, 1e-6) << key << " " << size << " " << v["name"];
        EXPECT_EQ(v["measured"]["message_bytes"].get<int>(), std::stoi(size));
        if (soft) {
          EXPECT_EQ(v["overrides"]["driver.aes_sw_max_len"], 32768);
        }
      }
      EXPECT_EQ(sc["variants"].size(), 2u) << key << " " << size;
      ++files;
    }
  EXPECT_EQ(files, 18);
}

// M3's and M15's openssl speed runs through cryptodev: each size's scenario holds the published
// rate (1000 B/s) as the wall time of its messages, with the key the run used.
TEST(Repository, Ipq40xxDevcryptoScenariosAreTheirPublishedRates) {
  const std::string src = QCESIM_SOURCE_DIR;
  const json m = json::parse(test::slurp(src + "/docs/reference/measurements.json"))["M"];
  struct Run {
    const char* id;
    const char* prefix;
    int key_bytes;
    json rates;
  };
  for (const Run& run : {Run{"M3", "ipq40xx-m3-cbc256-", 32, m["M3"]["result_kBps"]["multi1"]},
                         Run{"M15", "ipq40xx-m15-cbc128-", 16, m["M15"]["result_kBps"]}}) {
    const json& sizes = m[run.id]["sizes"];
    ASSERT_EQ(sizes.size(), run.rates.size()) << run.id;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::string size = std::to_string(sizes[i].get<int>());
      const json sc = json::parse(test::slurp(src + "/scenarios/" + run.prefix + size + ".json"));
      EXPECT_EQ(sc["workload"]["key_bytes"], run.key_bytes) << run.id << " " << size;
      EXPECT_EQ(sc["workload"]["caller"], "cryptodev") << run.id << " " << size;
      EXPECT_EQ(sc["overrides"]["driver.aes_sw_max_len"], 0) << run.id << " " << size;
      const json& measured = sc["variants"][0]["measured"];
      EXPECT_EQ(measured["message_bytes"].get<int>(), sizes[i].get<int>());
      const double n = measured["messages"].get<double>() * measured["message_bytes"].get<double>();
      EXPECT_NEAR(measured["wall_s"].get<double>(), n / (run.rates[i].get<double>() * 1000), 1e-6)
          << run.id << " " << size;
    }
  }
}

// docs/profile.md's table is what `qcesim profile` prints for the shipped profile (cost items'
// meanings from cpu/costs.h's table, then each correlated group), so the doc cannot drift from
// the profile or the table.
TEST(Repository, ProfileDocIsTheGeneratedTable) {
  const std::string src = QCESIM_SOURCE_DIR;
  for (const auto& [doc, profile] :
       {std::pair<std::string, std::string>{"profile.md", "sm8650.json"}, {"ipq40xx.md", "ipq40xx.json"}}) {
    const test::ProcessResult r = test::run_qcesim({"profile", src + "/scenarios/" + profile}, src);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_GT(r.out.size(), 1000u);
    const std::string text = test::slurp(src + "/docs/" + doc);
    EXPECT_NE(text.find(r.out), std::string::npos)
        << "regenerate the tables: scripts/gen-profile-doc.py (" << doc << ")";
    // No correlated group's table left over from an older profile beside the generated ones.
    auto groups = [](const std::string& t) {
      std::size_t n = 0;
      for (std::size_t at = t.find("Drawn together"); at != std::string::npos; at = t.find("Drawn together", at + 1))
        ++n;
      return n;
    };
    EXPECT_EQ(groups(text), groups(r.out)) << doc;
    EXPECT_NE(r.out.find("`gic_handle_irq`: interrupt entry"), std::string::npos);
  }
}

// docs/ explains every command and every option: each subcommand and each of its long options, as
// the program's own completion script lists them, appears in the docs or the README as code
// (`qcesim NAME`, `--option`), so an option added without a line in docs/ fails here.
TEST(Repository, DocsNameEveryCommandAndOption) {
  const std::string src = QCESIM_SOURCE_DIR;
  std::string docs = test::slurp(src + "/README.md");
  for (const auto& e : fs::directory_iterator(src + "/docs"))
    if (e.path().extension() == ".md") docs += test::slurp(e.path().string());
  const test::ProcessResult r = test::run_qcesim({"completion", "bash"}, src);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One arm per subcommand: `    NAME) opts='--help -h --x ...'; valued=...`.
  const std::regex arm(R"(\n    ([a-z]+)\) opts='([^']*)')");
  std::size_t commands = 0, options = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), arm); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    ++commands;
    EXPECT_NE(docs.find("qcesim " + name), std::string::npos) << "no `qcesim " << name << "` in docs/";
    std::istringstream words((*it)[2].str());
    for (std::string o; words >> o;) {
      if (o.rfind("--", 0) != 0 || o == "--help") continue;
      ++options;
      // The option, then what ends it in code or a command line (a value, a space, a backtick or a
      // comma), so that `--seed` is not found in `--seeds`. (A find per option, not a regex over
      // all docs: that took 20 s under the sanitizers.)
      bool named = false;
      for (auto at = docs.find(o); at != std::string::npos && !named; at = docs.find(o, at + 1))
        named =
            at + o.size() < docs.size() && std::string_view(" =`,").find(docs[at + o.size()]) != std::string_view::npos;
      EXPECT_TRUE(named) << name << " " << o << " is not in docs/";
    }
  }
  EXPECT_GE(commands, 13u);
  EXPECT_GT(options, 90u);
}
