#include "model/path_walk.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "model/config_error.h"
#include "spdlog/fmt/fmt.h"

namespace qcesim::model {

namespace fs = std::filesystem;

void Fd::reset(int fd) {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = fd;
}

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)

// The type of the file system an open file is on (0 when it cannot be told).
long fs_type(int fd) {
  struct statfs sf;
  return fstatfs(fd, &sf) == 0 ? static_cast<long>(sf.f_type) : 0;
}

std::string link_text(int link_fd, const struct stat& st) {
  std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
  for (;;) {
    const ssize_t n = readlinkat(link_fd, "", buf.data(), buf.size());
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < buf.size()) return std::string(buf.data(), static_cast<std::size_t>(n));
    if (buf.size() > 65536) return {};
    buf.resize(buf.size() * 2);  // the link changed since fstat
  }
}

}  // namespace

bool kernel_file(int fd) {
  const long type = fs_type(fd);
  return type == PROC_SUPER_MAGIC || type == SYSFS_MAGIC;
}

bool in_system_tree(const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::absolute(path, ec).lexically_normal().string();
  for (const char* top : {"/dev", "/proc", "/sys"}) {
    const std::size_t n = std::strlen(top);
    if (abs.compare(0, n, top) == 0 && (abs.size() == n || abs[n] == '/')) return true;
  }
  return false;
}

WalkedPath walk_path(const std::string& who, const std::string& file, const std::string& expected, bool follow_last) {
  if (file.empty()) throw ConfigError(who, "", "a file name", "an empty name");
  auto refuse = [&](const std::string& found) {
    throw ConfigError(who, "", expected, who == file ? found : file + ": " + found);
  };
  std::vector<std::string> todo;  // components still to walk, the next one last
  auto push = [&todo](const fs::path& p) {
    std::vector<std::string> parts;
    for (const auto& c : p.relative_path()) parts.push_back(c.string());
    todo.insert(todo.end(), parts.rbegin(), parts.rend());
  };
  auto open_dir = [&](const char* name, int at) {
    Fd fd(openat(at, name, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) refuse(std::strerror(errno));
    return fd;
  };
  const fs::path start(file);
  fs::path done = start.is_absolute() ? fs::path("/") : fs::path();  // holds no link
  Fd cur = open_dir(start.is_absolute() ? "/" : ".", AT_FDCWD);
  push(start);
  WalkedPath w;
  int links = 0;
  bool last_was_link = false;
  while (!todo.empty()) {
    const std::string c = todo.back();
    todo.pop_back();
    const bool last = todo.empty();
    if (c.empty() || c == ".") continue;
    if (c == "..") {  // `done` holds no link: its parent is the kernel's parent too
      cur = open_dir("..", cur.get());
      if (done.empty() || done.filename() == "..")
        done /= "..";
      else if (done != "/")
        done = done.parent_path();
      continue;
    }
    const fs::path next = done / c;
    // A folder on the way is opened as one (O_DIRECTORY), which mounts an automount point there as
    // the kernel's own walk would (an O_PATH open alone does not); a link or a file there fails so
    // and is opened again to be looked at.
    Fd node(openat(cur.get(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY)));
    if (!node.valid() && !last && (errno == ENOTDIR || errno == ELOOP))
      node.reset(openat(cur.get(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!node.valid()) {
      if (errno != ENOENT) refuse(fmt::format("{} ({})", next.string(), std::strerror(errno)));
      if (!last) refuse("no folder " + next.string());
      w.folder = std::move(cur);
      w.name = c;
      w.path = next.string();
      w.final_link = last_was_link;
      return w;
    }
    struct stat st;
    if (fstat(node.get(), &st) != 0) refuse(fmt::format("{} ({})", next.string(), std::strerror(errno)));
    bool by_kernel = false;
    if (S_ISLNK(st.st_mode) && last && !follow_last) refuse("a link");
    if (S_ISLNK(st.st_mode) && fs_type(cur.get()) == PROC_SUPER_MAGIC) {
      // The kernel's own link (/proc/self/fd/1 -> "pipe:[1234]": its text is no path): the kernel
      // follows it, and what it leads to is the node.
      node.reset(openat(cur.get(), c.c_str(), O_PATH | O_CLOEXEC));
      if (!node.valid() || fstat(node.get(), &st) != 0)
        refuse(fmt::format("{} ({})", next.string(), std::strerror(errno)));
      by_kernel = true;
    } else if (S_ISLNK(st.st_mode)) {
      if (st.st_uid != geteuid() && st.st_uid != 0)
        refuse(fmt::format("a link owned by another user (uid {}), not followed{}", st.st_uid,
                           next.string() == file ? "" : " (at " + next.string() + ")"));
      if (++links > kMaxLinks) refuse(fmt::format("a chain of more than {} links", kMaxLinks));
      const std::string to = link_text(node.get(), st);
      if (to.empty()) refuse(next.string() + ": a link that cannot be read");
      if (last) last_was_link = true;  // whatever links its text then goes through
      if (fs::path(to).is_absolute()) {
        cur = open_dir("/", AT_FDCWD);
        done = "/";
      }
      push(to);
      continue;
    }
    if (last) {
      w.folder = std::move(cur);
      w.name = c;
      w.node = std::move(node);
      w.st = st;
      w.path = next.string();
      w.by_kernel = by_kernel;
      return w;
    }
    if (!S_ISDIR(st.st_mode)) refuse(next.string() + ": not a folder");
    cur = std::move(node);
    done = next;
  }
  // The name ends on a folder ("out/", ".", ".."): the folder is the node.
  if (fstat(cur.get(), &w.st) != 0) refuse(std::strerror(errno));
  w.node = std::move(cur);
  w.path = done.empty() ? std::string(".") : done.string();
  return w;
}

int make_temp_at(int folder, const std::string& base, std::string& name) {
  static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  // The temporary name adds 15 bytes to the output's: a name near NAME_MAX (255) keeps only what
  // fits, so that every name the folder takes can be written.
  const std::string stem = base.substr(0, std::min<std::size_t>(base.size(), 255 - 15));
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char r[6];
    if (getrandom(r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) return -1;
    std::string suffix;
    for (unsigned char b : r) suffix += kLetters[b % (sizeof kLetters - 1)];
    std::string candidate = "." + stem + ".qcesim-" + suffix;
    const int fd = openat(folder, candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      name = std::move(candidate);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace qcesim::model
