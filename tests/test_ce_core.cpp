// The ARMv8 CE SHA-256 schedule: the single-buffer loop is bound by the SHA256H/H2 chain, and
// interleaving two messages fills the gaps, as the kernel's finup2x measurements say.
#include <gtest/gtest.h>

#include <cstdio>

#include "cpu/ce_core.h"

using namespace qcesim::cpu;

TEST(CeCore, X4SingleBufferIsChainBound) {
  const auto& t = ce_core_table("cortex-x4");
  const double c1 = sha256_ce_cycles_per_block(t, 1);
  std::printf("cortex-x4: %.1f cycles/block single, %.1f interleaved\n", c1, sha256_ce_cycles_per_block(t, 2));
  // 16 groups, each at least one SHA256H latency plus the H2 that needs the previous H:
  // above 16 x 4 = 64; P2/P3 measured about 110 cycles/block at 3.3 GHz.
  EXPECT_GT(c1, 64.0);
  EXPECT_LT(c1, 130.0);
}

TEST(CeCore, InterleavingTwoMessagesHelpsOutOfOrderCoresMost) {
  for (const auto& name : ce_core_names()) {
    const auto& t = ce_core_table(name);
    const double c1 = sha256_ce_cycles_per_block(t, 1), c2 = sha256_ce_cycles_per_block(t, 2);
    std::printf("%s: %.1f single, %.1f interleaved (+%.0f%%)\n", name.c_str(), c1, c2, (c1 / c2 - 1) * 100);
    EXPECT_LT(c2, c1) << name;
  }
  const auto gain = [](const char* n) {
    const auto& t = ce_core_table(n);
    return sha256_ce_cycles_per_block(t, 1) / sha256_ce_cycles_per_block(t, 2);
  };
  EXPECT_GT(gain("cortex-x4"), 1.3);    // X1..X3 measured +68..70%
  EXPECT_LT(gain("cortex-a520"), 1.3);  // A510 +25%, A55 +8%
  EXPECT_GT(gain("cortex-x4"), gain("cortex-a520"));
}

TEST(CeCore, UnknownCoreIsRejected) { EXPECT_THROW(ce_core_table("cortex-m0"), std::invalid_argument); }
