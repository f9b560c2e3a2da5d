// The board kit's archive (a POSIX ustar file, as busybox and GNU tar write it), read in memory
// as hostile input: only regular files and folders are taken; a link, a device, a FIFO, an
// absolute name, a ".." component, a control character in a name, a member above its limit, a
// duplicate, a bad header checksum or a truncated member is refused with a ConfigError naming
// the archive, the member (or the offset), what was expected and what was found. Nothing is
// written anywhere: ingest reads the members from memory.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace qcesim::ingest {

struct TarLimits {
  std::size_t max_member_bytes = 40u << 20;  // a function_graph trace is cut at 32 MiB by the kit
  std::size_t max_members = 4096;
};

// Regular files by their name in the archive ("runs/seed-cpu"); folders are checked and dropped.
using TarMembers = std::map<std::string, std::string>;

// A gzip stream (the kit writes .tar.gz where the board has gzip) inflated, refused past
// `max_bytes` of output (a small file may inflate to gigabytes) or when corrupt.
bool is_gzip(const std::string& bytes);
std::string gunzip(const std::string& bytes, const std::string& file, std::size_t max_bytes);

// `archive` is the file's bytes; `file` names it in errors.
TarMembers read_tar(const std::string& archive, const std::string& file, const TarLimits& limits = {});

}  // namespace qcesim::ingest
