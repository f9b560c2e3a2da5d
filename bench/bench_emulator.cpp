// Micro-benchmarks of the functional emulator. SystemC elaborates once per process, so the
// benchmarks run inside the one simulation, on the emulated CPU's thread.
//   build/release/bench/qcesim_bench [--reg-io=mmio|bam] [benchmark flags]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "model/sha_core.h"
#include "soc/soc.h"
#include "drivers/crypto/qce/sha.h"

using namespace qcesim;

namespace {
const int kQuietBanner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
soc::Emulator* g_emu = nullptr;

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::mt19937 rng(1);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// The hash core alone: compression over 1 MiB with state import/export around it.
void BM_ShaCompress(benchmark::State& state) {
  const auto data = random_bytes(1u << 20);
  const auto alg = state.range(0) ? HashAlg::sha256 : HashAlg::sha1;
  for (auto _ : state) {
    ShaState st = sha_initial_state(alg);
    sha_compress(st, data.data(), data.size() / kShaBlockBytes);
    benchmark::DoNotOptimize(st.h);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(data.size()));
  state.SetLabel(hash_alg_name(alg));
}
BENCHMARK(BM_ShaCompress)->Arg(0)->Arg(1);

// One engine request per iteration (qce_ahash_digest): driver, BAM, engine, dump, interrupt.
void BM_QceDigest(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto data = random_bytes(n);
  cpu::DmaBuf b = g_emu->host().dma_alloc(n, 4096);
  std::memcpy(b.ptr, data.data(), n);
  qce::QceAhash h(g_emu->qce(), g_emu->task(), HashAlg::sha256);
  for (auto _ : state) benchmark::DoNotOptimize(h.digest(b.addr, static_cast<std::uint32_t>(n)));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  g_emu->host().dma_free(b);
}
BENCHMARK(BM_QceDigest)->Arg(64)->Arg(4096)->Arg(1 << 20);
}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  soc::EmulatorConfig cfg;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--reg-io=bam") {
      cfg.driver.reg_io = qce::RegIo::bam;
    } else if (std::string(argv[i]) != "--reg-io=mmio") {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  soc::Emulator emu(cfg);
  g_emu = &emu;
  benchmark::AddCustomContext("reg_io", qce::reg_io_name(cfg.driver.reg_io));
  emu.run([](soc::Emulator&) { benchmark::RunSpecifiedBenchmarks(); });
  benchmark::Shutdown();
  return 0;
}
