// Host memory pages made read-only while the object lives, so that bytes another thread reads
// without synchronisation (hash-ahead) cannot change under it: a store to them, by model code
// through a pointer or by a device through DMI or the bus, faults at once instead of leaving a
// stale result behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qcesim {

class ReadOnlyPages {
 public:
  ReadOnlyPages() = default;
  ~ReadOnlyPages();  // makes every protected page writable again
  ReadOnlyPages(const ReadOnlyPages&) = delete;
  ReadOnlyPages& operator=(const ReadOnlyPages&) = delete;

  static std::size_t page_size();
  // Protects [p, p+len) if it is whole host pages; false (nothing changed) if it is not or
  // the system refuses.
  bool protect(const void* p, std::size_t len);
  // Whether [p, p+len) lies inside one protected range.
  bool covers(const void* p, std::size_t len) const;

 private:
  struct Range {
    std::uintptr_t begin, end;
  };
  std::vector<Range> m_ranges;  // in protection order, touching ones joined: few, so a scan is enough
};

}  // namespace qcesim
