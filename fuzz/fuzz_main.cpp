// qcesim's fuzzers (libFuzzer, clang): `qcesim_fuzz TARGET [libFuzzer options] [corpus...]`.
//
//   scenario  a scenario file, loaded and checked as `run` does (profile scenarios/sm8650.json beside it)
//   profile   a profile file
//   sweep     a sweep file over a copy of the seed scenario, every point checked
//   set       one --set PATH=VALUE on the seed scenario
//   archive   a board kit archive (qcesim ingest): tar, manifest, runs, device tree, ftrace, then
//             the profile and scenarios made from it (profiles: the private folder's sm8650.json)
//   fdt       a flattened device tree, read as ingest reads /sys/firmware/fdt (libfdt)
//   device    register reads and writes, descriptor rings and command elements into the BAM and
//             the engine, in the spirit of QEMU's generic-fuzz (fuzz/device_ops.h)
//
// Bad input must end as a ConfigError (or, for the device, a bus error or the documented
// STATUS/P_ERR bits); any other exception, a crash, a hang or a sanitizer report is a finding.
// The platform is elaborated once (SystemC), so sc_main runs libFuzzer's driver itself.
#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/device_ops.h"
#include "ingest/board_archive.h"
#include "ingest/ingest.h"
#include "model/config_error.h"
#include "studies/scenario.h"
#include "studies/sweep.h"

extern "C" int LLVMFuzzerRunDriver(int* argc, char*** argv, int (*cb)(const uint8_t* data, size_t size));

namespace {

namespace fs = std::filesystem;
using namespace qcesim;

std::string g_dir;  // a private folder with the seed scenario and its profile

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// Only a ConfigError is an answer to bad input.
template <typename F>
int expect_config_error(F&& f) {
  try {
    f();
  } catch (const model::ConfigError&) {
  }
  return 0;
}

// A file input: written where the seed scenario and its profile are, then loaded.
template <typename Load>
int fuzz_file(const char* name, const std::uint8_t* data, std::size_t size, Load&& load) {
  const std::string file = g_dir + "/" + name;
  write_file(file, data, size);
  return expect_config_error([&] { load(file); });
}

int fuzz_scenario(const std::uint8_t* data, std::size_t size) {
  return fuzz_file("fuzzed.json", data, size, [](const std::string& f) { studies::Scenario::load(f); });
}

int fuzz_profile(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return expect_config_error(
      [&] { model::Profile::parse(model::parse_input_json(text, "fuzzed.json"), "fuzzed.json"); });
}

int fuzz_sweep(const std::uint8_t* data, std::size_t size) {
  return fuzz_file("fuzzed-sweep.json", data, size, [](const std::string& f) { studies::Sweep::load(f); });
}

int fuzz_set(const std::uint8_t* data, std::size_t size) {
  const std::string assignment(reinterpret_cast<const char*>(data), size);
  return expect_config_error([&] { studies::Scenario::load(g_dir + "/seed.json", {assignment}); });
}

int fuzz_archive(const std::uint8_t* data, std::size_t size) {
  return expect_config_error([&] {
    const ingest::BoardArchive a =
        ingest::parse_board_archive(std::string(reinterpret_cast<const char*>(data), size), "fuzzed.tar");
    (void)ingest::ingest_board(a, "fuzzed", g_dir + "/profiles");
  });
}

int fuzz_fdt(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  return expect_config_error([&] { (void)ingest::read_fdt(bytes, "fuzzed.tar", "system/fdt"); });
}

void prepare_dir() {
  char name[] = "/tmp/qcesim-fuzz-XXXXXX";
  if (!mkdtemp(name)) std::abort();
  g_dir = name;
  const std::string src = std::string(QCESIM_SOURCE_DIR) + "/scenarios/";
  fs::copy_file(src + "sm8650.json", g_dir + "/sm8650.json");
  fs::copy_file(src + "sm8650-seed.json", g_dir + "/seed.json");
  fs::create_directory(g_dir + "/profiles");
  fs::copy_file(src + "sm8650.json", g_dir + "/profiles/sm8650.json");
  fs::copy_file(src + "ipq40xx.json", g_dir + "/profiles/ipq40xx.json");
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_dir, ec);
  });
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // libFuzzer runs the program again for -merge=1 and -fork=N, with its own options only: such
  // a run takes the target from QCESIM_FUZZ_TARGET, which the first run sets for it.
  const char* inherited = std::getenv("QCESIM_FUZZ_TARGET");
  const bool rerun = inherited && (argc < 2 || argv[1][0] == '-');
  if (argc < 2 && !rerun) {
    std::fprintf(stderr,
                 "usage: qcesim_fuzz scenario|profile|sweep|set|archive|fdt|device [libFuzzer options] [corpus...]\n");
    return 2;
  }
  const std::string target = rerun ? inherited : argv[1];
  int (*cb)(const uint8_t*, size_t) = nullptr;
  if (target == "scenario") cb = fuzz_scenario;
  if (target == "profile") cb = fuzz_profile;
  if (target == "sweep") cb = fuzz_sweep;
  if (target == "set") cb = fuzz_set;
  if (target == "device") cb = fuzz::device_one_input;
  if (target == "archive") cb = fuzz_archive;
  if (target == "fdt") cb = fuzz_fdt;
  if (!cb) {
    std::fprintf(stderr, "qcesim_fuzz: unknown target %s\n", target.c_str());
    return 2;
  }
  prepare_dir();
  if (target == "device") fuzz::device_elaborate();
  if (rerun) return LLVMFuzzerRunDriver(&argc, &argv, cb);
  setenv("QCESIM_FUZZ_TARGET", target.c_str(), 1);
  // libFuzzer sees the program name and the options after the target.
  argv[1] = argv[0];
  int n = argc - 1;
  char** rest = argv + 1;
  return LLVMFuzzerRunDriver(&n, &rest, cb);
}
