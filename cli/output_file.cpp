#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "studies/stop_signals.h"
#include "model/config_error.h"
#include "model/path_walk.h"
#include "spdlog/fmt/fmt.h"

namespace qcesim::cli {

namespace fs = std::filesystem;

namespace {

using model::WalkedPath;

std::string what_it_is(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISREG(st.st_mode)) return "a regular file";
  return "a special file";
}

const char* kExpected = "a regular file or a new file in an existing, writable folder (or a character device or FIFO)";

// Where the name leads (model::walk_path: each folder held, links only the user's or root's
// followed) and what it may be: a device or FIFO (or a kernel file in /dev, /proc, /sys) is
// written through; a regular file or a new name is replaced; the rest is refused.
OutputKind classify(const std::string& option, const std::string& file, WalkedPath& w) {
  w = model::walk_path(option, file, kExpected);
  if (w.node.valid()) {
    const struct stat& st = w.st;
    // A regular file is written through only when it is the kernel's (in /proc or /sys) or was
    // reached through the kernel's link (/dev/stdout redirected to a file): any other, in /dev/shm
    // too, is replaced.
    const bool kernels = S_ISREG(st.st_mode) && (w.by_kernel || model::kernel_file(w.node.get()));
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || kernels) {
      if (access(file.c_str(), W_OK) != 0)
        throw model::ConfigError(
            option, "", kExpected,
            file + ": " + what_it_is(st) + " that cannot be written (" + std::strerror(errno) + ")");
      return OutputKind::write_through;
    }
    if (!S_ISREG(st.st_mode)) throw model::ConfigError(option, "", kExpected, file + ": " + what_it_is(st));
  } else {
    if (w.final_link) throw model::ConfigError(option, "", kExpected, file + ": a link to nothing");
    if (model::in_system_tree(file) || model::in_system_tree(w.path))
      throw model::ConfigError(option, "", kExpected, file + ": a new name under /dev, /proc or /sys");
  }
  return OutputKind::replace;
}

// The walked folder as a message names it.
std::string shown_folder(const WalkedPath& w) {
  const fs::path p(w.path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

}  // namespace

OutputKind check_output(const std::string& option, const std::string& file) {
  WalkedPath w;
  if (classify(option, file, w) == OutputKind::write_through) return OutputKind::write_through;
  // A regular file or a new name: the folder must take the temporary file (and then the rename).
  std::string probe;
  const int fd = model::make_temp_at(w.folder.get(), w.name, probe);
  if (fd < 0)
    throw model::ConfigError(option, "", kExpected,
                             file + ": cannot create a file in " + shown_folder(w) + " (" + std::strerror(errno) + ")");
  close(fd);
  unlinkat(w.folder.get(), probe.c_str(), 0);
  return OutputKind::replace;
}

void refuse_input(const std::string& option, const std::string& file, const std::vector<std::string>& inputs) {
  struct stat out;
  // A new name is no input, and a device or FIFO is written through, not replaced (a terminal
  // is both stdin and stdout).
  if (stat(file.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return;
  for (const std::string& in : inputs) {
    struct stat st;
    if (stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      throw model::ConfigError(option, "", "an output that is none of the files read",
                               file + ": the input " + in + " itself (name another with " + option + ")");
  }
}

OutputFile::OutputFile(const std::string& option, const std::string& file) : m_option(option), m_file(file) {
  // Walked again: check_output's walk was before the run. From here on the folder is held, and
  // the temporary file is made and renamed in it, never by name.
  WalkedPath w;
  if (classify(option, file, w) == OutputKind::write_through) {
    // Opened through the node found (O_PATH opens nothing), so a regular file swapped in since is
    // not appended to; non-blocking, so a FIFO nobody reads is an error (ENXIO), not a wait for
    // ever. Writes then block as usual.
    m_fd = model::open_through(w.node.release(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (m_fd < 0 && errno == ENXIO)
      throw std::runtime_error(m_option + ": cannot open " + m_file + ": a FIFO that nothing reads");
    if (m_fd < 0) fail("open");
    const int flags = fcntl(m_fd, F_GETFL);
    if (flags >= 0) (void)fcntl(m_fd, F_SETFL, flags & ~O_NONBLOCK);
    return;
  }
  m_name = w.name;
  m_fd = model::make_temp_at(w.folder.get(), m_name, m_tmp);
  if (m_fd < 0) fail("create a temporary file for");
  m_folder = std::move(w.folder);
  m_slot = studies::register_temp_file_at(m_folder.get(), m_tmp.c_str());
  // The new file gets the old one's permission bits (not its set-user-ID, set-group-ID or sticky
  // bits: the new file is root's), or those the umask gives a new file.
  mode_t mode = 0;
  if (w.node.valid()) {
    mode = w.st.st_mode & 0777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(m_fd, mode);
}

OutputFile::~OutputFile() {
  if (m_fd >= 0) close(m_fd);
  if (!m_committed && !m_tmp.empty()) unlinkat(m_folder.get(), m_tmp.c_str(), 0);
  studies::forget_temp_file(m_slot);
}

void OutputFile::fail(const std::string& what) {
  const std::string why = std::strerror(errno);
  throw std::runtime_error(m_option + ": cannot " + what + " " + m_file + ": " + why);
}

void OutputFile::write_all(const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(m_fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("write");
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

void OutputFile::write(const char* data, std::size_t n) {
  constexpr std::size_t kBlock = 64 * 1024;
  if (m_buffer.size() + n > kBlock) flush();
  if (n >= kBlock) {
    write_all(data, n);
  } else {
    m_buffer.append(data, n);
  }
}

void OutputFile::flush() {
  write_all(m_buffer.data(), m_buffer.size());
  m_buffer.clear();
}

void OutputFile::commit() {
  if (m_committed) return;
  flush();
  if (m_tmp.empty()) {
    m_committed = true;
    return;
  }
  if (fsync(m_fd) != 0 && errno != EINVAL) fail("write");
  if (close(m_fd) != 0) {
    m_fd = -1;
    fail("write");
  }
  m_fd = -1;
  // In the folder walked, whatever its path leads to by now; a link or a hard link put at the
  // name meanwhile is replaced itself, its target untouched.
  if (renameat(m_folder.get(), m_tmp.c_str(), m_folder.get(), m_name.c_str()) != 0) fail("replace");
  m_committed = true;
  studies::forget_temp_file(m_slot);
  m_slot = -1;
}

void write_output(const std::string& option, const std::string& file, const std::string& text) {
  OutputFile f(option, file);
  f.write(text);
  f.commit();
}

}  // namespace qcesim::cli
