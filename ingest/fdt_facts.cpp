#include "ingest/fdt_facts.h"

#include <spdlog/fmt/fmt.h>

extern "C" {
#include <libfdt.h>
}

#include <algorithm>
#include <cstring>

#include "model/config_error.h"

namespace qcesim::ingest {

using model::ConfigError;

namespace {

constexpr std::size_t kMaxFdtBytes = 4u << 20;

struct Reader {
  const void* fdt;
  const std::string& file;
  const std::string& member;

  [[noreturn]] void fail(const std::string& at, const std::string& expected, const std::string& found) const {
    throw ConfigError(file, member + (at.empty() ? "" : " " + at), expected, found);
  }

  // A property's bytes (nullptr and 0 when absent).
  const unsigned char* prop(int node, const char* name, int& len) const {
    len = 0;
    const void* p = fdt_getprop(fdt, node, name, &len);
    if (!p || len < 0) {
      len = 0;
      return nullptr;
    }
    return static_cast<const unsigned char*>(p);
  }

  // A node's path; its names must be of the characters the Devicetree Specification allows
  // (section 2.2.1: letters, digits and , . _ + - before the @, the same after it), so that a
  // name is shown in the report and its tables as what it is, never as markup or an escape.
  std::string path(int node) const {
    char buf[512];
    if (fdt_get_path(fdt, node, buf, sizeof buf) != 0) return fmt::format("node at {}", node);
    const std::string p(buf);
    for (char c : p) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string(",._+-@/").find(c) != std::string::npos;
      if (!ok)
        fail(fmt::format("node at {}", node), "a node path of letters, digits and , . _ + - @ /",
             model::quoted_input(p));
    }
    return p;
  }

