#include "cli/ingest_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "cli/data_files.h"
#include "cli/output_file.h"
#include "ingest/ingest.h"
#include "model/config_error.h"
#include "studies/scenario.h"

namespace qcesim::cli {

namespace fs = std::filesystem;
using model::ConfigError;

namespace {

// A folder whose entries someone else may rename (writable by others, not sticky, not ours):
// they could swap the folder qcesim writes into for a link while it writes (people run qcesim
// as root).
bool others_may_rename(const struct stat& st) {
  return st.st_uid != geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0;
}

// The output folder: an existing folder (not a link) that is ours and only ours to change, or a
// new one in a parent where nobody else can rename it.
void prepare_folder(const std::string& dir) {
  const std::string parent = fs::path(dir).parent_path().empty() ? "." : fs::path(dir).parent_path().string();
  struct stat pst;
  if (stat(parent.c_str(), &pst) == 0 && others_may_rename(pst))
    throw ConfigError("--out", "", "a folder in a parent others cannot rename entries of",
                      dir + " in " + parent + ", writable by others and not sticky");
  struct stat st;
  if (lstat(dir.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) throw ConfigError("--out", "", "a folder (not a symbolic link)", dir + ", a link");
    if (!S_ISDIR(st.st_mode)) throw ConfigError("--out", "", "a folder", dir + ", which is not one");
    if (st.st_uid != geteuid())
      throw ConfigError("--out", "", "a folder owned by the user running qcesim",
                        fmt::format("{}, owned by uid {} (its owner could swap what qcesim writes)", dir, st.st_uid));
    return;
  }
  if (mkdir(dir.c_str(), 0755) != 0)
    throw ConfigError("--out", "", "a folder it can make", dir + " (" + std::strerror(errno) + ")");
}

// A file ingest writes: new, or a regular file it replaces; never a link, device or FIFO.
void check_target(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (!S_ISREG(st.st_mode))
    throw ConfigError("--out", "", "a regular file or a new name to write", path + ", which is something else");
}

}  // namespace

int run_ingest(const IngestOptions& opt, std::ostream& out, std::ostream& err) {
  const std::string name = opt.name.empty() ? "board" : opt.name;
  const std::string dir = opt.out_dir.empty() ? name : opt.out_dir;
  const std::string profiles = opt.profiles.empty() ? data_dir() : opt.profiles;
  if (profiles.empty())
    throw model::ConfigError("--profiles", "", "a folder of profiles (none ships beside this qcesim binary)",
                             "no folder");
  // Everything is read, checked and made before the first byte is written.
  const ingest::BoardArchive archive = ingest::read_board_archive(opt.archive);
  const ingest::IngestResult res = ingest::ingest_board(archive, name, profiles);
  prepare_folder(dir);
  for (const auto& [file, text] : res.files) check_target((fs::path(dir) / file).string());
  // Written first into a private folder inside the output folder and checked there (each
  // scenario loads as validate and run will load it), then moved in: a failure leaves no file.
  std::string tmpl = (fs::path(dir) / ".ingest-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw ConfigError("--out", "", "a folder it can write in", dir + " (" + std::strerror(errno) + ")");
  const fs::path stage(tmpl);
  try {
    for (const auto& [file, text] : res.files) write_output("--out", (stage / file).string(), text);
    for (const std::string& s : res.scenarios) (void)studies::Scenario::load((stage / s).string());
    for (const auto& [file, text] : res.files) fs::rename(stage / file, fs::path(dir) / file);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(stage, ec);
    throw;
  }
  fs::remove(stage);
  out << res.report;
  err << "qcesim ingest: wrote " << res.files.size() << " files to " << dir << "/ (from "
      << fs::path(res.base_profile).filename().string() << "); next: qcesim validate " << dir << "\n";
  return 0;
}

}  // namespace qcesim::cli
