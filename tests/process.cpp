#include "tests/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace qcesim::test {

namespace fs = std::filesystem;

namespace {

// Where the child's standard output goes.
enum class Stdout { file, read_only, broken_pipe };

// Runs the binary with args in `dir`, stdout as `how` says (a file the result reads back, a
// descriptor opened read-only on it, or a pipe without a reader with SIGPIPE ignored), stderr to a
// file, stdin from /dev/null, in its own process group.
ProcessResult spawn(const std::vector<std::string>& args, const std::string& dir, Stdout how,
                    const std::function<void(pid_t)>& while_running) {
  // The captured output lives in the test's own temporary folder (tests watch its .stderr while
  // the run goes on); a run in a shared folder (the source tree) gets a folder of its own, so that
  // two tests running at once never read each other's output.
  const bool own = dir.rfind("/tmp/qcesim-", 0) == 0;
  const std::string capture = own ? dir : make_temp_dir("out");
  if (capture.empty()) return {};
  const std::string out = capture + "/.stdout", err = capture + "/.stderr";
  std::vector<std::string> argv_s = {QCESIM_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fd[2] = {-1, -1};
  if (how == Stdout::broken_pipe && pipe(pipe_fd) != 0) {
    if (!own) remove_tree(capture);
    return {};
  }
  if (how == Stdout::read_only) close(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600));
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    int o = -1;
    if (how == Stdout::broken_pipe) {
      close(pipe_fd[0]);  // no reader
      o = pipe_fd[1];
      signal(SIGPIPE, SIG_IGN);  // inherited through exec: writes fail with EPIPE instead of killing
    } else {
      o = how == Stdout::read_only ? open(out.c_str(), O_RDONLY)
                                   : open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int in = open("/dev/null", O_RDONLY);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    setpgid(0, 0);  // its own group: a signal sent to it is not sent to the test
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pipe_fd[0] >= 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
  }
  if (while_running) while_running(pid);
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  ProcessResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.max_rss_kb = ru.ru_maxrss;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  if (!own) remove_tree(capture);
  return r;
}

}  // namespace

ProcessResult run_qcesim(const std::vector<std::string>& args, const std::string& dir,
                         const std::function<void(pid_t)>& while_running) {
  return spawn(args, dir, Stdout::file, while_running);
}

ProcessResult run_qcesim_failing_stdout(const std::vector<std::string>& args, const std::string& dir,
                                        FailingStdout how) {
  return spawn(args, dir, how == FailingStdout::read_only ? Stdout::read_only : Stdout::broken_pipe, {});
}

std::string make_temp_dir(const char* tag) {
  std::string name = std::string("/tmp/qcesim-") + tag + "-XXXXXX";
  if (!mkdtemp(name.data())) return "";
  return name;
}

std::string scenario_source(const std::string& name) { return std::string(QCESIM_SOURCE_DIR) + "/scenarios/" + name; }

std::string make_scenario_dir(const char* tag) {
  const std::string dir = make_temp_dir(tag);
  if (dir.empty()) return dir;
  fs::copy_file(scenario_source("sm8650.json"), dir + "/sm8650.json");
  fs::copy_file(scenario_source("sm8650-seed.json"), dir + "/seed.json");
  return dir;
}

void remove_tree(const std::string& dir) {
  std::error_code ec;
  if (dir.rfind("/tmp/qcesim-", 0) == 0) fs::remove_all(dir, ec);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<pid_t> processes_with(const std::string& needle) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == getpid()) continue;
    std::string cmd = slurp(e.path().string() + "/cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    // A zombie has an empty command line and is already gone for our purposes.
    if (cmd.find(needle) != std::string::npos) pids.push_back(pid);
  }
  return pids;
}

pid_t parent_of(pid_t pid) {
  // The fourth field; the second, the command's name in parentheses, may hold spaces.
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto name_end = stat.rfind(')');
  if (name_end == std::string::npos) return -1;
  std::istringstream rest(stat.substr(name_end + 1));
  std::string state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

VariantRun run_scenario_variant(const std::string& scenario, const std::string& variant,
                                const std::vector<std::string>& sets) {
  const TempDir tmp("variant");
  std::vector<std::string> args = {"run",    scenario_source(scenario), "--variant", variant,
                                   "--json", tmp.path() + "/r.json"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const ProcessResult r = run_qcesim(args, tmp.path());
  VariantRun out;
  out.out = r.out;
  out.err = r.err;
  if (r.exit_code == 0) out.variant = nlohmann::json::parse(slurp(tmp.path() + "/r.json"))["variants"][0];
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

double function_cpu_s(const nlohmann::json& variant, const std::string& fn, const std::string& ctx) {
  double s = 0;
  for (const nlohmann::json& p : variant["profile"])
    if (p["function"] == fn && (ctx.empty() || p["context"] == ctx)) s += p["cpu_s"].get<double>();
  return s;
}

}  // namespace qcesim::test
