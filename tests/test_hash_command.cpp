// `qcesim hash` end to end: the binary's output equals sha256sum/sha1sum's, byte for byte,
// through both engines and both register-I/O modes; bad input exits 2 with a clear message.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <algorithm>
#include <random>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/emu_helpers.h"
#include "tests/process.h"

using namespace qcesim;

namespace {

struct Result {
  int status;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HashCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/qcesim-hash-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    std::mt19937 rng(99);
    std::vector<char> data(300001);
    for (auto& c : data) c = static_cast<char>(rng());
    std::ofstream(dir + "/random.bin", std::ios::binary).write(data.data(), static_cast<long>(data.size()));
    std::ofstream(dir + "/empty", std::ios::binary);
    std::ofstream(dir + "/abc", std::ios::binary) << "abc";
  }
  void TearDown() override { test::remove_tree(dir); }

  Result run(const std::string& args, const std::string& stdin_text = "") {
    const std::string in = dir + "/stdin", out = dir + "/stdout", err = dir + "/stderr";
    std::ofstream(in) << stdin_text;
    const std::string cmd =
        "cd " + dir + " && " + QCESIM_BINARY + " hash " + args + " <" + in + " >" + out + " 2>" + err;
    const int rc = std::system(cmd.c_str());
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
  }
  std::string reference(const std::string& tool) {
    return run_shell("cd " + dir + " && " + tool + " random.bin empty abc");
  }
  std::string run_shell(const std::string& cmd) {
    const std::string out = dir + "/ref";
    EXPECT_EQ(std::system((cmd + " >" + out).c_str()), 0);
    return slurp(out);
  }
  std::string dir;
};

}  // namespace

TEST_F(HashCommand, Sha256OutputEqualsSha256sumInEveryMode) {
  const std::string want = reference("sha256sum");
  for (const char* mode : {"--engine qce --reg-io mmio", "--engine qce --reg-io bam", "--engine ce",
                           "--engine qce --request-bytes 4096"}) {
    const Result r = run(std::string(mode) + " random.bin empty abc");
    EXPECT_EQ(r.status, 0) << mode << ": " << r.err;
    EXPECT_EQ(r.out, want) << mode;
    EXPECT_EQ(r.err, "") << mode;
  }
}

// Updates of any size, as the self-tests' uneven splits make them: qce_ahash_update buffers what
// does not pass a block, holds back the tail (a whole block when aligned) and chains the held-back
// bytes in front of the next request's source. Every split gives sha256sum's digest.
// (A byte at a time over a 1000-byte file: the others over 300 kB.)
TEST_F(HashCommand, UnevenUpdatesGiveTheSameDigest) {
  const std::string want = reference("sha256sum");
  std::ofstream(dir + "/small.bin", std::ios::binary) << std::string(1000, 'q');
  const std::string small = run_shell("cd " + dir + " && sha256sum small.bin");
  for (const char* mode : {"--engine qce", "--engine qce --reg-io bam", "--engine ce"}) {
    for (const char* split : {"17", "63", "65", "100", "4097"}) {
      const Result r = run(std::string(mode) + " --request-bytes " + split + " random.bin empty abc");
      EXPECT_EQ(r.status, 0) << split << " " << mode << ": " << r.err;
      EXPECT_EQ(r.out, want) << split << " " << mode;
    }
    EXPECT_EQ(run(std::string(mode) + " --request-bytes 1 small.bin").out, small) << mode;
  }
}

