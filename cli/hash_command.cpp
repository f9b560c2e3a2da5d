#include "cli/hash_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "cli/hex.h"
#include "cpu/ce_sha.h"
#include "soc/soc.h"
#include "drivers/crypto/qce/sha.h"

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

void hash_on_cpu(const HashOptions& opt, const std::vector<std::string>& names, std::ostream& out,
                 std::ostream& err, int& status) {
  std::vector<std::uint8_t> buf(opt.request_bytes);
  for (const std::string& name : names) {
    Input in(name);
    if (!in.ok()) {
      err << "qcesim hash: " << in.error() << "\n";
      status = 2;
      continue;
    }
    cpu::CeSha h(opt.alg, opt.hmac_key);
    long n;
    while ((n = in.read_full(buf.data(), buf.size())) > 0) h.update(buf.data(), static_cast<std::size_t>(n));
    if (n < 0) {
      err << "qcesim hash: " << in.error() << "\n";
      status = 2;
      continue;
    }
    out << checksum_line(h.final(), name) << "\n";
  }
}

void hash_on_qce(const HashOptions& opt, const std::vector<std::string>& names, std::ostream& out,
                 std::ostream& err, int& status) {
  model::EmulatorConfig cfg;
  cfg.driver.reg_io = opt.reg_io;
  model::Emulator emu(cfg);
  emu.run([&](model::Emulator& e) {
    // The file is read straight into DMA memory, as a user buffer mapped for the engine.
    const cpu::DmaBuf buf = e.host().dma_alloc(opt.request_bytes, 4096);
    for (const std::string& name : names) {
      Input in(name);
      if (!in.ok()) {
        err << "qcesim hash: " << in.error() << "\n";
        status = 2;
        continue;
      }
      try {
        qce::QceAhash h(e.qce(), e.task(), opt.alg, opt.hmac_key);
        long n;
        while ((n = in.read_full(buf.ptr, buf.size)) > 0) h.update(buf.addr, static_cast<std::uint32_t>(n));
        if (n < 0) {
          err << "qcesim hash: " << in.error() << "\n";
          status = 2;
          continue;
        }
        out << checksum_line(h.final(), name) << "\n";
      } catch (const qce::QceError& ex) {
        err << "qcesim hash: " << name << ": engine error: " << ex.what() << "\n";
        status = 2;
      }
    }
    e.host().dma_free(buf);
  });
  if (opt.stats) {
    auto& soc = emu.soc();
    const auto& rx = soc.bam.pipe_stats(cfg.driver.rx_pipe);
    const auto& tx = soc.bam.pipe_stats(cfg.driver.tx_pipe);
    err << "qce requests:          " << emu.qce().stats().requests << "\n"
        << "register writes:       " << emu.qce().stats().reg_writes << " (" << emu.qce().stats().command_elements
        << " as command elements)\n"
        << "rx pipe descriptors:   " << rx.descriptors << " (" << rx.cmd_descriptors << " command), " << rx.bytes
        << " bytes in " << rx.bursts << " bursts\n"
        << "tx pipe descriptors:   " << tx.descriptors << ", " << tx.bytes << " bytes\n"
        << "pipe interrupt events: " << rx.irq_events + tx.irq_events << "\n"
        << "hardirqs:              " << emu.bam_dma().irq_stats().hardirqs << "\n"
        << "cpu mmio reads/writes: " << soc.host.stats().mmio_reads << "/" << soc.host.stats().mmio_writes << "\n"
        << "engine operations:     " << soc.qce.stats().operations << ", " << soc.qce.stats().blocks_hashed
        << " blocks\n";
  }
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
  std::vector<std::string> names = opt.files;
  if (names.empty()) names.push_back("-");
  int status = 0;
  if (opt.engine == Engine::ce) {
    hash_on_cpu(opt, names, out, err, status);
  } else {
    hash_on_qce(opt, names, out, err, status);
  }
  out.flush();
  return status;
}

}  // namespace qcesim::cli
