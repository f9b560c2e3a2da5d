// Bad input: a ConfigError names the file (or the option), the JSON path, what was expected and
// what was found. Input files are read here, refused by size and nesting before they are
// parsed, and every error of the JSON library comes back as a ConfigError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/text_safety.h"

namespace qcesim::model {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& in_file, const std::string& at_path, const std::string& expected_what,
              const std::string& found_what)
      // The message is printed: a key or name from the input in it is shown, never obeyed, by a
      // terminal (terminal_safe). The parts keep the input's bytes.
      : std::runtime_error(terminal_safe(in_file + (at_path.empty() ? "" : ": at " + at_path) + ": expected " +
                                         expected_what + ", found " + found_what)),
        file(in_file),
        path(at_path),
        expected(expected_what),
        found(found_what) {}
  std::string file, path, expected, found;
};

// Input files are small (the SM8650 profile is 25 KB): larger ones are refused unread.
constexpr std::size_t kMaxInputBytes = 4u << 20;
constexpr int kMaxJsonDepth = 32;

// Text from an input, safe to print: quoted, control characters and invalid UTF-8 escaped,
// cut at 80 characters.
std::string quoted_input(const std::string& s);

// What a JSON value is, for the "found" half of a message.
std::string describe_json(const nlohmann::json& j);

// A document as qcesim writes it: text that is not UTF-8 (a file's name from the command line)
// gets U+FFFD where it is not, instead of failing once the runs are done.
inline std::string json_output(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A JSON scalar as a --set value or a label: strings bare, the rest as JSON.
inline std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Reads a JSON file; a missing file, a folder, a file above kMaxInputBytes, nesting deeper than
// kMaxJsonDepth or a syntax error is a ConfigError naming the file. `what` says what the file
// should be ("scenario file").
// What an input file may be: the one named on the command line may be a pipe or a device
// (`qcesim run /dev/stdin`); a file that an input file names (a profile, a sweep's scenario)
// must be a regular file, so that a shared file cannot make qcesim wait on a terminal or a FIFO.
enum class InputKind { any, regular };
// Opens, with `flags`, the file an O_PATH descriptor stands for (through /proc/self/fd: the file
// examined is the file opened, whatever its name leads to by now) and closes that descriptor;
// -1 with errno as the open left it.
int open_through(int path_fd, int flags);

nlohmann::json read_json_file(const std::string& file, const std::string& what, InputKind kind = InputKind::any);
// The two halves: the file's text (size checked), and that text parsed (nesting checked).
std::string read_input_file(const std::string& file, const std::string& what, InputKind kind = InputKind::any,
                            std::size_t max_bytes = kMaxInputBytes);

// What tells a regular file's text apart without reading it: the file (device, inode), its size
// and its modification and change times. A write moves the change time, which no one but the
// clock's owner can set back. A stamp is only trusted (settled) on a local file system, once its
// change time lies a second before it was taken, since file times advance in clock ticks (what git
// calls "racily clean"), and when nothing moved while the text was read.
struct FileStamp {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
  bool settled = false;  // changed at least a second before it was taken
  bool same_text_as(const FileStamp& o) const {
    return settled && o.settled && dev == o.dev && ino == o.ino && size == o.size && mtime_s == o.mtime_s &&
           mtime_ns == o.mtime_ns && ctime_s == o.ctime_s && ctime_ns == o.ctime_ns;
  }
};
// read_input_file for a file a cache holds the parse of: the checks are the same (opened, then
// examined), `stamp` becomes the opened file's, and when `known` says the same text it is not
// read (nullopt).
std::optional<std::string> read_input_file_unless(const std::string& file, const std::string& what, InputKind kind,
                                                  const FileStamp* known, FileStamp& stamp,
                                                  std::size_t max_bytes = kMaxInputBytes);
// Where a file named inside `file` (a scenario's profile, a sweep's scenario) is looked up:
// `name` beside `file` when that is a regular file; from the current folder when `file` is a
// pipe or a device (`qcesim run /dev/stdin`, `<(...)`), which has no folder of its own.
std::string beside(const std::string& file, const std::string& name);
// The two halves of beside: the folder a file's references are looked up in ("" for the current
// folder), decided once when the file is read, and a name in it.
std::string folder_of(const std::string& file);
std::string in_folder(const std::string& folder, const std::string& name);
nlohmann::json parse_input_json(const std::string& text, const std::string& file);

// One JSON object of an input: unknown keys are refused when it is made; each getter checks
// the value's type and range and names file and path when it is wrong.
class JsonObject {
 public:
  JsonObject(const nlohmann::json& j, std::string in_file, std::string at_path, std::vector<std::string> keys);

  bool has(const char* key) const { return m_j.contains(key); }
  const nlohmann::json& at(const char* key) const { return m_j.at(key); }
  std::string path(const std::string& key) const { return m_path + "/" + key; }
  const std::string& file() const { return m_file; }
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;

  std::string text(const char* key) const;  // required, non-empty
  // A required name by valid_name's rule; `what` says what it names ("a variant name").
  std::string name(const char* key, const std::string& what) const;
  std::string text(const char* key, const std::string& dflt) const;
  std::string choice(const char* key, const std::string& dflt, const std::vector<std::string>& choices) const;
  bool flag(const char* key, bool dflt) const;
  double number(const char* key, double dflt, double lo, double hi, const std::string& unit = "") const;
  std::uint64_t whole(const char* key, std::uint64_t dflt, std::uint64_t lo, std::uint64_t hi) const;
  const nlohmann::json& object(const char* key) const;                 // required object
  const nlohmann::json& array(const char* key, bool non_empty) const;  // required array

 private:
  const nlohmann::json& m_j;
  std::string m_file, m_path;
};

// A name that becomes a file name or a table cell (a variant, a sweep): 1 to 64 letters,
// digits and . _ + - =, not starting with . or -.
bool valid_name(const std::string& s);
extern const char* const kNameRule;
// A control character: a line break, a terminal escape, DEL.
inline bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}
// "a, b, c" for a message.
std::string join_names(const std::vector<std::string>& names);

}  // namespace qcesim::model
