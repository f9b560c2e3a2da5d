#include "studies/processes.h"

#include <malloc.h>
#include <sched.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
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
// and sensitivity do not; the launcher's two below leave theirs holding only a thread cache)
// would otherwise grow a page at a time, an mprotect and a fault per page,
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

namespace {

// What the parent asks of the launcher (with the run's result pipe as SCM_RIGHTS), and what the
// launcher answers once it has reaped that run: its wait status, or the errno of a failed fork.
struct LaunchMsg {
  std::uint64_t index;
};
struct ReapMsg {
  std::uint64_t index;
  std::int32_t status;
  std::int32_t fork_errno;
};
// A LaunchMsg with room for one descriptor, laid out as sendmsg and recvmsg take it.
struct LaunchPacket {
  LaunchMsg body{};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{&body, sizeof body};
  msghdr msg{};
  LaunchPacket() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  LaunchPacket(const LaunchPacket&) = delete;
  LaunchPacket& operator=(const LaunchPacket&) = delete;
};

// In a forked run: fn(index) on a fresh thread, its JSON written to fd. Never returns.
[[noreturn]] void run_and_exit(const std::function<json(std::size_t)>& fn, std::size_t index, int fd) {
  auto run = [&] {
    prefault_arena();
    json j;
    try {
      j = fn(index);
    } catch (const std::exception& e) {
      j = {{"error", e.what()}};
    }
    const std::string s = model::json_output(j);
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t w = write(fd, s.data() + off, s.size() - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    _exit(0);
  };
  // The run goes on a thread of its own: glibc gives a new thread a new malloc arena, so the run
  // allocates from fresh pages instead of the free chunks of the parent's heap, each of which
  // would be a copy-on-write fault (a page copy and a TLB flush) here (validate --samples 200:
  // 81 s -> 58 s on a 2-core VM). The thread ends the process: nothing needs tearing down.
  try {
    std::thread(run).join();
  } catch (...) {  // no thread (a limit, no memory): the run goes here
  }
  try {
    run();
  } catch (...) {
  }
  _exit(1);
}

// The launcher: a process forked from the parent once per fork_each that forks each run when the
// parent asks, and says how each ended. A fork makes every page of the forking process
// copy-on-write again, so a parent that forked each run itself took a fault (a page copy and a
// TLB flush) for every page it then wrote while it read and parsed results: about 70 per run, a
// sixth of validate's CPU time on a 2-core VM. The launcher writes next to nothing between its
// forks (glibc's fork itself aside: below). The runs see the parent's memory as it was when the launcher was forked
// (when fork_each began), not as on_done has changed it since.
[[noreturn]] void launcher_main(int ctl, const std::function<json(std::size_t)>& fn, unsigned jobs) {
  // SIGCHLD inherited as ignored (an exec keeps that) would have the kernel reap the runs itself,
  // with no signal and no status: the default, blocked and read through a signalfd.
  signal(SIGCHLD, SIG_DFL);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  const int sfd = signalfd(-1, &chld, SFD_CLOEXEC);
  if (sfd < 0) _exit(1);
  const pid_t self = getpid();
  // Each run starts a thread (run_and_exit). A process's first thread binds pthread_create (a
  // symbol lookup through every loaded object) and maps a stack, its second binds what sets up a
  // stack taken from glibc's cache of freed ones; both done here, every run inherits the bindings
  // and the cached stack (validate, one IPQ40xx scenario: about 12 % less CPU with the profile's
  // stamp, docs/bench.md). glibc then takes the launcher for multi-threaded for good: each fork
  // locks and unlocks malloc's arenas and stdio's list, a few of libc's pages written per run.
  try {
    for (int i = 0; i < 2; ++i) std::thread([] {}).join();
  } catch (...) {  // no thread now: each run binds its own, as it would anyway
  }
  std::vector<std::pair<pid_t, std::uint64_t>> runs;  // reserved now: no allocation between forks
  runs.reserve(jobs + 1);
  // A report lost would leave the parent waiting for it: on any failure but EINTR the launcher
  // goes, and the parent ends the runs under way as a lost launcher's.
  auto answer = [ctl](const ReapMsg& m) {
    while (send(ctl, &m, sizeof m, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof m))
      if (errno != EINTR) _exit(1);
  };
  bool open = true;
  while (open || !runs.empty()) {
    pollfd fds[2] = {{sfd, POLLIN, 0}, {open ? ctl : -1, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    if (fds[0].revents) {
      signalfd_siginfo info;
      (void)!read(sfd, &info, sizeof info);  // pending SIGCHLDs are one; waitpid finds every run that ended
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        forget_child(pid);
        for (auto it = runs.begin(); it != runs.end(); ++it)
          if (it->first == pid) {
            answer({it->second, status, 0});
            runs.erase(it);
            break;
          }
      }
    }
    if (!open || !fds[1].revents) continue;
    LaunchPacket in;
    int fd = -1;
    const ssize_t r = recvmsg(ctl, &in.msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) _exit(1);  // requests it can no longer read: the parent starts another launcher
    if (r == 0) {         // the parent is done (or gone): finish the runs under way, then go
      open = false;
      continue;
    }
    if (cmsghdr* c = CMSG_FIRSTHDR(&in.msg); c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    if (r != static_cast<ssize_t>(sizeof in.body) || fd < 0) _exit(1);
    const LaunchMsg& m = in.body;
    const pid_t pid = fork();
    if (pid == 0) {
      close(ctl);
      close(sfd);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      become_child(self);
      run_and_exit(fn, static_cast<std::size_t>(m.index), fd);
    }
    const int fork_errno = pid < 0 ? errno : 0;
    close(fd);  // the run holds the only write end now: its exit is the parent's end of file
    if (pid < 0) {
      answer({m.index, 0, fork_errno});
      continue;
    }
    register_child(pid);
    runs.emplace_back(pid, m.index);
  }
  _exit(0);
}

}  // namespace

std::vector<json> fork_each(std::size_t n, unsigned jobs, const std::function<json(std::size_t)>& fn,
                            const std::function<void(std::size_t, const json&)>& on_done) {
  if (jobs == 0) jobs = usable_cores();
  keep_arenas();
  std::vector<json> results(n);
  struct Run {
    std::size_t index;
    int fd;  // the read end of its result pipe; -1 once the run has closed it
    std::string data;
    bool reaped;
    int status;
  };
  std::vector<Run> running;
  int ctl = -1;
  pid_t launcher = -1;
  std::size_t reports = 0;  // from the launcher under way
  int barren = 0;           // launchers lost before they reported a single run
  const auto start_launcher = [&] {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    std::fflush(nullptr);  // no buffered output may be duplicated into the launcher
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      close(sv[0]);
      close(sv[1]);
      throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      become_child(parent);
      close(sv[0]);
      for (const Run& r : running)
        if (r.fd >= 0) close(r.fd);  // only the parent reads the runs
      try {
        launcher_main(sv[1], fn, jobs);
      } catch (...) {  // never back into the parent's code
      }
      _exit(1);
    }
    register_child(pid);
    close(sv[1]);
    ctl = sv[0];
    launcher = pid;
    reports = 0;
  };
  const auto reap_launcher = [&] {
    if (ctl >= 0) close(ctl);
    ctl = -1;
    if (launcher > 0) {
      while (waitpid(launcher, nullptr, 0) < 0 && errno == EINTR) {
      }
      forget_child(launcher);
    }
    launcher = -1;
  };
  // One report from the launcher: a run reaped, or one it could not fork.
  const auto take_report = [&](const ReapMsg& m) {
    ++reports;
    if (m.fork_errno != 0) throw std::runtime_error(std::string("fork: ") + std::strerror(m.fork_errno));
    for (Run& run : running)
      if (run.index == m.index) {
        run.reaped = true;
        run.status = m.status;
      }
  };
  // A launcher lost (killed from outside, or its socket failed): the reports it sent are taken,
  // its runs die with it (PR_SET_PDEATHSIG) and end as runs without a result, and a new launcher
  // starts the rest. It is killed, not waited for: it would wait for its runs, whose pipes nobody
  // would read meanwhile.
  const auto lost_launcher = [&] {
    ReapMsg m{};
    while (ctl >= 0 && recv(ctl, &m, sizeof m, MSG_DONTWAIT) == static_cast<ssize_t>(sizeof m)) take_report(m);
    for (Run& run : running) run.reaped = true;
    if (launcher > 0) kill(launcher, SIGKILL);
    const bool none = reports == 0;
    reap_launcher();
    if (none && ++barren == 3) throw std::runtime_error("the process that starts the simulations ended three times");
  };
  const auto read_launcher = [&] {
    ReapMsg m{};
    const ssize_t r = recv(ctl, &m, sizeof m, 0);
    if (r < 0 && errno == EINTR) return;
    if (r != static_cast<ssize_t>(sizeof m)) return lost_launcher();
    take_report(m);
  };
  // Asks the launcher for run `index`, its result coming back through a new pipe.
  const auto launch = [&](std::size_t index) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    LaunchPacket out;
    out.body.index = index;
    cmsghdr* c = CMSG_FIRSTHDR(&out.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fds[1], sizeof(int));
    ssize_t sent;
    do {
      sent = sendmsg(ctl, &out.msg, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    close(fds[1]);
    if (sent != static_cast<ssize_t>(sizeof out.body)) {
      close(fds[0]);
      lost_launcher();
      return false;
    }
    running.push_back({index, fds[0], {}, false, 0});
    return true;
  };
  const auto finish = [&](std::vector<Run>::iterator it) {
    json j;
    try {
      j = json::parse(it->data);
    } catch (const json::parse_error&) {
      j = {{"error", it->reaped && WIFSIGNALED(it->status)
                         ? fmt::format("the simulation process died (signal {})", WTERMSIG(it->status))
                         : "the simulation process ended without a result"}};
    }
    const std::size_t index = it->index;
    running.erase(it);
    results[index] = std::move(j);
    on_done(index, results[index]);
  };
  std::size_t next = 0;
  std::vector<pollfd> ready;
  try {
    while (next < n || !running.empty()) {
      while (next < n && running.size() < jobs) {
        if (ctl < 0) start_launcher();
        if (launch(next)) ++next;
      }
      // Whatever is ready: a run's output or its end, the launcher's news.
      ready.clear();
      for (const Run& r : running)
        if (r.fd >= 0) ready.push_back({r.fd, POLLIN, 0});
      if (ctl >= 0) ready.push_back({ctl, POLLIN, 0});
      if (!ready.empty() && poll(ready.data(), ready.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      }
      for (const pollfd& p : ready) {
        if (p.revents == 0) continue;
        if (p.fd == ctl) {
          read_launcher();
          continue;
        }
        for (Run& r : running) {
          if (r.fd != p.fd) continue;
          char buf[65536];
          const ssize_t got = read(r.fd, buf, sizeof buf);
          if (got > 0) {
            r.data.append(buf, static_cast<std::size_t>(got));
          } else if (got == 0 || errno != EINTR) {
            close(r.fd);
            r.fd = -1;
          }
        }
      }
      for (auto it = running.begin(); it != running.end();) {
        if (it->fd < 0 && it->reaped) {
          finish(it);
          it = running.begin();
        } else {
          ++it;
        }
      }
    }
  } catch (...) {
    // The runs under way are not waited for: the launcher stops them as it goes (SIGTERM).
    for (const Run& r : running)
      if (r.fd >= 0) close(r.fd);
    if (launcher > 0) kill(launcher, SIGTERM);
    reap_launcher();
    throw;
  }
  reap_launcher();
  return results;
}

}  // namespace qcesim::studies
