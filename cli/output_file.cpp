#include "cli/output_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "studies/stop_signals.h"
#include "model/config_error.h"
#include "spdlog/fmt/fmt.h"

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

// Whether `dir` is on procfs, whose links (/proc/self/fd/1 -> "pipe:[1234]") are the kernel's
// own: their text is no path, and only the kernel can follow them.
bool on_procfs(const fs::path& dir) {
  struct statfs sf;
  return statfs(dir.empty() ? "." : dir.c_str(), &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

// The path a name leads to, walked one component at a time as the kernel walks it, every link
// on the way (a folder's or the file's own) followed only when the user running qcesim or root
// owns it: a link another user planted (results.json -> /etc/shadow, out/ -> /etc, or a link to
// /dev/watchdog) is refused, not followed. Linux's fs.protected_symlinks applies that rule in
// sticky folders when the kernel follows a link; a replace resolves the name itself (it renames
// onto the link's target, so the link stays a link), which the kernel's rule would not see, so
// the rule is applied here, everywhere. A link in /proc (/dev/stdout's /proc/self/fd/1) is left
// to the kernel. Returns `file` itself when no link was on the way.
std::string followed_links(const std::string& option, const std::string& file) {
  std::vector<std::string> todo;  // components still to walk, the next one last
  auto push = [&todo](const fs::path& p) {
    std::vector<std::string> parts;
    for (const auto& c : p.relative_path()) parts.push_back(c.string());
    todo.insert(todo.end(), parts.rbegin(), parts.rend());
  };
  const fs::path start(file);
  fs::path done = start.is_absolute() ? fs::path("/") : fs::path();
  push(start);
  int links = 0;
  while (!todo.empty()) {
    const std::string c = todo.back();
    todo.pop_back();
    if (c.empty() || c == ".") continue;
    if (c == "..") {  // `done` holds no link: its parent is the kernel's parent too
      if (done.empty() || done.filename() == "..")
        done /= "..";
      else if (done != "/")
        done = done.parent_path();
      continue;
    }
    const fs::path next = done / c;
    struct stat lst;
    if (lstat(next.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) {
      done = next;
      continue;
    }
    if (lst.st_uid != geteuid() && lst.st_uid != 0)
      throw model::ConfigError(option, "", kExpected,
                               fmt::format("{}: a link owned by another user (uid {}), not followed{}", file,
                                           lst.st_uid, next.string() == file ? "" : " (at " + next.string() + ")"));
    if (on_procfs(done)) return file;  // the kernel's own link: the kernel follows it
    if (++links > 40) throw model::ConfigError(option, "", kExpected, file + ": a chain of more than 40 links");
    std::error_code ec;
    const fs::path to = fs::read_symlink(next, ec);
    if (ec) return file;
    if (to.is_absolute()) done = "/";
    push(to);
  }
  return links == 0 ? file : done.string();
}

// What the path is, without touching the folder: the refusals that need no write.
OutputKind classify(const std::string& option, const std::string& file) {
  if (file.empty()) throw model::ConfigError(option, "", "a file name", "an empty name");
  (void)followed_links(option, file);  // a link another user owns is refused before anything else
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
  const std::string target = followed_links(option, file);
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
  // The temporary file itself is the probe check_output makes before a run.
  if (classify(option, file) == OutputKind::write_through) {
    // Found first (O_PATH opens nothing) and opened only if it is still a device or FIFO, so a
    // regular file swapped in since classify is not appended to; then opened non-blocking: a
    // FIFO nobody reads is an error (ENXIO), not a wait for ever. Writes then block as usual.
    const int path_fd = open(file.c_str(), O_PATH | O_CLOEXEC);
    if (path_fd < 0) fail("open");
    struct stat st;
    if (fstat(path_fd, &st) != 0 ||
        !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (in_system_tree(file) && S_ISREG(st.st_mode)))) {
      close(path_fd);
      throw std::runtime_error(m_option + ": " + m_file + " is no longer the device or FIFO it was when checked");
    }
    m_fd = model::open_through(path_fd, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (m_fd < 0 && errno == ENXIO)
      throw std::runtime_error(m_option + ": cannot open " + m_file + ": a FIFO that nothing reads");
    if (m_fd < 0) fail("open");
    const int flags = fcntl(m_fd, F_GETFL);
    if (flags >= 0) (void)fcntl(m_fd, F_SETFL, flags & ~O_NONBLOCK);
    return;
  }
  m_target = followed_links(option, file);
  m_fd = make_temp(m_target, m_tmp);
  if (m_fd < 0) fail("create a temporary file for");
  m_slot = studies::register_temp_file(m_tmp.c_str());
  // The new file gets the old one's permissions, or those the umask gives a new file.
  struct stat st;
  mode_t mode = 0;
  if (stat(m_target.c_str(), &st) == 0) {
    mode = st.st_mode & 0777;  // not its set-user-ID, set-group-ID or sticky bits: the new file is root's
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
