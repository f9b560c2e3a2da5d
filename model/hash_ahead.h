// Hash-ahead: SHA compression of buffers the simulation will hash soon, run on a helper
// thread while the single-threaded SystemC kernel simulates the requests before them.
//
// A workload that knows its next messages posts them. A hash core that is about to compress
// bytes asks with its starting state and the bytes themselves (take): a posted job is used
// only if its starting state is the same and its copy is byte-for-byte equal to what the core
// received, so the result is the value the core would compute itself; anything else is a miss
// and the core compresses in line. Every byte is still hashed once per request; only the
// thread that does it changes.
//
// The helper copies the posted bytes and compresses its copy; take() compares that copy with
// the bytes the core received, so a buffer that changed after its post is a miss, never a
// wrong state. The poster should still leave posted bytes alone until they are taken: the
// helper reads them concurrently. Bytes on pages the poster made read-only (ReadOnlyPages,
// alive until the take) cannot change at all: the helper compresses them in place and take()
// needs no compare, which saves the simulation thread reading 2 x len bytes per job, most of
// them from the helper's cache. The helper also pads each result (take_padded), so a message
// that ends on a block boundary costs the core no compression at all.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "model/read_only_pages.h"
#include "model/sha_core.h"

namespace qcesim {

struct HashAheadStats {
  std::uint64_t posted = 0;
  std::uint64_t in_place = 0;  // posts on read-only pages: hashed where they are, not compared
  std::uint64_t hits = 0;      // takes answered by a posted job
  std::uint64_t padded = 0;    // take_padded() calls answered
  std::uint64_t misses = 0;    // takes the caller had to compress itself
};

class HashAhead {
 public:
  HashAhead();
  ~HashAhead();
  HashAhead(const HashAhead&) = delete;
  HashAhead& operator=(const HashAhead&) = delete;

  // Queues the compression of len's whole blocks of data from `from`; the helper sees it at
  // the next publish() (or when a take or drain needs it). When all slots still wait for the
  // helper, waits for the oldest (the helper is behind, not stuck). If `pages` covers the
  // bytes, they are compressed in place and not compared at the take; `pages` must then
  // outlive the take.
  void post(const ShaState& from, const std::uint8_t* data, std::size_t len, const ReadOnlyPages* pages = nullptr);
  // Hands the jobs posted since the last publish to the helper: one store to the line the
  // helper polls per batch instead of one per job.
  void publish();
  // If a posted job started at st over exactly these len bytes (whole blocks), waits for it
  // and advances st to its result; otherwise leaves st alone and returns false.
  bool take(ShaState& st, const std::uint8_t* data, std::size_t len);
  // If st is the result of the job taken last, advances it over the padding of a message
  // that ends there (the helper padded each result too: one block fewer on the caller's
  // thread) and returns true; otherwise leaves st alone.
  bool take_padded(ShaState& st);
  // Waits until the helper has finished every posted job.
  void drain();
  HashAheadStats stats() const { return m_stats; }

 private:
  static constexpr std::size_t kSlots = 16;
  struct Job {
    ShaState from, result;
    ShaState padded;                    // result with a message's padding after it
    const std::uint8_t* src = nullptr;  // the poster's bytes
    std::size_t len = 0;
    std::vector<std::uint8_t> copy;  // the helper's copy of them, the bytes it compressed
    bool in_place = false;           // src is read-only: no copy, no compare
    bool live = false;               // posted and not yet taken or overwritten (main thread only)
  };

  void helper();
  void wait_done(std::uint64_t index);

  std::array<Job, kSlots> m_jobs;
  // The poster's own counters, so that it reads the shared lines only when it must: jobs
  // posted, jobs published (m_posted), and m_done as last read.
  std::uint64_t m_count = 0, m_published = 0, m_done_seen = 0;
  // The job taken last, for take_padded().
  ShaState m_taken_result, m_taken_padded;
  bool m_taken = false;
  // Job i lives in slot i % kSlots. The main thread writes jobs, then publishes them by
  // raising m_posted to m_count; the helper raises m_done after writing each result.
  // Each on its own cache line: the helper polls m_posted while the main thread polls m_done.
  alignas(64) std::atomic<std::uint64_t> m_posted{0};
  alignas(64) std::atomic<std::uint64_t> m_done{0};
  alignas(64) std::atomic<bool> m_sleeping{false};
  std::atomic<bool> m_stop{false};
  std::mutex m_mutex;
  std::condition_variable m_cv;
  HashAheadStats m_stats;
  std::thread m_thread;  // last: starts after the members it uses exist
};

}  // namespace qcesim
