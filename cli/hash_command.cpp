#include "cli/hash_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>

#include "cli/driver_rules.h"
#include "cli/hex.h"
#include "drivers/crypto/qce/fallback.h"
#include "model/profile.h"
#include "studies/hash_job.h"

namespace qcesim::cli {

namespace {

// An open input: a named file or standard input ("-").
class Input {
 public:
  explicit Input(const std::string& name) : m_name(name) {
    if (name == "-") {
      m_fd = 0;
      return;
    }
    m_fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) m_errno = errno;
  }
  ~Input() {
    if (m_fd > 0) ::close(m_fd);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  bool ok() const { return m_fd >= 0 && m_errno == 0; }
  std::string error() const { return m_name + ": " + std::strerror(m_errno); }

  // Fills up to `len` bytes (short only at end of file); -1 on a read error.
  long read_full(std::uint8_t* dst, std::size_t len) {
    std::size_t got = 0;
    while (got < len) {
      const ssize_t n = ::read(m_fd, dst + got, len - got);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        m_errno = errno;
        return -1;
      }
      got += static_cast<std::size_t>(n);
    }
    return static_cast<long>(got);
  }

 private:
  std::string m_name;
  int m_fd = -1;
  int m_errno = 0;
};

void print_stats(const studies::EngineHashStats& s, std::ostream& err) {
  err << "qce requests:          " << s.requests << "\n"
      << "register writes:       " << s.reg_writes << " (" << s.command_elements << " as command elements)\n"
      << "rx pipe descriptors:   " << s.rx_descriptors << " (" << s.rx_cmd_descriptors << " command), " << s.rx_bytes
      << " bytes in " << s.rx_bursts << " bursts\n"
      << "tx pipe descriptors:   " << s.tx_descriptors << ", " << s.tx_bytes << " bytes\n"
      << "pipe interrupt events: " << s.pipe_irq_events << "\n"
      << "hardirqs:              " << s.hardirqs << "\n"
      << "cpu mmio reads/writes: " << s.mmio_reads << "/" << s.mmio_writes << "\n"
      << "engine operations:     " << s.engine_operations << ", " << s.engine_blocks << " blocks\n";
  if (s.reimports) err << "export/import rounds:  " << s.reimports << " (statesize " << s.statesize << " bytes)\n";
}

}  // namespace

std::string checksum_line(const std::vector<std::uint8_t>& digest, const std::string& name) {
  bool escape = name.find_first_of("\\\n") != std::string::npos;
  std::string line = escape ? "\\" : "";
  line += to_hex(digest);
  line += "  ";
  if (!escape) return line + name;
  for (char c : name) {
    if (c == '\\') {
      line += "\\\\";
    } else if (c == '\n') {
      line += "\\n";
    } else {
      line += c;
    }
  }
  return line;
}

int run_hash(const HashOptions& opt, std::ostream& out, std::ostream& err) {
  // The counters are the engine's and the BAM's: the CPU path has none to print.
  if (opt.stats && opt.engine == Engine::ce)
    throw model::ConfigError("--stats", "", "--engine qce (the counters are the engine's and the BAM's)",
                             "--engine ce");
  // The driver's kernel era: the platform's (a bad file or value is a ConfigError, exit 2 naming
  // it), --era over it.
  qce::QceRules rules;
  std::optional<model::Profile> platform;
  if (!opt.platform.empty()) platform = load_platform(opt.platform);
  if (const std::string e = select_driver_rules(platform ? &*platform : nullptr, opt.era, rules); !e.empty()) {
    err << "qcesim hash: " << e << "\n";
    return 2;
  }
  const std::string alg = hash_alg_name(opt.alg);
  const std::string name = opt.hmac_key ? "hmac(" + alg + ")" : alg;
  // Only the qce driver's registrations: the CPU path is the kernel's sha*-ce, whatever the era.
  if (opt.engine == Engine::qce && rules.era && !qce::qce_registers(rules, name)) {
    err << "qcesim hash: --alg: expected an algorithm the " << rules.era << " driver registers, found " << name << "\n";
    return 2;
  }
  std::vector<std::string> names = opt.files;
  if (names.empty()) names.push_back("-");
  int status = 0;
  std::unique_ptr<Input> in;  // the file being hashed
  auto open = [&](std::size_t i) -> studies::StreamReader {
    in = std::make_unique<Input>(names[i]);
    if (in->ok()) return [&in](std::uint8_t* dst, std::size_t len) { return in->read_full(dst, len); };
    err << "qcesim hash: " << in->error() << "\n";
    status = 2;
    return {};
  };
  auto done = [&](std::size_t i, const studies::HashOutcome& o) {
    if (o.read_error) {
      err << "qcesim hash: " << in->error() << "\n";
      status = 2;
    } else if (!o.engine_error.empty()) {
      err << "qcesim hash: " << names[i] << ": engine error: " << o.engine_error << "\n";
      status = 2;
    } else {
      out << checksum_line(o.digest, names[i]) << "\n";
    }
  };
  const studies::HashSetup setup{opt.alg, opt.hmac_key, opt.reg_io, opt.request_bytes, rules, opt.reimport};
  if (opt.engine == Engine::ce) {
    studies::hash_on_cpu(setup, names.size(), open, done);
  } else {
    const studies::EngineHashStats stats = studies::hash_on_engine(setup, names.size(), open, done);
    if (opt.stats) print_stats(stats, err);
  }
  out.flush();
  return status;
}

}  // namespace qcesim::cli
