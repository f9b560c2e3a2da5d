// Runs the built qcesim binary as a child process without a shell: arguments passed as they
// are, stdout and stderr captured to files, exit status and peak memory reported. Tests that
// send signals get the child's pid while it runs.
#pragma once

#include <sys/types.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qcesim::test {

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;       // the signal that ended it, if any
  long max_rss_kb = 0;  // peak resident memory (getrusage of the child)
  std::string out, err;
};

// Runs QCESIM_BINARY with args in `dir`. `while_running`, if given, is called with the pid right
// after the start (for signals); the call returns when the process has ended.
ProcessResult run_qcesim(const std::vector<std::string>& args, const std::string& dir,
                         const std::function<void(pid_t)>& while_running = {});

// Where the child's standard output goes when it should fail: a descriptor opened read-only
// (every write fails with EBADF) or a pipe whose reader has gone (EPIPE, SIGPIPE ignored as a
// shell script with `trap '' PIPE` would). Neither touches /dev.
enum class FailingStdout { read_only, broken_pipe };
ProcessResult run_qcesim_failing_stdout(const std::vector<std::string>& args, const std::string& dir,
                                        FailingStdout how);

// A fresh folder under /tmp, removed by the caller with remove_tree (or use TempDir).
std::string make_temp_dir(const char* tag);
// A fresh folder holding the SM8650 profile (sm8650.json) and the seed scenario (seed.json), as a
// user's own copy would: scenarios there resolve their profile beside them.
std::string make_scenario_dir(const char* tag);
// A file of the repository's scenarios/ folder.
std::string scenario_source(const std::string& name);
// The seed scenario in the repository's scenarios/ folder.
inline std::string seed_path() { return scenario_source("sm8650-seed.json"); }
void remove_tree(const std::string& dir);
std::string slurp(const std::string& path);
void write_text(const std::string& path, const std::string& text);
// The names in a folder (no . and ..), sorted.
std::vector<std::string> list_dir(const std::string& dir);
// A command line and more arguments after it.
inline std::vector<std::string> plus_args(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}
// `qcesim run` of one variant of a repository scenario (scenarios/NAME) with `--set` edits, in a
// fresh folder: the variant's JSON result (null when the run failed, which is reported as a
// test failure with its stderr) and what the run printed.
struct VariantRun {
  nlohmann::json variant;
  std::string out, err;
};
VariantRun run_scenario_variant(const std::string& scenario, const std::string& variant,
                                const std::vector<std::string>& sets);
// CPU seconds a run's per-function `profile` charges as kernel function `fn`, in context `ctx`
// (task, hardirq, softirq, kworker) or in all of them.
double function_cpu_s(const nlohmann::json& variant, const std::string& fn, const std::string& ctx = "");

// Processes whose command line contains `needle` (from /proc), other than this one.
std::vector<pid_t> processes_with(const std::string& needle);
// A process's parent (from /proc/PID/stat), or -1 when it is gone.
pid_t parent_of(pid_t pid);

// A fresh folder under /tmp (make_temp_dir) removed when the test's scope ends, an assertion's
// early return included: a suite run leaves nothing behind.
class TempDir {
 public:
  explicit TempDir(const char* tag) : path_(make_temp_dir(tag)) {}
  ~TempDir() { remove_tree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace qcesim::test
