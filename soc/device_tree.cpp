#include "soc/device_tree.h"

#include <stdexcept>

namespace qcesim::soc {

namespace {

const std::vector<DeviceTree>& table() {
  static const std::vector<DeviceTree> t = {
      {"sm8650", "qcom,sm8650-qce", 0x01dfa000ull, 0x6000, 0x01dc4000ull, 0x28000, 0, 4, 5, 272, 0x01000000u,
       "sm8650.dtsi: crypto@1dfa000 size 0x6000, cryptobam (qcom,bam-v1.7.0) @1dc4000 size 0x28000, qcom,ee = <0>, "
       "dmas <&cryptobam 4>, <&cryptobam 5>, GIC_SPI 272 (linux-qce-bam.md section 5)"},
      {"ipq4019", "qcom,crypto-v5.1", 0x08e3a000ull, 0x6000, 0x08e04000ull, 0x20000, 1, 2, 3, 207, 0x08000000u,
       "qcom-ipq4019.dtsi: crypto@8e3a000 size 0x6000 (qcom,crypto-v5.1), cryptobam (qcom,bam-v1.7.0) @8e04000 "
       "size 0x20000, qcom,ee = <1>, qcom,controlled-remotely, dmas <&cryptobam 2>, <&cryptobam 3>, GIC_SPI 207 "
       "(linux-qce-cipher.md section 6.1)"},
  };
  return t;
}

}  // namespace

const DeviceTree& device_tree(const std::string& name) {
  for (const DeviceTree& d : table())
    if (d.name == name) return d;
  std::string names;
  for (const std::string& n : device_tree_names()) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("one of " + names);
}

std::vector<std::string> device_tree_names() {
  std::vector<std::string> v;
  for (const DeviceTree& d : table()) v.push_back(d.name);
  return v;
}

}  // namespace qcesim::soc
