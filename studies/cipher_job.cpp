#include "studies/cipher_job.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "drivers/crypto/qce/skcipher.h"
#include "model/aead_cipher.h"
#include "model/alg_names.h"
#include "model/byte_order.h"
#include "soc/soc.h"

namespace qcesim::studies {

namespace {
// ENCR_XTS_DU_SIZE is 20 bits wide and the driver writes cryptlen: one XTS request, one unit.
constexpr std::size_t kXtsMaxBytes = 0xFFFF0;
// An AEAD is one request: its text and associated data must fit the engine's fields (ENCR_SEG_START
// is 16 bits; CCM's formatted associated data is padded with its header).
constexpr std::size_t kAeadMaxText = 1u << 20;
constexpr std::size_t kAeadMaxAssoc = 65504;
// The largest payload one BAM descriptor carries (bam_dma splits at 32760 bytes): CCM's must fit [I].
constexpr std::size_t kCcmMaxOneDescriptor = 32760;

// ccm(aes)'s 16-byte IV: as given, or built from a nonce of 7..13 bytes (L = 15 - nonce bytes).
std::array<std::uint8_t, 16> aead_iv(const CipherSetup& s) {
  std::array<std::uint8_t, 16> iv{};
  if (s.aead_alg.rfc4309) {  // the request's 8-byte IV, as the driver receives it
    std::copy(s.iv.begin(), s.iv.end(), iv.begin());
  } else if (s.aead_alg.ccm && s.iv.size() >= 7 && s.iv.size() <= 13) {
    iv[0] = static_cast<std::uint8_t>(14 - s.iv.size());
    std::copy(s.iv.begin(), s.iv.end(), iv.begin() + 1);
  } else {
    std::copy(s.iv.begin(), s.iv.end(), iv.begin());
  }
  return iv;
}

unsigned tag_bytes(const CipherSetup& s) {
  return s.tag_bytes ? s.tag_bytes : static_cast<unsigned>(s.aead_alg.maxauthsize());
}

std::string check_aead(const CipherSetup& s, std::size_t n, bool on_engine) {
  const qce::AeadAlg& a = s.aead_alg;
  // A tfm that forbids weak keys: the driver's setkey (verify_aead_des(3)_key, after its key-length
  // check) and the CPU's authenc (its cbc(des) inherits the flag) refuse them as the skciphers do.
  if (s.forbid_weak_keys && !a.ccm && a.cipher != CipherAlg::aes)
    if (const std::string weak = qce::weak_key_check(a.cipher, CipherMode::cbc, s.key, !on_engine); !weak.empty())
      return fmt::format("--key: expected {}, found a weak one", weak);
  qce::SoftOnly soft;
  std::string why = qce::aead_key_check(a, s.key, s.auth_key, &soft);
  // With a platform's rules (or on the CPU) AES-192 and 3DES with equal keys run in software.
  if (soft != qce::SoftOnly::none && (s.rules.era || !on_engine)) why.clear();
  if (!why.empty()) {
    const bool hmac = why.find("HMAC") != std::string::npos;
    return fmt::format("{}: expected {}, found {} bytes", hmac ? "--auth-key" : "--key", why,
                       hmac ? s.auth_key.size() : s.key.size());
  }
  if (!a.ccm && s.auth_key.empty()) return fmt::format("--auth-key: expected the HMAC key of {}, found none", a.name());
  if (a.ccm && !s.auth_key.empty())
    return fmt::format("--auth-key: expected none for {} (its MAC uses --key), found one", a.name());
  if (a.rfc4309) {
    if (s.iv.size() != 8)
      return fmt::format("--iv: expected 8 bytes for rfc4309(ccm(aes)) (the salt ends --key), found {}", s.iv.size());
    if (std::string w = qce::rfc4309_assoclen_check(s.assoc.size()); !w.empty()) return "--assoc: expected " + w;
  } else if (a.ccm) {
    if (s.iv.size() != 16 && (s.iv.size() < 7 || s.iv.size() > 13))
      return fmt::format("--iv: expected a 7..13-byte nonce or the kernel's 16-byte IV for ccm(aes), found {} bytes",
                         s.iv.size());
    if (std::string w = qce::ccm_iv_check(aead_iv(s)); !w.empty()) return "--iv: expected " + w;
  } else if (s.iv.size() != a.ivsize()) {
    return fmt::format("--iv: expected {} bytes for {}, found {}", a.ivsize(), a.name(), s.iv.size());
  }
  if (std::string w = qce::aead_authsize_check(a, tag_bytes(s)); !w.empty())
    return fmt::format("--tag-bytes: expected {}, found {}", w, tag_bytes(s));
  if (s.assoc.size() > kAeadMaxAssoc)
    return fmt::format("--assoc: expected at most {} bytes (the engine's ENCR_SEG_START is 16 bits), found {}",
                       kAeadMaxAssoc, s.assoc.size());
  if (!s.encrypt && n < tag_bytes(s))
    return fmt::format("input: expected at least the {}-byte tag to decrypt, found {} bytes", tag_bytes(s), n);
  const std::size_t text = s.encrypt ? n : n - tag_bytes(s);
  if (text > kAeadMaxText)
    return fmt::format("input: expected at most {} bytes of text (one request), found {}", kAeadMaxText, text);
  if (!a.ccm && text % cipher_block_bytes(a.cipher))
    return fmt::format("input: expected a text of a multiple of {} bytes for {} (no padding), found {}",
                       cipher_block_bytes(a.cipher), a.name(), text);
  if (!on_engine) return "";
  if (s.rules.era && !qce::qce_registers(s.rules, a.name()))
    return fmt::format("--alg: expected an algorithm the {} driver registers, found {}", s.rules.era, a.name());
  const qce::RouteDecision d = qce::aead_route(s.rules, a, s.encrypt, s.key, text);
  if (d.route == qce::Route::engine && a.ccm && text % 16)
    return fmt::format(
        "input: expected whole 16-byte blocks for ccm(aes) on the engine (it stalls on a partial block; a 2026 "
        "platform sends such texts to the software fallback), found {} bytes",
        text);
  if (d.route == qce::Route::engine && a.ccm && text + (s.encrypt ? 0 : tag_bytes(s)) > kCcmMaxOneDescriptor)
    return fmt::format(
        "input: expected at most {} bytes of ccm(aes) text on the engine (the BAM splits a longer payload into "
        "descriptors and the engine stalls on a payload in more than one), found {}",
        kCcmMaxOneDescriptor - (s.encrypt ? 0 : tag_bytes(s)), text);
  if (d.route == qce::Route::engine && text == 0 && !(a.ccm && !s.encrypt))
    return "input: expected some text for the engine (it takes no empty messages; a platform's rules send them to the "
           "fallback)";
  return "";
}

}  // namespace

bool parse_cipher_name(const std::string& name, CipherSetup& s) {
  s.name = name;
  if (qce::parse_skcipher_name(name, s.alg, s.mode)) {
    s.aead = false;
    return true;
  }
  if (auto a = qce::parse_aead_name(name)) {
    s.aead = true;
    s.aead_alg = *a;
    return true;
  }
  return false;
}

std::string cipher_names() {
  return alg_name_list(AlgKind::skcipher) + ", " + alg_name_list(AlgKind::aead) + ", rfc4309(ccm(aes))";
}

std::string check_cipher_job(const CipherSetup& s, std::size_t n, bool on_engine) {
  if (s.aead) return check_aead(s, n, on_engine);
  if (!s.assoc.empty() || s.tag_bytes || !s.auth_key.empty())
    return fmt::format("--assoc, --tag-bytes and --auth-key: expected none for {} (an skcipher), found one", s.name);
  qce::SoftOnly soft;
  std::string why = qce::skcipher_key_check(s.alg, s.mode, s.key, &soft);
  // A tfm that forbids weak keys refuses them first (verify_skcipher_des(3)_key; xts_verify_key on
  // the CPU, and in the driver since 2026).
  if (s.forbid_weak_keys && (s.mode != CipherMode::xts || !on_engine || s.rules.era >= 2026))
    if (const std::string weak = qce::weak_key_check(s.alg, s.mode, s.key, !on_engine); !weak.empty())
      return fmt::format("--key: expected {}, found a weak one", weak);
  // The CPU runs every key the engine cannot; the driver keeps those its era's setkey keeps
  // (AES-192 for a platform's fallback, equal XTS halves in 2026, and in 2020 equal XTS halves and
  // 3DES keys unchecked: fine only where its fallback runs the request).
  const qce::Route route = qce::skcipher_route(s.rules, s.alg, s.mode, s.key, static_cast<std::size_t>(n)).route;
  if (soft != qce::SoftOnly::none && (!on_engine || qce::setkey_keeps(soft, s.rules.era))) why.clear();
  if (on_engine && s.rules.era == 2020)
    if (const std::string w = qce::unchecked_2020_key(soft, route); !w.empty())
      return fmt::format("--key: expected {}, found equal keys for {} bytes", w, n);
  if (!why.empty()) return fmt::format("--key: expected {}, found {} bytes", why, s.key.size());
  const std::size_t ivsize = qce::skcipher_ivsize(s.alg, s.mode);
  if (s.iv.size() != ivsize)
    return ivsize ? fmt::format("--iv: expected {} bytes for {}, found {}", ivsize, s.name, s.iv.size())
                  : fmt::format("--iv: expected none for {} (it takes no IV), found {} bytes", s.name, s.iv.size());
  if (const std::string w = qce::skcipher_length_check(s.alg, s.mode, n); !w.empty())
    return fmt::format("input: expected {} (no padding, as the kernel's skcipher), found {}", w, n);
  // A partial last block needs ciphertext stealing, which the engine has not: the CPU does it, and
  // so does a platform's driver where it hands the request to its software fallback (in 2020
  // every AES request up to aes_sw_max_len; since 2021 every such XTS length).
  const bool steals = !on_engine || route == qce::Route::fallback;
  // No bytes: the kernel's xts (and the driver since 2026) says -EINVAL for less than a block, on
  // the CPU or in a fallback (the 2020 driver's, by length); the 2021-2024 driver returns before
  // looking ("CE does not handle 0 length messages").
  const bool empty_refused = steals || s.rules.era >= 2026;
  if (s.mode == CipherMode::xts && (n != 0 || empty_refused) &&
      ((n % 16 != 0 && !steals) || n < 16 || n > kXtsMaxBytes))
    return fmt::format(
        "input: expected at least 16 bytes, whole 16-byte blocks (else the CPU or a platform's fallback), at most {} "
        "bytes, for xts(aes) (one request, one data unit), found {}",
        kXtsMaxBytes, n);
  if (on_engine && s.rules.era && !qce::qce_registers(s.rules, s.name))
    return fmt::format("--alg: expected an algorithm the {} driver registers, found {}", s.rules.era, s.name);
  return "";
}

std::vector<std::uint8_t> aead_on_cpu(const CipherSetup& s, const std::vector<std::uint8_t>& in) {
  const qce::AeadAlg& a = s.aead_alg;
  if (a.rfc4309) {  // crypto/ccm.c's rfc4309 template over ccm(aes): salt || IV, the IV's copy skipped
    const std::vector<std::uint8_t> key(s.key.begin(), s.key.end() - 3), ad(s.assoc.begin(), s.assoc.end() - 8);
    auto out = aead_crypt(true, a.cipher, a.hash, s.encrypt, key, key,
                          qce::rfc4309_ccm_iv(s.key.data() + key.size(), s.iv.data()), ad, in, tag_bytes(s));
    if (!out) throw BadTag("the tag does not match");
    return *out;
  }
  auto out = aead_crypt(a.ccm, a.cipher, a.hash, s.encrypt, s.key, s.auth_key, aead_iv(s), s.assoc, in, tag_bytes(s));
  if (!out) throw BadTag("the tag does not match");
  return *out;
}

namespace {

// The platform a job runs on: the register-I/O mode, and the kernel era's rules and CPU.
soc::EmulatorConfig job_platform(const CipherSetup& s) {
  soc::EmulatorConfig cfg;
  cfg.driver.reg_io = s.reg_io;
  cfg.driver.rules = s.rules;
  cfg.driver.soft = s.soft;
  return cfg;
}

}  // namespace

std::vector<std::uint8_t> aead_on_engine(const CipherSetup& s, const std::vector<std::uint8_t>& in) {
  soc::Emulator emu(job_platform(s));
  std::vector<std::uint8_t> out;
  emu.run([&](soc::Emulator& e) {
    qce::QceAead tfm(e.qce(), e.task(), s.aead_alg);
    if (const std::string why = tfm.setkey(s.key, s.auth_key); !why.empty())
      throw qce::QceError("setkey: expected " + why);
    if (const std::string why = tfm.setauthsize(tag_bytes(s)); !why.empty())
      throw qce::QceError("setauthsize: expected " + why);
    const std::size_t t = tag_bytes(s), out_len = s.encrypt ? in.size() + t : in.size() - t;
    const cpu::DmaBuf buf = e.host().dma_alloc(s.assoc.size() + in.size() + t, 4096);
    copy_bytes(buf.ptr, s.assoc.data(), s.assoc.size());
    copy_bytes(buf.ptr + s.assoc.size(), in.data(), in.size());
    try {
      tfm.crypt(s.encrypt, aead_iv(s), buf.addr, buf.addr, static_cast<std::uint32_t>(s.assoc.size()),
                static_cast<std::uint32_t>(in.size()));
    } catch (const qce::QceBadMessage&) {
      e.host().dma_free(buf);
      throw BadTag("the tag does not match (the driver said -EBADMSG)");
    }
    out.assign(buf.ptr + s.assoc.size(), buf.ptr + s.assoc.size() + out_len);
    e.host().dma_free(buf);
  });
  return out;
}

std::vector<std::uint8_t> skcipher_stream(const CipherSetup& s, bool on_cpu, std::uint64_t total,
                                          const ChunkReader& read, const ChunkWriter& write) {
  const std::size_t ivsize = qce::skcipher_ivsize(s.alg, s.mode);
  const std::size_t step =
      s.mode == CipherMode::xts ? static_cast<std::size_t>(std::max<std::uint64_t>(total, 1)) : s.request_bytes;
  auto next = [&](std::uint8_t* p, std::uint64_t done) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(step, total - done));
    if (read(p, n) != n) throw std::runtime_error("input: ended before its size");
    return n;
  };
  if (on_cpu) {
    CipherStream stream(kernel_cipher_spec(s.alg, s.mode, s.encrypt, s.key, s.iv.data(), s.iv.size()));
    std::vector<std::uint8_t> buf(std::min<std::uint64_t>(step, std::max<std::uint64_t>(total, 1)));
    for (std::uint64_t done = 0; done < total;) {
      const std::size_t n = next(buf.data(), done);
      stream.update(buf.data(), buf.data(), n);
      write(buf.data(), n);
      done += n;
    }
    if (s.mode == CipherMode::xts) return s.iv;  // xts leaves req->iv as it was
    const std::array<std::uint8_t, 16> chained = software_iv_out(stream, s.mode, total, {});
    return std::vector<std::uint8_t>(chained.begin(), chained.begin() + static_cast<long>(ivsize));
  }
  std::vector<std::uint8_t> iv_out;
  soc::Emulator emu(job_platform(s));
  emu.run([&](soc::Emulator& e) {
    qce::QceSkcipher tfm(e.qce(), e.task(), s.alg, s.mode);
    tfm.forbid_weak_keys(s.forbid_weak_keys);
    if (const std::string why = tfm.setkey(s.key); !why.empty()) throw qce::QceError("setkey: expected " + why);
    const cpu::DmaBuf buf = e.host().dma_alloc(
        static_cast<std::size_t>(std::min<std::uint64_t>(step, std::max<std::uint64_t>(total, 1))), 4096);
    std::array<std::uint8_t, 16> iv{};
    std::copy(s.iv.begin(), s.iv.end(), iv.begin());
    for (std::uint64_t done = 0; done < total;) {
      const std::size_t n = next(buf.ptr, done);
      tfm.crypt(s.encrypt, iv, buf.addr, buf.addr, static_cast<std::uint32_t>(n));  // in place
      write(buf.ptr, n);
      done += n;
    }
    e.host().dma_free(buf);
    iv_out.assign(iv.begin(), iv.begin() + static_cast<long>(ivsize));
  });
  return iv_out;
}

}  // namespace qcesim::studies
