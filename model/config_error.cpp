#include "model/config_error.h"

#include <filesystem>

#include <spdlog/fmt/fmt.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace qcesim::model {

using nlohmann::json;

std::string quoted_input(const std::string& s) {
  const bool cut = s.size() > 80;
  const std::string head = json(cut ? s.substr(0, 80) : s).dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? head.substr(0, head.size() - 1) + "...\"" : head;
}

std::string describe_json(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return j.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return "the string " + quoted_input(j.get<std::string>());
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return j.empty() ? "an empty array" : "an array of " + std::to_string(j.size());
    default:
      return "the number " + j.dump();
  }
}

namespace {

// File systems whose times come from this machine's clock and move with every write: there a
// stamp may stand for a text. Elsewhere the text always decides: NFS, SMB, 9p, virtiofs and FUSE
// take their times from another clock (or none), /proc and /sys have none that follow the text.
bool local_times(int fd) {
  struct statfs fs;
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // ext2, ext3 and ext4
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

// A regular file's stamp; settled when its times may be trusted and it last changed at least a
// second before now (a change time in the future never settles).
FileStamp stamp_of(const struct stat& st, bool may_settle) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return {static_cast<std::uint64_t>(st.st_dev),
          static_cast<std::uint64_t>(st.st_ino),
          static_cast<std::uint64_t>(st.st_size),
          st.st_mtim.tv_sec,
          st.st_mtim.tv_nsec,
          st.st_ctim.tv_sec,
          st.st_ctim.tv_nsec,
          may_settle && st.st_ctim.tv_sec < now.tv_sec - 1};
}

// The file's text, checked; with `stamp`, also the open file's stamp, and nothing read when
// `known` says the same text.
std::optional<std::string> read_input(const std::string& file, const std::string& what, InputKind kind,
                                      const FileStamp* known, FileStamp* stamp, std::size_t max_bytes) {
  const std::string expected = "a readable " + what;
  // The file checked is the file read, even if its name is swapped for a FIFO in between.
  // (A FIFO named on the command line, InputKind::any, is opened as it is: waiting for its writer.)
  int fd = -1;
  if (kind == InputKind::regular) {
    // Examined before it is opened: opening a device can act (a watchdog arms, a tape rewinds),
    // and an O_PATH descriptor opens nothing. The file is then opened through that descriptor,
    // so the file examined is the file read.
    const int path_fd = open(file.c_str(), O_PATH | O_CLOEXEC);
    if (path_fd >= 0) {
      struct stat st;
      const bool ok = fstat(path_fd, &st) == 0;
      if (ok && S_ISDIR(st.st_mode)) {
        close(path_fd);
        throw ConfigError(file, "", expected, "a folder");
      }
      if (ok && !S_ISREG(st.st_mode)) {
        close(path_fd);
        throw ConfigError(file, "", "a regular file as " + what, "a device, FIFO or socket");
      }
      fd = open_through(path_fd, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
      if (fd < 0 && errno == ENOENT)  // no /proc: opened by name, non-blocking, and examined below
        fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    }
  } else {
    fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  }
  if (fd < 0) {
    const int e = errno;
    struct stat dir;
    if (stat(file.c_str(), &dir) == 0 && S_ISDIR(dir.st_mode)) throw ConfigError(file, "", expected, "a folder");
    throw ConfigError(file, "", expected,
                      std::string(e == ENOENT ? "nothing (" : "a file it cannot open (") + std::strerror(e) + ")");
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) throw ConfigError(file, "", expected, std::string("nothing (") + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw ConfigError(file, "", expected, "a folder");
  if (kind == InputKind::regular && !S_ISREG(st.st_mode))
    throw ConfigError(file, "", "a regular file as " + what, "a device, FIFO or socket");
  const auto too_big = [&](const std::string& size) {
    return ConfigError(file, "", fmt::format("{} of at most {} bytes", what, max_bytes), size);
  };
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw too_big(fmt::format("{} bytes", st.st_size));
  if (stamp) {  // only for a cache: the other reads need neither the file system nor the clock
    *stamp = S_ISREG(st.st_mode) ? stamp_of(st, local_times(fd)) : FileStamp{};
    if (known && stamp->same_text_as(*known)) return std::nullopt;
  }
  // A pipe or a device given on the command line (`qcesim run /dev/stdin`) is read blocking.
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  // Read straight into the string, which grows by a block only when full: a regular file's block
  // is one byte longer than it (at least a page: /proc's files say 0), so its text is one read and
  // its end one more; pipes and devices, which have no size, go in 64 KiB blocks up to one byte
  // more than allowed. No buffer on the stack, whose pages a forked run (validate, sweep) would
  // fault in anew, and no copy of a text the string outgrew.
  const std::size_t block =
      S_ISREG(st.st_mode)
          ? std::max<std::size_t>(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), max_bytes) + 1, 4096)
          : 65536;
  std::string text(block, '\0');
  std::size_t len = 0;
  while (len <= max_bytes) {
    if (len == text.size()) text.resize(len + block);
    const ssize_t n = read(fd, &text[len], text.size() - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConfigError(file, "", expected, "a read error");
    if (n == 0) break;
    len += static_cast<std::size_t>(n);
  }
  if (len > max_bytes) throw too_big("more");
  text.resize(len);
  // A stamp stands for the text only if nothing moved while it was read.
  if (stamp && stamp->settled) {
    struct stat after;
    stamp->settled = fstat(fd, &after) == 0 && len == stamp->size && stamp_of(after, true).same_text_as(*stamp);
  }
  return text;
}

}  // namespace

int open_through(int path_fd, int flags) {
  const int fd = open(fmt::format("/proc/self/fd/{}", path_fd).c_str(), flags);
  const int e = errno;
  close(path_fd);
  errno = e;
  return fd;
}

std::string read_input_file(const std::string& file, const std::string& what, InputKind kind, std::size_t max_bytes) {
  return *read_input(file, what, kind, nullptr, nullptr, max_bytes);
}

std::optional<std::string> read_input_file_unless(const std::string& file, const std::string& what, InputKind kind,
                                                  const FileStamp* known, FileStamp& stamp, std::size_t max_bytes) {
  return read_input(file, what, kind, known, &stamp, max_bytes);
}

json parse_input_json(const std::string& text, const std::string& file) {
  try {
    return json::parse(text, [&](int depth, json::parse_event_t, json&) {
      if (depth > kMaxJsonDepth)
        throw ConfigError(file, "", fmt::format("JSON nested at most {} deep", kMaxJsonDepth), "deeper nesting");
      return true;
    });
  } catch (const json::exception& e) {
    // Where and what, but not the bytes the parser last read: a file named by a shared scenario
    // may be one whose contents have no business in a terminal or a log.
    std::string what = e.what();
    what = what.substr(0, what.find("; last read"));
    throw ConfigError(file, "", "valid JSON", "a syntax error (" + what + ")");
  }
}

json read_json_file(const std::string& file, const std::string& what, InputKind kind) {
  return parse_input_json(read_input_file(file, what, kind), file);
}

JsonObject::JsonObject(const json& j, std::string in_file, std::string at_path, std::vector<std::string> keys)
    : m_j(j), m_file(std::move(in_file)), m_path(std::move(at_path)) {
  const std::string list = join_names(keys);
  if (!j.is_object())
    throw ConfigError(m_file, m_path.empty() ? "/" : m_path, "an object with keys " + list, describe_json(j));
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw ConfigError(m_file, path(k), "one of " + list, quoted_input(k));
  }
  // A free-text note is never read by the model, but it is shown and copied into outputs: it
  // follows the rule for every other text (no control characters), wherever it is allowed.
  if (has("about")) (void)text("about", "");
}

