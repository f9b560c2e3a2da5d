#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "studies/stop_signals.h"
#include "model/config_error.h"

namespace qcesim::cli {

namespace fs = std::filesystem;

namespace {

// Kernel-provided trees: an existing node there is written through (never replaced), and no
// new file is ever made there.
bool in_system_tree(const std::string& file) {
  std::error_code ec;
  const std::string abs = fs::absolute(file, ec).lexically_normal().string();
  for (const char* top : {"/dev/", "/proc/", "/sys/"})
    if (abs.rfind(top, 0) == 0) return true;
  return false;
}

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

// Creates the temporary file beside `target`: same folder, so that the rename is atomic.
int make_temp(const std::string& target, std::string& tmp) {
  const fs::path p(target);
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string name = (folder / ("." + p.filename().string() + ".qcesim-XXXXXX")).string();
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = mkostemp(buf.data(), O_CLOEXEC);
  if (fd >= 0) tmp.assign(buf.data());
  return fd;
}

// The file a replace lands on: a link to a regular file keeps being a link.
std::string replace_target(const std::string& file) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(file, ec))) {
    const fs::path real = fs::canonical(file, ec);
    if (!ec) return real.string();
  }
  return file;
}

// What the path is, without touching the folder: the refusals that need no write.
OutputKind classify(const std::string& option, const std::string& file) {
  if (file.empty()) throw model::ConfigError(option, "", "a file name", "an empty name");
  struct stat st;
  if (stat(file.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (in_system_tree(file) && S_ISREG(st.st_mode))) {
      if (access(file.c_str(), W_OK) != 0)
        throw model::ConfigError(
            option, "", kExpected,
            file + ": " + what_it_is(st) + " that cannot be written (" + std::strerror(errno) + ")");
      return OutputKind::write_through;
    }
    if (!S_ISREG(st.st_mode)) throw model::ConfigError(option, "", kExpected, file + ": " + what_it_is(st));
  } else {
    struct stat lst;
    if (lstat(file.c_str(), &lst) == 0) throw model::ConfigError(option, "", kExpected, file + ": a link to nothing");
    if (errno != ENOENT) throw model::ConfigError(option, "", kExpected, file + ": " + std::strerror(errno));
    if (in_system_tree(file))
      throw model::ConfigError(option, "", kExpected, file + ": a new name under /dev, /proc or /sys");
  }
  return OutputKind::replace;
}

}  // namespace

OutputKind check_output(const std::string& option, const std::string& file) {
  if (classify(option, file) == OutputKind::write_through) return OutputKind::write_through;
  // A regular file or a new name: the folder must take the temporary file and the rename.
  const std::string target = replace_target(file);
  const fs::path folder = fs::path(target).has_parent_path() ? fs::path(target).parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw model::ConfigError(option, "", kExpected, file + ": no folder " + folder.string());
  std::string probe;
  const int fd = make_temp(target, probe);
  if (fd < 0)
    throw model::ConfigError(option, "", kExpected,
                             file + ": cannot create a file in " + folder.string() + " (" + std::strerror(errno) + ")");
  close(fd);
  unlink(probe.c_str());
  return OutputKind::replace;
}

OutputFile::OutputFile(const std::string& option, const std::string& file) : m_option(option), m_file(file) {
  // The temporary file itself is the probe check_output makes before a run.
  if (classify(option, file) == OutputKind::write_through) {
    m_fd = open(file.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (m_fd < 0) fail("open");
    return;
  }
  m_target = replace_target(file);
  m_fd = make_temp(m_target, m_tmp);
  if (m_fd < 0) fail("create a temporary file for");
  m_slot = studies::register_temp_file(m_tmp.c_str());
  // The new file gets the old one's permissions, or those the umask gives a new file.
  struct stat st;
  mode_t mode = 0;
  if (stat(m_target.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(m_fd, mode);
}

OutputFile::~OutputFile() {
  if (m_fd >= 0) close(m_fd);
  if (!m_committed && !m_tmp.empty()) unlink(m_tmp.c_str());
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
  if (rename(m_tmp.c_str(), m_target.c_str()) != 0) fail("replace");
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
