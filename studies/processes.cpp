#include "studies/processes.h"

#include <malloc.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>
#include <thread>

#include "studies/stop_signals.h"

// GCC says so with a macro, clang with a feature test.
#if defined(__SANITIZE_ADDRESS__)
#define QCESIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QCESIM_ASAN 1
#endif
#endif

namespace qcesim::studies {

using nlohmann::json;

namespace {
// The cores this process may run on (taskset, cpusets), not all the machine has: a helper
// thread on a core shared with its own simulation only slows it down.
unsigned usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}
// A forked run's first allocations, in one system call instead of a page fault each. Its thread's
// new malloc arena (fresh as long as the parent runs no threads of its own: validate, run, sweep
// and sensitivity do not) would otherwise grow a page at a time, an mprotect and a fault per page,
// and a fault costs microseconds in a VM. Here the arena keeps what it grows (no trim; blocks up to
// 32 MiB come from it, not from mmap) and its first MiB is faulted in at once
// (MADV_POPULATE_WRITE, Linux 5.14; an older kernel refuses it and nothing changes):
// validate --samples 20 on a 2-core VM, 430k page faults -> 260k, 11.8 s -> 10.7 s. One MiB is
// what a run touches; more costs more zeroing than it saves. (SystemC maps each thread's stack
// itself.) Not under AddressSanitizer, whose allocator has no glibc arena to grow.
void prefault_arena() {
#if defined(MADV_POPULATE_WRITE) && !defined(QCESIM_ASAN)
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || static_cast<std::size_t>(page) * 4 > kBytes) return;
  const auto host_page = static_cast<std::uintptr_t>(page);
  void* p = std::malloc(kBytes);
  if (p) {
    const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(p) + host_page - 1) & ~(host_page - 1);
    madvise(reinterpret_cast<void*>(first), kBytes - 2 * host_page, MADV_POPULATE_WRITE);
  }
  std::free(p);
#endif
}
// The malloc settings prefault_arena relies on, made once in the parent and inherited by every
// child: mallopt consolidates the main arena's free chunks as it goes, which in a child is a
// copy-on-write fault for every page of the parent's heap that holds one (a ninth of the page
// faults of run --uncertainty 100 over one IPQ40xx scenario when each child called it).
void keep_arenas() {
#if defined(MADV_POPULATE_WRITE) && !defined(QCESIM_ASAN)
  static const bool once = [] {
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    return true;
  }();
  (void)once;
#endif
}
}  // namespace

bool spare_core_per_run(std::size_t n, unsigned jobs) {
  const unsigned cores = usable_cores();
  const std::size_t at_once = std::min<std::size_t>(n, jobs == 0 ? cores : jobs);
  return cores >= 2 * at_once;
}

std::vector<json> fork_each(std::size_t n, unsigned jobs, const std::function<json(std::size_t)>& fn,
                            const std::function<void(std::size_t, const json&)>& on_done) {
  if (jobs == 0) jobs = usable_cores();
  keep_arenas();
  std::vector<json> results(n);
  struct Child {
    pid_t pid;
    int fd;
    std::size_t index;
    std::string data;
  };
  std::vector<Child> running;
  std::size_t next = 0;
  auto reap_one = [&] {
    // Read whichever child has output, until it closes its pipe.
    fd_set set;
    FD_ZERO(&set);
    int maxfd = -1;
    for (const Child& c : running) {
      FD_SET(c.fd, &set);
      maxfd = std::max(maxfd, c.fd);
    }
    if (select(maxfd + 1, &set, nullptr, nullptr, nullptr) < 0) {
      if (errno == EINTR) return;
      throw std::runtime_error(std::string("select: ") + std::strerror(errno));
    }
    for (auto it = running.begin(); it != running.end(); ++it) {
      if (!FD_ISSET(it->fd, &set)) continue;
      char buf[65536];
      const ssize_t r = read(it->fd, buf, sizeof buf);
      if (r > 0) {
        it->data.append(buf, static_cast<std::size_t>(r));
        return;
      }
      close(it->fd);
      int status = 0;
      waitpid(it->pid, &status, 0);
      forget_child(it->pid);
      json j;
      try {
        j = json::parse(it->data);
      } catch (const json::parse_error&) {
        j = {{"error", WIFSIGNALED(status) ? fmt::format("the simulation process died (signal {})", WTERMSIG(status))
                                           : "the simulation process ended without a result"}};
      }
      results[it->index] = j;
      on_done(it->index, j);
      running.erase(it);
      return;
    }
  };
  while (next < n || !running.empty()) {
    while (next < n && running.size() < jobs) {
      int fds[2];
      if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
      std::fflush(nullptr);  // no buffered output may be duplicated into the child
      const pid_t parent = getpid();
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        become_child(parent);
        for (const Child& c : running) close(c.fd);  // only the parent reads its siblings
        close(fds[0]);
        auto run_and_exit = [&] {
          prefault_arena();
          json j;
          try {
            j = fn(next);
          } catch (const std::exception& e) {
            j = {{"error", e.what()}};
          }
          const std::string s = j.dump();
          std::size_t off = 0;
          while (off < s.size()) {
            const ssize_t w = write(fds[1], s.data() + off, s.size() - off);
            if (w <= 0) break;
            off += static_cast<std::size_t>(w);
          }
          _exit(0);
        };
        // The run goes on a thread of its own: glibc gives a new thread a new malloc arena, so
        // the run allocates from fresh pages instead of the free chunks of the parent's heap,
        // each of which would be a copy-on-write fault (a page copy and a TLB flush) here
        // (validate --samples 200: 81 s -> 58 s on a 2-core VM). The thread ends the process:
        // nothing needs tearing down.
        try {
          std::thread(run_and_exit).join();
        } catch (...) {  // no thread (a limit, no memory): the run goes here
        }
        try {
          run_and_exit();
        } catch (...) {
        }
        _exit(1);  // never back into the parent's loop
      }
      register_child(pid);
      close(fds[1]);
      running.push_back({pid, fds[0], next, {}});
      ++next;
    }
    reap_one();
  }
  return results;
}

}  // namespace qcesim::studies
