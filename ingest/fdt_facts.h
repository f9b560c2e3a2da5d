// What qcesim reads from a board's flattened device tree (/sys/firmware/fdt), with libfdt: the
// board's name and compatible, its cores, and the crypto engine's wiring (the crypto node, the
// BAM its "dmas" point at, the BAM's execution environment, pipes and interrupt, and whether an
// IOMMU translates the engine's addresses). The blob is hostile input: fdt_check_full checks
// the whole structure before any property is read, and every property is length-checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qcesim::ingest {

struct FdtCrypto {
  std::string path, compatible, status;  // the node, its compatible list ("a, b"), "okay"/"disabled"
  std::uint64_t base = 0, size = 0;
  bool iommus = false;  // an "iommus" property: the engine's DMA goes through an SMMU
  // The BAM named by the node's "dmas" (empty path: no dmas, or they point elsewhere).
  std::string bam_path, bam_compatible;
  std::uint64_t bam_base = 0, bam_size = 0;
  bool has_ee = false, controlled_remotely = false;
  unsigned bam_ee = 0;
  bool has_pipes = false;
  unsigned rx_pipe = 0, tx_pipe = 0;
  bool has_spi = false;
  unsigned bam_spi = 0;
};

struct FdtFacts {
  std::string model, compatible;  // the root's
  std::vector<std::string> cpus;  // each /cpus/cpu@N's first compatible, in node order
  std::vector<FdtCrypto> crypto;  // every crypto engine node found
};

// `blob` is the file's bytes; `file` and `member` name it in errors (model::ConfigError).
FdtFacts read_fdt(const std::string& blob, const std::string& file, const std::string& member);

}  // namespace qcesim::ingest