// --reimport: the request's state exported after every update and imported into a new request
// (qce_ahash_export/import, the self-tests' import/export configuration) changes no digest, at any
// split, for either algorithm and for HMAC; --stats counts the rounds and the state's size. The
// 2020 driver's import cannot take it (it read rctx->flags from the request it restored into).
TEST_F(HashCommand, ExportAndImportBetweenUpdatesChangeNoDigest) {
  const std::string want = reference("sha256sum"), want1 = reference("sha1sum");
  for (const char* split : {"17", "64", "65", "4097"}) {
    Result r = run(std::string("--reimport --request-bytes ") + split + " random.bin empty abc");
    EXPECT_EQ(r.status, 0) << split << ": " << r.err;
    EXPECT_EQ(r.out, want) << split;
    r = run(std::string("--reimport --alg sha1 --reg-io bam --request-bytes ") + split + " random.bin empty abc");
    EXPECT_EQ(r.status, 0) << split << ": " << r.err;
    EXPECT_EQ(r.out, want1) << split;
  }
  // HMAC over 300 kB, its state moved after the engine's first requests too.
  std::ifstream f(dir + "/random.bin", std::ios::binary);
  const std::vector<std::uint8_t> msg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::vector<std::uint8_t> key = {0x4a, 0x65, 0x66, 0x65};
  const Result hmac = run("--reimport --request-bytes 1000 --hmac-key 4a656665 random.bin");
  EXPECT_EQ(hmac.status, 0) << hmac.err;
  EXPECT_EQ(hmac.out, test::hex(test::openssl_hmac(HashAlg::sha256, key, msg)) + "  random.bin\n") << hmac.err;
  const Result stats = run("--reimport --stats --request-bytes 4096 random.bin");
  EXPECT_NE(stats.err.find("export/import rounds:  74 (statesize 128 bytes)"), std::string::npos) << stats.err;
  // The counters are the engine's: on the CPU path --stats is refused, not silently dropped.
  const Result cpu_stats = run("--engine ce --stats random.bin");
  EXPECT_EQ(cpu_stats.status, 2);
  EXPECT_NE(cpu_stats.err.find("--stats: expected --engine qce"), std::string::npos) << cpu_stats.err;
  const Result old = run("--reimport --era 2020 --request-bytes 100 random.bin");
  EXPECT_EQ(old.status, 2);
  EXPECT_EQ(old.out, "");
  EXPECT_NE(old.err.find("random.bin: engine error: the 2020 driver's qce_ahash_import (v5.8 and before, 4.19 among "
                         "them) reads rctx->flags"),
            std::string::npos)
      << old.err;
}

TEST_F(HashCommand, Sha1OutputEqualsSha1sum) {
  const std::string want = reference("sha1sum");
  for (const char* mode : {"--engine qce", "--engine qce --reg-io bam", "--engine ce"}) {
    const Result r = run(std::string("--alg sha1 ") + mode + " random.bin empty abc");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, want) << mode;
  }
}

TEST_F(HashCommand, OutputChecksWithSha256sumC) {
  const Result r = run("random.bin abc");
  ASSERT_EQ(r.status, 0);
  std::ofstream(dir + "/sums") << r.out;
  EXPECT_EQ(std::system(("cd " + dir + " && sha256sum --quiet -c sums").c_str()), 0);
}

