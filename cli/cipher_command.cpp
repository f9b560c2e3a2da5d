#include "cli/cipher_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <tuple>

#include "cli/hex.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/config_error.h"
#include "model/profile.h"
#include "studies/cipher_job.h"

namespace qcesim::cli {

namespace {

constexpr std::size_t kMaxInput = 64u << 20;  // the whole input is held in memory

// The whole file (or standard input); "" or why not.
std::string read_all(const std::string& name, std::vector<std::uint8_t>& data) {
  const bool stdin_ = name.empty() || name == "-";
  const int fd = stdin_ ? 0 : ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return name + ": " + std::strerror(errno);
  std::uint8_t buf[65536];
  std::string why;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      why = (stdin_ ? std::string("standard input") : name) + ": " + std::strerror(errno);
      break;
    }
    if (data.size() + static_cast<std::size_t>(n) > kMaxInput) {
      why = "input: expected at most 64 MiB, found more";
      break;
    }
    data.insert(data.end(), buf, buf + n);
  }
  if (!stdin_) ::close(fd);
  return why;
}

}  // namespace

namespace {

// A hex option into `out` ("" or the message for stderr).
std::string hex_option(const char* name, const std::string& text, std::vector<std::uint8_t>& out) {
  if (text.empty()) return "";
  std::string why;
  auto v = parse_hex(text, &why);
  if (!v) return std::string(name) + ": expected " + why;
  out = std::move(*v);
  return "";
}

// Everything from the options but the input: "" or the message for stderr.
std::string setup(const CipherOptions& opt, studies::CipherSetup& s) {
  if (!studies::parse_cipher_name(opt.alg, s))
    return "--alg: expected one of " + studies::cipher_names() + ", found " + model::quoted_input(opt.alg);
  std::string why;
  auto key = parse_hex(opt.key_hex, &why);
  if (!key) return "--key: expected " + why;
  s.key = *key;
  for (const auto& [name, text, out] : {std::tuple<const char*, const std::string&, std::vector<std::uint8_t>&>{"--iv", opt.iv_hex, s.iv},
                                        {"--auth-key", opt.auth_key_hex, s.auth_key},
                                        {"--assoc", opt.assoc_hex, s.assoc}})
    if (std::string e = hex_option(name, text, out); !e.empty()) return e;
  if (!opt.assoc_file.empty()) {
    if (!opt.assoc_hex.empty()) return "--assoc-file: expected it or --assoc, found both";
    if (std::string e = read_all(opt.assoc_file, s.assoc); !e.empty()) return "--assoc-file: " + e;
  }
  s.tag_bytes = opt.tag_bytes;
  if (s.tag_bytes && !s.aead) return "--tag-bytes: expected none for " + s.name + " (an skcipher), found " + std::to_string(s.tag_bytes);
  s.encrypt = !opt.decrypt;
  s.reg_io = opt.bam_reg_io ? qce::RegIo::bam : qce::RegIo::mmio;
  if (!opt.platform.empty()) {  // bad files and values are ConfigErrors (exit 2 naming the file)
    const model::Profile p = model::Profile::load(opt.platform);
    s.rules = qce::qce_rules(p);
    s.soft = cpu::soft_crypto_config(p);
  }
  if (opt.era >= 0) {
    s.rules.era = opt.era;
    if (opt.platform.empty()) s.rules.aes_sw_max_len = 512;  // CONFIG_CRYPTO_DEV_QCE_SW_MAX_LEN's default
    if (std::string e = qce::check_rules(s.rules); !e.empty()) return "--era: expected " + e;
  }
  return "";
}

}  // namespace

int run_cipher(const CipherOptions& opt, std::ostream& out, std::ostream& err) {
  studies::CipherSetup s;
  if (const std::string e = setup(opt, s); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  std::vector<std::uint8_t> in;
  if (const std::string e = read_all(opt.file, in); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  if (const std::string e = studies::check_cipher_job(s, in.size(), !opt.on_cpu); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  std::vector<std::uint8_t> result;
  try {
    result = opt.on_cpu ? studies::cipher_on_cpu(s, in) : studies::cipher_on_engine(s, in);
  } catch (const studies::BadTag& e) {
    err << "qcesim cipher: " << e.what() << ": the input is not authentic (nothing written)\n";
    return 1;
  }
  out.write(reinterpret_cast<const char*>(result.data()), static_cast<std::streamsize>(result.size()));
  out.flush();
  return out ? 0 : 2;
}

}  // namespace qcesim::cli
