#include "ingest/tar_reader.h"

#include <spdlog/fmt/fmt.h>

#include <zlib.h>

#include <cstdint>

#include "model/config_error.h"

namespace qcesim::ingest {

using model::ConfigError;

namespace {

constexpr std::size_t kBlock = 512;

// A NUL-terminated (or field-filling) text field of a header.
std::string field(const char* h, std::size_t off, std::size_t len) {
  std::size_t n = 0;
  while (n < len && h[off + n] != '\0') ++n;
  return std::string(h + off, n);
}

// An octal number field ("0000644 \0"); base-256 (GNU's large sizes) is refused: the kit's
// members are far below 8 GiB. Returns false for anything else.
bool octal(const char* h, std::size_t off, std::size_t len, std::uint64_t& out) {
  std::size_t i = 0;
  while (i < len && h[off + i] == ' ') ++i;
  std::uint64_t v = 0;
  std::size_t digits = 0;
  for (; i < len && h[off + i] >= '0' && h[off + i] <= '7'; ++i, ++digits) {
    if (v > (UINT64_MAX >> 3)) return false;
    v = v * 8 + static_cast<std::uint64_t>(h[off + i] - '0');
  }
  for (; i < len; ++i)
    if (h[off + i] != ' ' && h[off + i] != '\0') return false;
  out = v;
  return digits > 0;
}

// A member name the archive may hold: relative, no "..", no empty component, printable ASCII.
bool safe_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name[0] == '/') return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '\\') return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part == ".." || (part.empty() && end != name.size())) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::string& file, std::size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw ConfigError(file, "", "a gzip stream", "no memory to inflate it");
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = z.msg ? z.msg : rc == Z_BUF_ERROR ? "a truncated stream" : "corrupt data";
      inflateEnd(&z);
      throw ConfigError(file, "", "a gzip stream", model::quoted_input(why));
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      throw ConfigError(file, "", fmt::format("an archive of at most {} bytes once inflated", max_bytes), "more");
    }
  }
  inflateEnd(&z);
  return out;
}

TarMembers read_tar(const std::string& archive, const std::string& file, const TarLimits& limits) {
  TarMembers members;
  std::size_t off = 0, count = 0;
  const auto at = [&](std::size_t o) { return fmt::format("byte {}", o); };
  while (true) {
    if (off + kBlock > archive.size())
      throw ConfigError(file, at(off), "a tar header or the end-of-archive blocks", "the end of the file");
    const char* h = archive.data() + off;
    bool zero = true;
    for (std::size_t i = 0; i < kBlock && zero; ++i) zero = h[i] == '\0';
    if (zero) break;  // the end-of-archive marker (a second zero block may follow, or padding)
    // The checksum: the header's bytes summed with its own field read as spaces.
    std::uint64_t sum = 0, want = 0;
    for (std::size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? 32u : static_cast<unsigned char>(h[i]);
    if (!octal(h, 148, 8, want) || want != sum)
      throw ConfigError(file, at(off), "a tar header with a valid checksum",
                        fmt::format("checksum field {} for a sum of {}", model::quoted_input(field(h, 148, 8)), sum));
    std::string name = field(h, 0, 100);
    const std::string magic = field(h, 257, 6);
    if (magic.rfind("ustar", 0) == 0) {
      const std::string prefix = field(h, 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    const std::string where = "member " + model::quoted_input(name);
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    const char type = h[156];
    std::uint64_t size = 0;
    if (!octal(h, 124, 12, size))
      throw ConfigError(file, where, "an octal size", model::quoted_input(field(h, 124, 12)));
    if (++count > limits.max_members)
      throw ConfigError(file, where, fmt::format("at most {} members", limits.max_members), "more");
    const bool folder = type == '5';
    const bool regular = type == '0' || type == '\0' || type == '7';
    if (!folder && !regular) {
      const char* kind = type == '1'                  ? "a hard link"
                         : type == '2'                ? "a symbolic link"
                         : type == '3'                ? "a character device"
                         : type == '4'                ? "a block device"
                         : type == '6'                ? "a FIFO"
                         : type == 'L' || type == 'K' ? "a GNU long-name record"
                         : type == 'x' || type == 'g' ? "a pax extended header"
                                                      : "an unknown member type";
      throw ConfigError(file, where, "a regular file or a folder",
                        fmt::format("{} (type {})", kind, model::quoted_input(std::string(1, type))));
    }
    std::string clean = name;
    if (folder && !clean.empty() && clean.back() == '/') clean.pop_back();
    if (folder && clean.empty()) clean = ".";
    if (clean != "." && !safe_name(clean))
      throw ConfigError(file, where, "a relative name without '..', empty parts or control characters",
                        model::quoted_input(name));
    if (size > limits.max_member_bytes)
      throw ConfigError(file, where, fmt::format("at most {} bytes", limits.max_member_bytes),
                        fmt::format("{} bytes", size));
    const std::size_t data = off + kBlock;
    const std::size_t padded = static_cast<std::size_t>((size + kBlock - 1) / kBlock * kBlock);
    if (data + size > archive.size())
      throw ConfigError(file, where, fmt::format("{} bytes of data", size),
                        fmt::format("{} before the end of the file", archive.size() - data));
    if (regular) {
      if (members.count(clean)) throw ConfigError(file, where, "each name once", "a second member of that name");
      members.emplace(clean, archive.substr(data, static_cast<std::size_t>(size)));
    } else if (size != 0) {
      throw ConfigError(file, where, "a folder of size 0", fmt::format("{} bytes", size));
    }
    off = data + std::min(padded, archive.size() - data);
  }
  return members;
}

}  // namespace qcesim::ingest
