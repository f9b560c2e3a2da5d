#include "cli/cipher_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include "cli/hex.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/config_error.h"
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

int run_cipher(const CipherOptions& opt, std::ostream& out, std::ostream& err) {
  studies::CipherSetup s;
  if (!qce::parse_skcipher_name(opt.alg, s.alg, s.mode)) {
    err << "qcesim cipher: --alg: expected one of ecb(aes), cbc(aes), ctr(aes), xts(aes), ecb(des), cbc(des), "
           "ecb(des3_ede), cbc(des3_ede), found "
        << model::quoted_input(opt.alg) << "\n";
    return 2;
  }
  std::string why;
  auto key = parse_hex(opt.key_hex, &why);
  if (!key) {
    err << "qcesim cipher: --key: expected " << why << "\n";
    return 2;
  }
  s.key = *key;
  if (!opt.iv_hex.empty()) {
    auto iv = parse_hex(opt.iv_hex, &why);
    if (!iv) {
      err << "qcesim cipher: --iv: expected " << why << "\n";
      return 2;
    }
    s.iv = *iv;
  }
  s.encrypt = !opt.decrypt;
  s.reg_io = opt.bam_reg_io ? qce::RegIo::bam : qce::RegIo::mmio;
  std::vector<std::uint8_t> in;
  if (const std::string e = read_all(opt.file, in); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  if (const std::string e = studies::check_cipher_job(s, in.size()); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  const std::vector<std::uint8_t> result = opt.on_cpu ? studies::cipher_on_cpu(s, in) : studies::cipher_on_engine(s, in);
  out.write(reinterpret_cast<const char*>(result.data()), static_cast<std::streamsize>(result.size()));
  out.flush();
  return out ? 0 : 2;
}

}  // namespace qcesim::cli