TEST_F(HashCommand, ReadsStandardInput) {
  EXPECT_EQ(run("", "abc").out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n");
  EXPECT_EQ(run("-", "abc").out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n");
}

TEST_F(HashCommand, HmacMatchesOpenSsl) {
  const std::vector<std::uint8_t> key(100, 0xaa);  // longer than a block: hashed first
  const std::string khex(200, 'a');
  const std::vector<std::uint8_t> msg{'a', 'b', 'c'};
  for (const char* mode : {"--engine qce", "--engine qce --reg-io bam", "--engine ce"}) {
    const Result r = run(std::string(mode) + " --hmac-key " + khex + " abc");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, test::hex(test::openssl_hmac(HashAlg::sha256, key, msg)) + "  abc\n") << mode;
  }
}

// An empty message (the self-tests have one): a plain digest is hash_zero from 2021 on; its HMAC
// is the right value without an era and with the 2026 driver, while the older driver returns
// without writing the result (hash_zero is NULL for an HMAC): exit 2 saying so, nothing printed.
// The 2026 driver registers no SHA-1 (the CPU path's sha1-ce is there in every era).
TEST_F(HashCommand, AnEmptyMessageAsEachDriverEraAnswersIt) {
  const std::vector<std::uint8_t> key{0x01, 0x02};
  const std::string want = test::hex(test::openssl_hmac(HashAlg::sha256, key, {})) + "  -\n";
  for (const char* era : {"0", "2026"}) {
    const Result r = run(std::string("--hmac-key 0102 --era ") + era);
    EXPECT_EQ(r.status, 0) << era << ": " << r.err;
    EXPECT_EQ(r.out, want) << era;
  }
  for (const char* era : {"2020", "2021", "2024"}) {
    const Result r = run(std::string("--hmac-key 0102 --era ") + era);
    EXPECT_EQ(r.status, 2) << era;
    EXPECT_EQ(r.out, "") << era;
    EXPECT_NE(r.err.find("returns 0 without writing the result"), std::string::npos) << r.err;
    EXPECT_EQ(run(std::string("--hmac-key 0102 --era ") + era, "abc").status, 0) << era;
  }
  for (const char* era : {"2021", "2024"})
    EXPECT_EQ(run(std::string("--era ") + era).out,
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  -\n");
  // The 2020 driver (v5.6/v5.7) had no hash_zero (v5.9) and held no last block back for the
  // final (v5.13): an empty message, and one its update sends whole (it ends on a block and is
  // longer than one), leave the final nothing and the result unwritten; others are right.
  const Result empty2020 = run("--era 2020");
  EXPECT_EQ(empty2020.status, 2);
  EXPECT_NE(empty2020.err.find("an empty message: the 2020 driver's qce_ahash_final returns 0"), std::string::npos)
      << empty2020.err;
  const std::string block2(128, 'x');
  const auto digest_line = [](const std::string& m) {
    return test::hex(test::openssl_digest(HashAlg::sha256, {m.begin(), m.end()})) + "  -\n";
  };
  const Result aligned = run("--era 2020", block2);
  EXPECT_EQ(aligned.status, 2);
  EXPECT_NE(aligned.err.find("a message that ends on a whole block"), std::string::npos) << aligned.err;
  EXPECT_EQ(run("--era 2021", block2).out, digest_line(block2));
  EXPECT_EQ(run("--era 2020", block2 + "y").out, digest_line(block2 + "y"));
  EXPECT_EQ(run("--era 2020", std::string(64, 'x')).out, digest_line(std::string(64, 'x')));
  const Result sha1 = run("--alg sha1 --era 2026", "abc");
  EXPECT_EQ(sha1.status, 2);
  EXPECT_NE(sha1.err.find("--alg: expected an algorithm the 2026 driver registers, found sha1"), std::string::npos)
      << sha1.err;
  // The CPU path is sha1-ce, not the qce driver: its era does not take SHA-1 away.
  EXPECT_EQ(run("--engine ce --alg sha1 --era 2026", "abc").out, "a9993e364706816aba3e25717850c26c9cd0d89d  -\n");
  EXPECT_EQ(run("--era 2019", "abc").status, 2);
  // A shipped platform's driver.era: the IPQ40xx's 2020 driver, --era over it.
  EXPECT_EQ(run("--hmac-key 0102 --platform ipq40xx").status, 2);
  const Result missing = run("--platform missing.json", "abc");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("qcesim hash: --platform missing.json: expected a readable profile file"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(run("--hmac-key 0102 --platform ipq40xx --era 2026").out, want);
}

TEST_F(HashCommand, MissingFileExits2AndHashesTheRest) {
  const Result r = run("nope abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "qcesim hash: nope: No such file or directory\n");
  EXPECT_EQ(r.out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n");
}

TEST_F(HashCommand, BadOptionsExit2WithReason) {
  Result r = run("--hmac-key abc abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--hmac-key: expected an even number of hex digits"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = run("--hmac-key zz abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("found 'z'"), std::string::npos) << r.err;
  r = run("--engine gpu abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--engine: expected one of qce, ce, found \"gpu\""), std::string::npos) << r.err;
  r = run("--alg SHA256 abc");  // the words as written: no case folding, no prefixes
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--alg: expected one of sha1, sha256, found \"SHA256\""), std::string::npos) << r.err;
  r = run("--request-bytes 0 abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--request-bytes: expected a whole number from 1 to 67108864"), std::string::npos) << r.err;
}

// `qcesim run` end to end: bad input exits 2 with the file, path, expectation and finding, and
// --json writes the documented keys.
TEST_F(HashCommand, RunReportsBadScenariosAndWritesJson) {
  const std::string seed = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json";
  const std::string cmd = std::string(QCESIM_BINARY) + " run " + seed;
  const std::string err = dir + "/err", out = dir + "/out";
  int rc = std::system((cmd + " --set qce.clock=5 >" + out + " 2>" + err).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(slurp(err).find("at /overrides/qce.clock: expected qce.clock in [50, 600] MHz, found 5"), std::string::npos)
      << slurp(err);
  EXPECT_EQ(slurp(out), "");
  const std::string json_file = dir + "/r.json";
  rc = std::system((cmd + " --set workload.messages=20 --json " + json_file + " >" + out + " 2>" + err).c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(err);
  const auto j = nlohmann::json::parse(slurp(json_file));
  ASSERT_EQ(j["variants"].size(), 3u);
  for (const char* k : {"name", "wall_s", "cpu_s", "hardirq_s", "softirq_s", "task_s", "kworker_s", "idle_s",
                        "requests", "bytes", "latency_us", "irqs", "bam_descriptors", "digest_mismatches", "measured"})
    EXPECT_TRUE(j["variants"][1].contains(k)) << k;
  for (const char* k : {"mean", "p50", "p99", "max"}) EXPECT_TRUE(j["variants"][1]["latency_us"].contains(k)) << k;
  EXPECT_EQ(j["variants"][1]["requests"], 20);
  EXPECT_EQ(j["variants"][1]["digest_mismatches"], 0);
  EXPECT_NE(slurp(out).find("sha256-qce-lock"), std::string::npos);
}

// The what-if commands end to end through the built binary: a sweep with a chart (gnuplot from
// the setup script), run's --trace and --profile files, and explain.
TEST_F(HashCommand, SweepPlotsAndRunWritesTraceAndProfileAndExplainNarrates) {
  const std::string src = QCESIM_SOURCE_DIR;
  const std::string sweep = dir + "/s.json";
  std::ofstream(sweep) << R"({"sweep": "t", "scenario": ")" << src << R"(/scenarios/sm8650-seed.json",
    "variants": ["sha256-lib", "sha256-qce-nolock"], "set": {"workload.messages": 20},
    "axes": [{"path": "workload.message_bytes", "values": [64, 4096, 65536]}]})";
  const std::string err = dir + "/err", out = dir + "/out";
  int rc = std::system((std::string(QCESIM_BINARY) + " sweep " + sweep + " -o " + dir + "/t --plot " + dir +
                        "/t.svg --y cpu_us_per_request --log-x >" + out + " 2>" + err)
                           .c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(err);
  EXPECT_NE(slurp(dir + "/t.svg").find("<svg"), std::string::npos);
  const std::string csv = slurp(dir + "/t.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + 3 points x 2 variants
  EXPECT_NE(slurp(err).find("[6/6]"), std::string::npos) << slurp(err);

  const std::string run = std::string(QCESIM_BINARY) + " run " + src +
                          "/scenarios/sm8650-seed.json --variant sha256-qce-lock --set workload.messages=5";
  rc = std::system(
      (run + " --trace " + dir + "/tr.json --trace-requests 1:3 --profile " + dir + "/p.folded >" + out + " 2>" + err)
          .c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(err);
  const auto trace = nlohmann::json::parse(slurp(dir + "/tr.json"));
  EXPECT_GT(trace["traceEvents"].size(), 100u);
  const std::string folded = slurp(dir + "/p.folded");
  EXPECT_NE(folded.find("softirq;dma_unmap_sg "), std::string::npos) << folded;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);)
    EXPECT_TRUE(std::regex_match(line, std::regex(R"([a-z]+;[A-Za-z0-9_]+ [0-9]+)"))) << line;

  rc = std::system((std::string(QCESIM_BINARY) + " explain " + src +
                    "/scenarios/sm8650-seed.json --variant sha256-qce-nolock --request 3 >" + out + " 2>" + err)
                       .c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(err);
  EXPECT_NE(slurp(out).find("accounting for request 3:"), std::string::npos) << slurp(out);
}
