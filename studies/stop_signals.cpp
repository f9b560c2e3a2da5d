#include "studies/stop_signals.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <initializer_list>

namespace qcesim::studies {

namespace {

// Fixed tables: the handler may neither allocate nor take locks. A slot is in use while its
// flag is set; the path is written before the flag and read only after it.
constexpr int kMaxChildren = 256;
constexpr int kMaxTemps = 64;
constexpr std::size_t kPathMax = 4096;

std::atomic<pid_t> g_children[kMaxChildren];
// The flags apart from the paths: a forked run clears the flags (become_child) reading 64 bytes,
// where with each flag beside its 4 KiB path it read 64 pages the parent never touched, a page
// fault each, in every run.
std::atomic<bool> g_temp_used[kMaxTemps];
bool g_temp_dir[kMaxTemps];
int g_temp_at[kMaxTemps];  // the folder the name is in (AT_FDCWD: a path)
char g_temp_path[kMaxTemps][kPathMax];
std::atomic<bool> g_installed{false};

void remove_temps() {
  for (int i = 0; i < kMaxTemps; ++i)
    if (g_temp_used[i].load() && !g_temp_dir[i]) unlinkat(g_temp_at[i], g_temp_path[i], 0);
  for (int i = 0; i < kMaxTemps; ++i)
    if (g_temp_used[i].load() && g_temp_dir[i]) unlinkat(g_temp_at[i], g_temp_path[i], AT_REMOVEDIR);
}

int register_temp(int at, const char* path, bool dir) {
  if (std::strlen(path) >= kPathMax) return -1;
  for (int i = 0; i < kMaxTemps; ++i) {
    if (g_temp_used[i].load()) continue;
    std::strcpy(g_temp_path[i], path);
    g_temp_dir[i] = dir;
    g_temp_at[i] = at;
    g_temp_used[i].store(true);
    return i;
  }
  return -1;
}

void stop_children() {
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) kill(pid, SIGTERM);
  }
  // Reap them so that their own clean-up (temporary files) is done before this process exits.
  const timespec tick{0, 20 * 1000 * 1000};
  for (int waited = 0; waited < 100; ++waited) {
    bool any = false;
    for (auto& c : g_children) {
      const pid_t pid = c.load();
      if (pid <= 0) continue;
      if (waitpid(pid, nullptr, WNOHANG) == 0) {
        any = true;
      } else {
        c.store(0);
      }
    }
    if (!any) return;
    nanosleep(&tick, nullptr);
  }
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
}

extern "C" void on_stop_signal(int sig) {
  stop_children();
  remove_temps();
  _exit(128 + sig);
}

}  // namespace

void install_stop_handlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigfillset(&sa.sa_mask);  // one stop at a time
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void register_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t empty = 0;
    if (c.compare_exchange_strong(empty, pid)) return;
  }
  // More children than slots: the child still dies with this process (PR_SET_PDEATHSIG).
}

void forget_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t expected = pid;
    if (c.compare_exchange_strong(expected, 0)) return;
  }
}

int register_temp_file(const char* path) { return register_temp(AT_FDCWD, path, false); }
int register_temp_file_at(int folder, const char* name) { return register_temp(folder, name, false); }
int register_temp_dir(const char* path) { return register_temp(AT_FDCWD, path, true); }

void forget_temp_file(int slot) {
  if (slot >= 0 && slot < kMaxTemps) g_temp_used[slot].store(false);
}

void become_child(pid_t parent) {
  // Only slots in use are written: a store to each would copy every slot's page (256 KiB) in
  // every forked run.
  for (auto& c : g_children)
    if (c.load() != 0) c.store(0);
  for (auto& used : g_temp_used)
    if (used.load()) used.store(false);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(128 + SIGTERM);  // the parent died before prctl took effect
}

}  // namespace qcesim::studies
