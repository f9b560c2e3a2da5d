#include "studies/sweep_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "model/config_error.h"
#include "studies/shard_files.h"

namespace qcesim::studies {

using nlohmann::json;

std::string sweep_job_id(std::size_t point, const std::string& variant) { return fmt::format("{}/{}", point, variant); }

namespace {

constexpr std::size_t kMaxJournalBytes = 256u << 20;

[[noreturn]] void journal_error(const std::string& file, const std::string& found) {
  throw model::ConfigError(file, "", "a sweep journal: a regular file of this user's (not a link)", found);
}

}  // namespace

SweepJournal::SweepJournal(const std::string& file, const studies::Sweep& s, bool fresh) : m_file(file) {
  const std::string key = s.key();
  // Walked once and held (model::walk_path): the journal's name is the sweep's, in a folder others
  // may write, so neither a link planted at the name nor a folder on the way swapped meanwhile may
  // lead the append (or --fresh's removal) elsewhere. Opened with O_NONBLOCK, so that a FIFO put
  // there cannot stop the open.
  model::WalkedPath w =
      model::walk_path(file, file, "a sweep journal: a regular file of this user's (not a link)", false);
  // --fresh discards only what it would have used: the user's own journal, not a device or
  // another user's file (those are refused as they would be without it).
  auto refuse_node = [&file](const struct stat& st) {
    if (!S_ISREG(st.st_mode)) journal_error(file, "a device, FIFO or socket");
    // Another user's file at the name is not this user's runs, whatever its first line says; nor is
    // a second name of some other file (a hard link: O_NOFOLLOW does not see those).
    if (st.st_uid != geteuid() && st.st_uid != 0)
      journal_error(file,
                    fmt::format("a file another user owns (uid {}): remove it, or name another output", st.st_uid));
    if (st.st_nlink > 1) journal_error(file, fmt::format("a file with {} names (a hard link)", st.st_nlink));
  };
  if (w.name.empty()) journal_error(file, "a folder");
  if (fresh && w.node.valid()) {
    refuse_node(w.st);
    if (unlinkat(w.folder.get(), w.name.c_str(), 0) != 0 && errno != ENOENT) journal_error(file, std::strerror(errno));
  }
  m_folder = std::move(w.folder);
  m_name = w.name;
  m_fd.reset(openat(m_folder.get(), m_name.c_str(),
                    O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666));
  if (!m_fd.valid()) journal_error(file, errno == ELOOP ? std::string("a link") : std::strerror(errno));
  struct stat st;
  if (fstat(m_fd.get(), &st) != 0) journal_error(file, std::strerror(errno));
  refuse_node(st);
  if (st.st_size > 0) {
    if (static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes)
      journal_error(file, fmt::format("{} bytes (at most {})", st.st_size, kMaxJournalBytes));
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t len = 0;
    while (len < text.size()) {
      const ssize_t n = pread(m_fd.get(), &text[len], text.size() - len, static_cast<off_t>(len));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      len += static_cast<std::size_t>(n);
    }
    text.resize(len);
    read(text, key, s);
    if (!text.empty() && text.back() != '\n') append("\n");  // a line cut short ends; the next is whole
  } else {
    append(json{{"key", key}, {"sweep", s.name}}.dump() + "\n");
  }
}

void SweepJournal::append(const std::string& line) {
  const char* p = line.data();
  std::size_t n = line.size();
  while (n > 0) {
    const ssize_t w = ::write(m_fd.get(), p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error("cannot write " + m_file + ": " + std::strerror(errno));
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void SweepJournal::read(const std::string& text, const std::string& key, const studies::Sweep& s) {
  std::istringstream in(text);
  std::string line;
  bool first = true;
  const std::size_t points = s.points().size();
  while (std::getline(in, line)) {
    json j;
    try {
      j = model::parse_input_json(line, m_file);  // nesting bounded, as every input's
    } catch (const model::ConfigError&) {
      j = json();  // cut short by an interruption: that run is redone; a first line, refused below
    }
    if (first) {
      first = false;
      if (!j.is_object() || !j.contains("key") || !j["key"].is_string() || j["key"].get<std::string>() != key)
        throw model::ConfigError(m_file, "/key", "the journal of this sweep definition (" + key + ")",
                                 "one from a different definition or profile, or not a journal: rerun with --fresh "
                                 "to discard it");
      continue;
    }
    // A run's line as qcesim writes it: a point of the sweep, one of its variants, a result that
    // reads back (anything else is redone).
    if (!j.is_object() || !j.contains("point") || !j["point"].is_number_unsigned() || !j.contains("variant") ||
        !j["variant"].is_string() || !j.contains("result"))
      continue;
    const std::string variant = j["variant"];
    if (j["point"].get<std::size_t>() >= points ||
        std::find(s.variants.begin(), s.variants.end(), variant) == s.variants.end() ||
        !run_result_problem(j["result"], false, variant).empty())
      continue;
    m_done[sweep_job_id(j["point"], variant)] = j["result"];
  }
}

void SweepJournal::record(std::size_t point, const std::string& variant, const json& result) {
  m_done[sweep_job_id(point, variant)] = result;
  append(model::json_output(json{{"point", point}, {"variant", variant}, {"result", result}}) + "\n");
}

void SweepJournal::remove() {
  // Only the file this journal wrote: whatever was put at its name meanwhile stays.
  struct stat mine, there;
  if (m_fd.valid() && fstat(m_fd.get(), &mine) == 0 &&
      fstatat(m_folder.get(), m_name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 && mine.st_dev == there.st_dev &&
      mine.st_ino == there.st_ino)
    unlinkat(m_folder.get(), m_name.c_str(), 0);
  m_fd.reset();
}

json sweep_shard_document(const Sweep& s, std::size_t index, std::size_t count,
                          const std::map<std::string, json>& done) {
  json doc = {{"key", s.key()}, {"kind", "sweep"}, {"sweep", s.name},
              {"shard", index}, {"of", count},     {"results", json::object()}};
  for (const auto& [id, result] : done) doc["results"][id] = result;
  return doc;
}

std::map<std::string, json> merge_sweep_shards(const Sweep& s, const std::vector<json>& docs,
                                               const std::vector<std::string>& files) {
  const std::string key = s.key();
  const std::size_t points = s.points().size();
  std::map<std::string, json> done;
  ShardSet shards;
  for (std::size_t f = 0; f < docs.size(); ++f) {
    const std::string& file = files[f];
    const json& doc = docs[f];
    const std::size_t index =
        check_shard_header(doc, file, "key", key, "this sweep definition (same file, --set and profile)", shards);
    const std::size_t count = shards.count;
    for (const auto& [id, result] : doc["results"].items()) {
      // "point/variant", a point of this shard and a variant of the sweep, and a run's results.
      const std::size_t slash = id.find('/');
      std::size_t p = points;
      if (slash != std::string::npos && slash > 0 && id.find_first_not_of("0123456789") == slash) {
        try {
          p = std::stoul(id.substr(0, slash));
        } catch (const std::exception&) {
          p = points;
        }
      }
      const std::string variant = slash == std::string::npos ? "" : id.substr(slash + 1);
      const bool known = std::find(s.variants.begin(), s.variants.end(), variant) != s.variants.end();
      if (p >= points || p % count != index || !known)
        throw model::ConfigError(
            file, "/results",
            fmt::format("runs named point/variant, a point of shard {} and a variant of the sweep", index),
            model::quoted_input(id));
      // A finished run's results as qcesim writes them (a journal holds no failed runs).
      if (const std::string why = run_result_problem(result, false, variant); !why.empty())
        throw model::ConfigError(file, "/results", "the run's results as qcesim writes them",
                                 model::quoted_input(id) + ": " + model::quoted_input(why));
      done[id] = result;
    }
  }
  shards.check_complete();
  return done;
}

}  // namespace qcesim::studies
