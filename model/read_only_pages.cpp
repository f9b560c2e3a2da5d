#include "model/read_only_pages.h"

#include <sys/mman.h>
#include <unistd.h>

namespace qcesim {

std::size_t ReadOnlyPages::page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

bool ReadOnlyPages::protect(const void* p, std::size_t len) {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (len == 0 || begin % page_size() || len % page_size()) return false;
  if (mprotect(const_cast<void*>(p), len, PROT_READ) != 0) return false;
  // Buffers allocated one after another touch: one range, so covers() stays a short scan.
  if (!m_ranges.empty() && m_ranges.back().end == begin) {
    m_ranges.back().end = begin + len;
  } else {
    m_ranges.push_back({begin, begin + len});
  }
  return true;
}

bool ReadOnlyPages::covers(const void* p, std::size_t len) const {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  for (const Range& r : m_ranges)
    if (begin >= r.begin && begin + len <= r.end) return true;
  return false;
}

ReadOnlyPages::~ReadOnlyPages() {
  for (const Range& r : m_ranges) mprotect(reinterpret_cast<void*>(r.begin), r.end - r.begin, PROT_READ | PROT_WRITE);
}

}  // namespace qcesim