  // A string-list property's strings; control and non-ASCII bytes are refused.
  std::vector<std::string> list(int node, const char* name) const {
    int len = 0;
    const unsigned char* p = prop(node, name, len);
    std::vector<std::string> out;
    std::string cur;
    for (int i = 0; i < len; ++i) {
      const char c = static_cast<char>(p[i]);
      if (c == '\0') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else if (model::is_control(c) || static_cast<unsigned char>(c) >= 0x7f) {
        fail(path(node) + " " + name, "printable strings", "a control or non-ASCII byte");
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
  }
  // The list as "a, b", for the report.
  std::string strings(int node, const char* name) const { return model::join_names(list(node, name)); }
  std::string first_string(int node, const char* name) const {
    const std::vector<std::string> l = list(node, name);
    return l.empty() ? "" : l.front();
  }

  std::uint32_t cell(const unsigned char* p, int i) const {
    std::uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return fdt32_to_cpu(v);
  }

  bool u32(int node, const char* name, unsigned& out) const {
    int len = 0;
    const unsigned char* p = prop(node, name, len);
    if (!p) return false;
    if (len != 4) fail(path(node) + " " + name, "one 32-bit cell", fmt::format("{} bytes", len));
    out = cell(p, 0);
    return true;
  }

  // The first (address, size) of "reg", in the parent's #address-cells / #size-cells.
  void reg(int node, std::uint64_t& base, std::uint64_t& size) const {
    const int parent = fdt_parent_offset(fdt, node);
    const int ac = parent >= 0 ? fdt_address_cells(fdt, parent) : 2;
    const int sc = parent >= 0 ? fdt_size_cells(fdt, parent) : 1;
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2) fail(path(node), "#address-cells 1..2 and #size-cells 0..2", "other");
    int len = 0;
    const unsigned char* p = prop(node, "reg", len);
    if (!p) return;
    if (len < 4 * (ac + sc)) fail(path(node) + " reg", fmt::format("{} cells", ac + sc), fmt::format("{} bytes", len));
    base = ac == 2 ? (std::uint64_t{cell(p, 0)} << 32 | cell(p, 1)) : cell(p, 0);
    size = sc == 2 ? (std::uint64_t{cell(p, ac)} << 32 | cell(p, ac + 1)) : sc == 1 ? cell(p, ac) : 0;
  }
};

// A crypto engine node: Qualcomm's compatible strings for it ("qcom,crypto-v5.1", "qcom,qce",
// "qcom,sm8650-qce").
bool is_qce(const std::vector<std::string>& compatible) {
  return std::any_of(compatible.begin(), compatible.end(), [](const std::string& c) {
    return c.rfind("qcom,crypto-v", 0) == 0 || c == "qcom,qce" ||
           (c.rfind("qcom,", 0) == 0 && c.size() > 4 && c.compare(c.size() - 4, 4, "-qce") == 0);
  });
}

void read_dmas(const Reader& r, int node, FdtCrypto& c) {
  int len = 0;
  const unsigned char* p = r.prop(node, "dmas", len);
  if (!p) return;
  if (len % 4) r.fail(c.path + " dmas", "whole cells", fmt::format("{} bytes", len));
  const int cells = len / 4;
  // Each specifier's phandle is a walk of the tree: a few are real, thousands are an attack.
  if (cells > 64) r.fail(c.path + " dmas", "at most 64 cells", fmt::format("{}", cells));
  // dma-names says which specifier is rx and which tx.
  const std::vector<std::string> names = r.list(node, "dma-names");
  int i = 0;
  for (std::size_t k = 0; i < cells; ++k) {
    const std::uint32_t ph = r.cell(p, i++);
    const int bam = fdt_node_offset_by_phandle(r.fdt, ph);
    if (bam < 0) r.fail(c.path + " dmas", "a phandle of a node", fmt::format("{:#x}, which no node has", ph));
    unsigned n = 1;
    if (!r.u32(bam, "#dma-cells", n)) n = 1;
    if (n > 4 || i + static_cast<int>(n) > cells)
      r.fail(c.path + " dmas", "specifiers of #dma-cells cells", fmt::format("{} cells left for {}", cells - i, n));
    const unsigned pipe = n >= 1 ? r.cell(p, i) : 0;
    i += static_cast<int>(n);
    if (c.bam_path.empty()) {
      c.bam_path = r.path(bam);
      c.bam_compatible = r.strings(bam, "compatible");
      r.reg(bam, c.bam_base, c.bam_size);
      c.has_ee = r.u32(bam, "qcom,ee", c.bam_ee);
      int l = 0;
      c.controlled_remotely = r.prop(bam, "qcom,controlled-remotely", l) != nullptr;
      int il = 0;
      const unsigned char* irq = r.prop(bam, "interrupts", il);
      // <GIC_SPI n flags>: type 0 is an SPI.
      if (irq && il >= 12 && r.cell(irq, 0) == 0) {
        c.has_spi = true;
        c.bam_spi = r.cell(irq, 1);
      }
    }
    const std::string name = k < names.size() ? names[k] : "";
    if (name == "rx") c.rx_pipe = pipe, c.has_pipes = true;
    if (name == "tx") c.tx_pipe = pipe;
  }
}

// The structure block walked token by token before libfdt reads it: Debian's libfdt 1.6.1 loops
// forever in fdt_check_full on a property whose length is negative (found by the fdt fuzzer), so
// every length must keep the walk moving forward inside the block, every property name inside
// the strings block, and the nesting balanced, before libfdt sees the blob. Returns "" or what is
// wrong.
std::string check_structure(const void* fdt) {
  if (fdt_version(fdt) < 17) return fmt::format("version {} (17 has the block sizes)", fdt_version(fdt));
  const auto* base = static_cast<const unsigned char*>(fdt);
  const std::uint64_t start = fdt_off_dt_struct(fdt), size = fdt_size_dt_struct(fdt);
  const std::uint64_t strings = fdt_size_dt_strings(fdt);
  const auto word = [&](std::uint64_t at) {
    std::uint32_t v;
    std::memcpy(&v, base + start + at, 4);
    return fdt32_to_cpu(v);
  };
  std::uint64_t at = 0;
  int depth = 0;
  while (at + 4 <= size) {
    const std::uint32_t tag = word(at);
    at += 4;
    if (tag == FDT_BEGIN_NODE) {
      std::uint64_t end = at;
      while (end < size && base[start + end] != 0) ++end;
      if (end >= size) return fmt::format("a node name running past the structure block at {}", at);
      at = (end + 1 + 3) & ~std::uint64_t{3};
      if (++depth > 64) return "nodes nested deeper than 64";
    } else if (tag == FDT_END_NODE) {
      if (--depth < 0) return fmt::format("an unmatched end of node at {}", at - 4);
    } else if (tag == FDT_PROP) {
      if (at + 8 > size) return fmt::format("a property header running past the structure block at {}", at);
      const std::uint64_t len = word(at), name = word(at + 4);
      if (len > size - at - 8) return fmt::format("a property of {} bytes running past the structure block", len);
      if (name >= strings) return fmt::format("a property name at {} outside the strings block", name);
      at = (at + 8 + len + 3) & ~std::uint64_t{3};
    } else if (tag == FDT_NOP) {
    } else if (tag == FDT_END) {
      return depth == 0 ? "" : "an end with nodes still open";
    } else {
      return fmt::format("an unknown token {:#x} at {}", tag, at - 4);
    }
  }
  return "no end token inside the structure block";
}

}  // namespace

FdtFacts read_fdt(const std::string& blob, const std::string& file, const std::string& member) {
  if (blob.size() > kMaxFdtBytes)
    throw ConfigError(file, member, fmt::format("a device tree of at most {} bytes", kMaxFdtBytes),
                      fmt::format("{} bytes", blob.size()));
  if (blob.size() < sizeof(struct fdt_header))
    throw ConfigError(file, member, "a flattened device tree", fmt::format("{} bytes", blob.size()));
  // libfdt reads 32-bit fields: give it an aligned copy.
  std::vector<std::uint64_t> aligned((blob.size() + 7) / 8);
  std::memcpy(aligned.data(), blob.data(), blob.size());
  const void* fdt = aligned.data();
  int err = fdt_check_header(fdt);
  if (err == 0 && fdt_totalsize(fdt) > blob.size()) err = -FDT_ERR_TRUNCATED;
  if (err != 0) throw ConfigError(file, member, "a valid flattened device tree", fdt_strerror(err));
  if (const std::string bad = check_structure(fdt); !bad.empty())
    throw ConfigError(file, member, "a valid flattened device tree", bad);
  err = fdt_check_full(fdt, blob.size());
  if (err != 0) throw ConfigError(file, member, "a valid flattened device tree", fdt_strerror(err));
  const Reader r{fdt, file, member};
  FdtFacts f;
  f.model = r.strings(0, "model");
  f.compatible = r.strings(0, "compatible");
  const int cpus = fdt_path_offset(fdt, "/cpus");
  if (cpus >= 0) {
    int node;
    fdt_for_each_subnode(node, fdt, cpus) {
      int l = 0;
      const unsigned char* t = r.prop(node, "device_type", l);
      if (t && l == 4 && std::memcmp(t, "cpu", 4) == 0) f.cpus.push_back(r.first_string(node, "compatible"));
      if (f.cpus.size() > 1024) r.fail("/cpus", "at most 1024 cores", "more");
    }
  }
  int depth = 0;
  for (int node = fdt_next_node(fdt, -1, &depth); node >= 0; node = fdt_next_node(fdt, node, &depth)) {
    const std::vector<std::string> compat = r.list(node, "compatible");
    if (!is_qce(compat)) continue;
    FdtCrypto c;
    c.path = r.path(node);
    c.compatible = model::join_names(compat);
    c.status = r.first_string(node, "status");
    if (c.status.empty()) c.status = "okay";
    r.reg(node, c.base, c.size);
    int l = 0;
    c.iommus = r.prop(node, "iommus", l) != nullptr;
    read_dmas(r, node, c);
    f.crypto.push_back(std::move(c));
    if (f.crypto.size() > 16) r.fail("", "at most 16 crypto engine nodes", "more");
  }
  return f;
}

}  // namespace qcesim::ingest
