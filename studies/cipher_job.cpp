#include "studies/cipher_job.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstring>

#include "drivers/crypto/qce/skcipher.h"
#include "soc/soc.h"

namespace qcesim::studies {

namespace {
// ENCR_XTS_DU_SIZE is 20 bits wide and the driver writes cryptlen: one XTS request, one unit.
constexpr std::size_t kXtsMaxBytes = 0xFFFF0;
}  // namespace

std::string check_cipher_job(const CipherSetup& s, std::size_t n) {
  if (const std::string why = qce::skcipher_key_check(s.alg, s.mode, s.key); !why.empty())
    return fmt::format("--key: expected {}, found {} bytes", why, s.key.size());
  const std::size_t ivsize = qce::skcipher_ivsize(s.alg, s.mode);
  if (s.iv.size() != ivsize)
    return ivsize ? fmt::format("--iv: expected {} bytes for {}, found {}", ivsize, qce::skcipher_name(s.alg, s.mode), s.iv.size())
                  : fmt::format("--iv: expected none for {} (it takes no IV), found {} bytes",
                                qce::skcipher_name(s.alg, s.mode), s.iv.size());
  if (const std::string why = qce::skcipher_length_check(s.alg, s.mode, n); !why.empty())
    return fmt::format("input: expected {} (no padding, as the kernel's skcipher), found {}", why, n);
  if (s.mode == CipherMode::xts && n != 0 && (n % 16 != 0 || n > kXtsMaxBytes))
    return fmt::format("input: expected whole 16-byte blocks, at most {} bytes, for xts(aes) (one request, one data unit), "
                       "found {}",
                       kXtsMaxBytes, n);
  return "";
}

std::vector<std::uint8_t> cipher_on_cpu(const CipherSetup& s, const std::vector<std::uint8_t>& in) {
  CipherSpec spec;
  spec.alg = s.alg;
  spec.mode = s.mode;
  spec.encrypt = s.encrypt;
  spec.key = s.key;
  if (s.mode == CipherMode::xts) {
    spec.key.assign(s.key.begin(), s.key.begin() + static_cast<long>(s.key.size() / 2));
    spec.xts_key.assign(s.key.begin() + static_cast<long>(s.key.size() / 2), s.key.end());
  }
  std::copy(s.iv.begin(), s.iv.end(), spec.iv.begin());
  std::vector<std::uint8_t> out(in.size());
  CipherStream(spec).update(in.data(), out.data(), in.size());
  return out;
}

std::vector<std::uint8_t> cipher_on_engine(const CipherSetup& s, const std::vector<std::uint8_t>& in) {
  soc::EmulatorConfig cfg;
  cfg.driver.reg_io = s.reg_io;
  soc::Emulator emu(cfg);
  std::vector<std::uint8_t> out(in.size());
  emu.run([&](soc::Emulator& e) {
    qce::QceSkcipher tfm(e.qce(), e.task(), s.alg, s.mode);
    if (const std::string why = tfm.setkey(s.key); !why.empty()) throw qce::QceError("setkey: expected " + why);
    const std::size_t step = s.mode == CipherMode::xts ? std::max<std::size_t>(in.size(), 1) : s.request_bytes;
    const cpu::DmaBuf buf = e.host().dma_alloc(std::min(step, std::max<std::size_t>(in.size(), 1)), 4096);
    std::array<std::uint8_t, 16> iv{};
    std::copy(s.iv.begin(), s.iv.end(), iv.begin());
    for (std::size_t off = 0; off < in.size(); off += step) {
      const std::size_t n = std::min(step, in.size() - off);
      std::memcpy(buf.ptr, in.data() + off, n);
      tfm.crypt(s.encrypt, iv, buf.addr, buf.addr, static_cast<std::uint32_t>(n));  // in place
      std::memcpy(out.data() + off, buf.ptr, n);
    }
    e.host().dma_free(buf);
  });
  return out;
}

}  // namespace qcesim::studies
