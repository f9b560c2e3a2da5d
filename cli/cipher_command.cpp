#include "cli/cipher_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <ostream>
#include <tuple>

#include "cli/driver_rules.h"
#include "cli/hex.h"
#include "cli/output_file.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/byte_order.h"
#include "model/config_error.h"
#include "model/profile.h"
#include "studies/cipher_job.h"

namespace qcesim::cli {

namespace {

constexpr std::size_t kMaxInput = 64u << 20;  // a pipe's input is held in memory (a file's is streamed)

// Reads up to n bytes (fewer only at the end or on an error); "" or why not.
std::size_t read_fd(int fd, std::uint8_t* p, std::size_t n, std::string& why) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::read(fd, p + got, n - got);
    if (k == 0) break;
    if (k < 0) {
      if (errno == EINTR) continue;
      why = std::strerror(errno);
      break;
    }
    got += static_cast<std::size_t>(k);
  }
  return got;
}

// The input: a regular file streams (its size known up front); standard input or a pipe is read
// whole (at most kMaxInput).
struct CipherInput {
  std::string name;
  int fd = -1;
  bool regular = false;
  std::uint64_t size = 0;
  std::vector<std::uint8_t> data;  // not regular: everything
  ~CipherInput() {
    if (fd > 0) ::close(fd);
  }
};

std::string open_input(const std::string& name, CipherInput& in) {
  const bool stdin_ = name.empty() || name == "-";
  in.name = stdin_ ? "standard input" : name;
  in.fd = stdin_ ? 0 : ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (in.fd < 0) return name + ": " + std::strerror(errno);
  struct stat st {};
  // A regular file of size 0 may still have contents (/proc, /sys): read to its end as a pipe.
  if (::fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    in.regular = true;
    in.size = static_cast<std::uint64_t>(st.st_size);
    return "";
  }
  std::uint8_t buf[65536];
  for (;;) {
    std::string why;
    const std::size_t n = read_fd(in.fd, buf, sizeof buf, why);
    if (!why.empty()) return in.name + ": " + why;
    if (in.data.size() + n > kMaxInput)
      return "input: expected at most 64 MiB from a pipe (a file may be larger), found more";
    in.data.insert(in.data.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  in.size = in.data.size();
  return "";
}

// The whole input in memory (an AEAD's, checked to be small).
std::string read_whole(CipherInput& in, std::vector<std::uint8_t>& out) {
  if (!in.regular) {
    out = std::move(in.data);
    return "";
  }
  out.resize(static_cast<std::size_t>(in.size));
  std::string why;
  if (read_fd(in.fd, out.data(), out.size(), why) != out.size())
    return in.name + ": " + (why.empty() ? "shorter than its size" : why);
  return "";
}

// A small file read whole (--assoc-file); "" or why not.
std::string read_all(const std::string& name, std::vector<std::uint8_t>& data) {
  CipherInput in;
  if (std::string e = open_input(name, in); !e.empty()) return e;
  if (in.regular && in.size > kMaxInput) return name + ": expected at most 64 MiB, found more";
  return read_whole(in, data);
}

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
  for (const auto& [name, text, out] :
       {std::tuple<const char*, const std::string&, std::vector<std::uint8_t>&>{"--iv", opt.iv_hex, s.iv},
        {"--auth-key", opt.auth_key_hex, s.auth_key},
        {"--assoc", opt.assoc_hex, s.assoc}})
    if (std::string e = hex_option(name, text, out); !e.empty()) return e;
  if (!opt.assoc_file.empty()) {
    if (!opt.assoc_hex.empty()) return "--assoc-file: expected it or --assoc, found both";
    if (std::string e = read_all(opt.assoc_file, s.assoc); !e.empty()) return "--assoc-file: " + e;
  }
  s.tag_bytes = opt.tag_bytes;
  if (s.tag_bytes && !s.aead)
    return "--tag-bytes: expected none for " + s.name + " (an skcipher), found " + std::to_string(s.tag_bytes);
  s.encrypt = !opt.decrypt;
  s.forbid_weak_keys = opt.forbid_weak_keys;
  if (!opt.iv_out.empty() && s.aead)
    return "--iv-out: expected none for " + s.name + " (an AEAD leaves no IV), found one";
  s.reg_io = opt.bam_reg_io ? qce::RegIo::bam : qce::RegIo::mmio;
  // Bad files and values are ConfigErrors (exit 2 naming the file).
  std::optional<model::Profile> platform;
  if (!opt.platform.empty()) {
    platform = load_platform(opt.platform);
    s.soft = cpu::soft_crypto_config(*platform);
  }
  return select_driver_rules(platform ? &*platform : nullptr, opt.era, s.rules);
}

}  // namespace

int run_cipher(const CipherOptions& opt, std::ostream& out, std::ostream& err) {
  studies::CipherSetup s;
  if (const std::string e = setup(opt, s); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  CipherInput in;
  if (const std::string e = open_input(opt.file, in); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  if (const std::string e = studies::check_cipher_job(s, in.size, !opt.on_cpu); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  if (!opt.iv_out.empty()) check_output("--iv-out", opt.iv_out);
  auto write = [&out](const std::uint8_t* p, std::size_t n) {
    out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
    if (!out) throw std::runtime_error("standard output: write failed");
  };
  if (!s.aead) {
    std::size_t at = 0;
    std::string why;
    auto read = [&](std::uint8_t* p, std::size_t n) -> std::size_t {
      if (in.regular) return read_fd(in.fd, p, n, why);
      const std::size_t k = std::min(n, in.data.size() - at);
      copy_bytes(p, in.data.data() + at, k);
      at += k;
      return k;
    };
    const std::vector<std::uint8_t> iv = studies::skcipher_stream(s, opt.on_cpu, in.size, read, write);
    out.flush();
    if (!out) return 2;
    if (!opt.iv_out.empty()) write_output("--iv-out", opt.iv_out, to_hex(iv) + "\n");
    return 0;
  }
  std::vector<std::uint8_t> data, result;
  if (const std::string e = read_whole(in, data); !e.empty()) {
    err << "qcesim cipher: " << e << "\n";
    return 2;
  }
  try {
    result = opt.on_cpu ? studies::aead_on_cpu(s, data) : studies::aead_on_engine(s, data);
  } catch (const studies::BadTag& e) {
    err << "qcesim cipher: " << e.what() << ": the input is not authentic (nothing written)\n";
    return 1;
  }
  write(result.data(), result.size());
  out.flush();
  return out ? 0 : 2;
}

}  // namespace qcesim::cli
