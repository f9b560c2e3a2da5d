#include "model/hash_ahead.h"

#include <chrono>
#include <cstring>

namespace qcesim {

namespace {
// The helper polls this long for the next job before it sleeps: jobs come every few
// microseconds during a run, and a futex wake-up per job would cost the main thread more
// than the polling costs the helper's core.
constexpr auto kSpin = std::chrono::microseconds(200);
// A polling loop's pause: lets a sibling hardware thread run and saves power, without a syscall.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace

HashAhead::HashAhead() : m_thread([this] { helper(); }) {}

HashAhead::~HashAhead() {
  {
    std::lock_guard<std::mutex> lk(m_mutex);
    m_stop.store(true);
  }
  m_cv.notify_one();
  m_thread.join();
}

void HashAhead::helper() {
  std::uint64_t next = 0;
  for (;;) {
    if (m_posted.load(std::memory_order_acquire) == next) {
      const auto until = std::chrono::steady_clock::now() + kSpin;
      unsigned spins = 0;
      while (m_posted.load(std::memory_order_acquire) == next && !m_stop.load(std::memory_order_relaxed)) {
        if (++spins % 64 != 0) {
          cpu_relax();
        } else if (std::chrono::steady_clock::now() <= until) {
          // Give the core up now and then: if the poster shares it (more runs than cores), it
          // needs it to post; alone on its core, this returns at once.
          std::this_thread::yield();
        } else {
          // Sleep. The poster reads m_sleeping after raising m_posted, and we read m_posted
          // after raising m_sleeping (both sequentially consistent): one sees the other.
          std::unique_lock<std::mutex> lk(m_mutex);
          m_sleeping.store(true);
          m_cv.wait(lk, [&] { return m_posted.load() != next || m_stop.load(); });
          m_sleeping.store(false);
        }
      }
      if (m_stop.load()) return;
    }
    Job& j = m_jobs[next % kSlots];
    if (!j.in_place) j.copy.assign(j.src, j.src + j.len);
    ShaState s = j.from;
    sha_compress(s, j.in_place ? j.src : j.copy.data(), j.len / kShaBlockBytes);
    j.result = s;
    j.padded = sha_pad(s, nullptr, 0);
    m_done.store(++next, std::memory_order_release);
  }
}

// The helper's progress as last read: most takes find their job done without touching the
// line the helper writes.
void HashAhead::wait_done(std::uint64_t index) {
  if (m_done_seen > index) return;
  if (index >= m_published) publish();  // never wait for a job the helper cannot see
  while ((m_done_seen = m_done.load(std::memory_order_acquire)) <= index) std::this_thread::yield();
}

void HashAhead::publish() {
  if (m_published == m_count) return;
  m_posted.store(m_published = m_count);
  if (m_sleeping.load()) {
    { std::lock_guard<std::mutex> lk(m_mutex); }
    m_cv.notify_one();
  }
}

void HashAhead::drain() {
  publish();
  const std::uint64_t n = m_count;
  if (n) wait_done(n - 1);
}

void HashAhead::post(const ShaState& from, const std::uint8_t* data, std::size_t len, const ReadOnlyPages* pages) {
  len -= len % kShaBlockBytes;
  if (len == 0) return;
  const std::uint64_t i = m_count;
  if (i >= kSlots) wait_done(i - kSlots);  // the slot's previous job must be finished
  Job& j = m_jobs[i % kSlots];
  j.from = from;
  j.src = data;
  j.len = len;
  j.in_place = pages && pages->covers(data, len);
  j.live = true;
  m_count = i + 1;
  ++m_stats.posted;
  if (j.in_place) ++m_stats.in_place;
}

bool HashAhead::take(ShaState& st, const std::uint8_t* data, std::size_t len) {
  const std::uint64_t posted = m_count;
  const std::uint64_t first = posted > kSlots ? posted - kSlots : 0;
  for (std::uint64_t i = first; i < posted; ++i) {
    Job& j = m_jobs[i % kSlots];
    if (!j.live || j.src != data || j.len != len || j.from != st) continue;
    wait_done(i);
    if (!j.in_place && std::memcmp(j.copy.data(), data, len) != 0) continue;  // the bytes changed since
    st = j.result;
    j.live = false;
    m_taken_result = j.result;
    m_taken_padded = j.padded;
    m_taken = true;
    ++m_stats.hits;
    return true;
  }
  ++m_stats.misses;
  return false;
}

bool HashAhead::take_padded(ShaState& st) {
  if (!m_taken || st != m_taken_result) return false;
  st = m_taken_padded;
  m_taken = false;
  ++m_stats.padded;
  return true;
}

}  // namespace qcesim