void JsonObject::fail(const std::string& key, const std::string& expected) const {
  throw ConfigError(m_file, path(key), expected, m_j.contains(key) ? describe_json(m_j[key]) : "nothing");
}

std::string JsonObject::text(const char* key) const {
  if (!has(key) || !m_j[key].is_string() || m_j[key].get<std::string>().empty() || !printable(m_j[key]))
    fail(key, "a non-empty string without control characters (printable UTF-8)");
  return m_j[key];
}

std::string JsonObject::name(const char* key, const std::string& what) const {
  const std::string n = text(key);
  if (!valid_name(n)) fail(key, what + " of " + kNameRule);
  return n;
}

std::string JsonObject::text(const char* key, const std::string& dflt) const {
  if (!has(key)) return dflt;
  if (!m_j[key].is_string() || !printable(m_j[key])) fail(key, "a string without control characters (printable UTF-8)");
  return m_j[key];
}

std::string JsonObject::choice(const char* key, const std::string& dflt,
                               const std::vector<std::string>& choices) const {
  if (!has(key)) return dflt;
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + ("\"" + choices[i] + "\"");
  const json& v = m_j[key];
  if (!v.is_string() || std::find(choices.begin(), choices.end(), v.get<std::string>()) == choices.end())
    fail(key, list);
  return v;
}

bool JsonObject::flag(const char* key, bool dflt) const {
  if (!has(key)) return dflt;
  if (!m_j[key].is_boolean()) fail(key, "true or false");
  return m_j[key];
}

double JsonObject::number(const char* key, double dflt, double lo, double hi, const std::string& unit) const {
  if (!has(key)) return dflt;
  const json& v = m_j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    fail(key, fmt::format("a number{} in [{}, {}]", unit.empty() ? "" : " of " + unit, lo, hi));
  return v;
}

std::uint64_t JsonObject::whole(const char* key, std::uint64_t dflt, std::uint64_t lo, std::uint64_t hi) const {
  if (!has(key)) return dflt;
  const json& v = m_j[key];
  const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (!ok || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
    fail(key, fmt::format("a whole number in [{}, {}]", lo, hi));
  return v.get<std::uint64_t>();
}

const json& JsonObject::object(const char* key) const {
  if (!has(key) || !m_j[key].is_object()) fail(key, "an object");
  return m_j[key];
}

const json& JsonObject::array(const char* key, bool non_empty) const {
  if (!has(key) || !m_j[key].is_array() || (non_empty && m_j[key].empty()))
    fail(key, non_empty ? "a non-empty array" : "an array");
  return m_j[key];
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const char* const kNameRule = "1 to 64 letters, digits and . _ + - = (not starting with . or -)";

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || s[0] == '.' || s[0] == '-') return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '+' || c == '-' || c == '=';
    if (!ok) return false;
  }
  return true;
}

}  // namespace qcesim::model

namespace qcesim::model {

std::string folder_of(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return "";
  // /dev/stdin, /dev/fd/N, /proc/self/fd/N redirected from a file: that file's folder.
  const std::string abs = fs::absolute(file, ec).lexically_normal().string();
  if (abs.rfind("/dev/", 0) == 0 || abs.rfind("/proc/", 0) == 0) {
    const fs::path real = fs::canonical(file, ec);
    return ec ? "" : real.parent_path().string();
  }
  return fs::path(file).parent_path().string();
}

std::string in_folder(const std::string& folder, const std::string& name) {
  return folder.empty() ? name : (std::filesystem::path(folder) / name).string();
}

std::string beside(const std::string& file, const std::string& name) { return in_folder(folder_of(file), name); }

}  // namespace qcesim::model
