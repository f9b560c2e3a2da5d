// Where an output's name leads, found as the kernel finds it and then held.
//
// qcesim runs as root on names other users can reach: results.json in a shared folder, a sweep's
// journal beside its definition. A name checked and later used by name can lead elsewhere by the
// time it is used (a folder on the way swapped for a link to /etc). So the name is walked once,
// one component at a time with openat(O_PATH | O_NOFOLLOW), each folder held open; every link on
// the way is followed only when the user running qcesim or root owns it (Linux's
// fs.protected_symlinks rule, applied everywhere, since a replace renames onto the link's target
// and the kernel's own check would not see it). The file is then made, replaced or opened
// relative to the folder held (openat, renameat), never by its name again. A link in /proc (the
// /proc/self/fd/1 behind /dev/stdout, whose text "pipe:[1234]" is no path) is the kernel's to
// follow, and is.
#pragma once

#include <sys/stat.h>

#include <string>

namespace qcesim::model {

// An open file descriptor, closed when it goes.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : m_fd(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      m_fd = o.release();
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int m_fd = -1;
};

struct WalkedPath {
  Fd folder;                // the folder the last name is in (O_PATH)
  std::string name;         // the last name, in `folder`
  Fd node;                  // what is there (O_PATH, the node itself); unset for a new name
  struct stat st {};        // the node's, when there is one
  std::string path;         // the path as walked, links replaced by their targets (for messages)
  bool by_kernel = false;   // reached through a link in /proc, which the kernel followed
  bool final_link = false;  // the last name is a link's (with no node: a link to nothing)
};

// Walks `file`. `follow_last` false: a link as the last name is not followed but refused (a
// journal appended to is never reached through one). Errors are ConfigErrors naming `who` (the
// option or file) and `expected`: a link another user owns, a chain of more than 40 links, a
// folder on the way that is missing or not a folder, an empty name.
WalkedPath walk_path(const std::string& who, const std::string& file, const std::string& expected,
                     bool follow_last = true);

// Whether a path lies in a tree the kernel provides (/dev, /proc, /sys): no new name is made there.
bool in_system_tree(const std::string& path);
// Whether an open node is the kernel's own file (procfs, sysfs): written through, never replaced.
bool kernel_file(int fd);

// A new file in `folder` (openat, O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600) named
// "." + `base` (its first 240 bytes) + ".qcesim-" and six random letters; its name in `name`. -1 and errno when it
// cannot be made.
int make_temp_at(int folder, const std::string& base, std::string& name);

}  // namespace qcesim::model
