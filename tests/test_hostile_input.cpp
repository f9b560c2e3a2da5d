// Hostile and careless input, end to end through the built binary (issue 10): nothing from an
// input reaches gnuplot as code or becomes a path outside the output folder, outputs never
// replace a device, a FIFO or a folder, a stop leaves neither children nor temporary files,
// memory does not grow with what a trace keeps, and every bad value is refused, named, before
// the first simulation. No test writes to /dev.
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "cli/flamegraph.h"
#include "cli/markup.h"
#include "cli/output_file.h"
#include "cli/plot.h"
#include "model/config_error.h"
#include "studies/sweep.h"
#include "tests/emu_helpers.h"
#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    // A private copy of the seed scenario and its profile: its path marks this test's processes.
    dir = test::make_scenario_dir("hostile");
    ASSERT_FALSE(dir.empty());
    seed_file = dir + "/seed.json";
    seed = json::parse(test::slurp(seed_file));
  }
  void TearDown() override { test::remove_tree(dir); }

  void save(const json& j) { test::write_text(seed_file, j.dump(1)); }
  test::ProcessResult qcesim(std::vector<std::string> args, const std::function<void(pid_t)>& during = {}) {
    return test::run_qcesim(args, dir, during);
  }
  // A sweep of four runs, one at a time, whose third (4,000,000 requests, every one simulated) is
  // long enough to kill: the process that forks the runs (the launcher: the parent's child), or
  // that run's own process (the launcher's child).
  test::ProcessResult sweep_killing_the_third_run(bool the_launcher);
  std::string sweep_file() const { return dir + "/s.json"; }
  // A sweep "t" of the seed scenario: the CPU path at two message counts.
  static json two_runs_sweep() {
    return {{"sweep", "t"},
            {"scenario", "seed.json"},
            {"variants", {"sha256-lib"}},
            {"axes", {{{"path", "workload.messages"}, {"values", {5, 6}}}}}};
  }
  // Names in the folder other than the inputs this fixture wrote.
  std::vector<std::string> outputs() {
    std::vector<std::string> names;
    for (const auto& n : test::list_dir(dir))
      if (n != "sm8650.json" && n != "seed.json" && n != ".stdout" && n != ".stderr") names.push_back(n);
    return names;
  }

  std::string dir, seed_file;
  json seed;
};

// Waits until the file holds `text` (the child has started its runs), at most 20 s.
bool wait_for_text(const std::string& file, const std::string& text) {
  for (int i = 0; i < 400; ++i) {
    if (test::slurp(file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool none_left(const std::string& needle) {
  for (int i = 0; i < 60; ++i) {
    if (test::processes_with(needle).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

test::ProcessResult HostileInput::sweep_killing_the_third_run(bool the_launcher) {
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"variants", {"sha256-qce-nolock"}},
             {"set", {{"sim.fast_forward", 0}}},
             {"axes", {{{"path", "workload.messages"}, {"values", {5, 6, 4000000, 7}}}}}};
  const std::string file = sweep_file();
  test::write_text(file, sw.dump());
  return qcesim({"sweep", file, "-j", "1"}, [&](pid_t parent) {
    ASSERT_TRUE(wait_for_text(dir + "/.stderr", "[2/4]"));
    // The third run's process: the one whose parent is neither the test nor qcesim (the second
    // has been reaped once "[2/4]" is out). It may not be forked yet on a loaded machine.
    pid_t run = -1, launcher = -1;
    for (int i = 0; i < 400 && run < 0; ++i) {
      for (pid_t p : test::processes_with(file)) {
        const pid_t up = test::parent_of(p);
        if (p != parent && up > 1 && up != parent) {
          run = p;
          launcher = up;
        }
      }
      if (run < 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_GT(run, 1) << "no run process";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(the_launcher ? launcher : run, SIGKILL);
  });
}

}  // namespace

// ---- 1. Nothing reaches an interpreter -------------------------------------------------------

TEST_F(HostileInput, GnuplotQuotedStringsCarryNoNewlineAndDoubleTheirQuotes) {
  EXPECT_EQ(cli::gnuplot_quoted("a'b\nsystem(\"x\")\r`y`"), "'a''b system(\"x\") `y`'");
}

// A title that would run a shell command if gnuplot read it as code: drawn as text. With a line
// break in it (a new gnuplot command), it is refused when the sweep file is read.
TEST_F(HostileInput, SweepTitlesReachGnuplotAsTextNeverAsCode) {
  const std::string marker = dir + "/pwned";
  const std::string title = "x'; system(\"touch " + marker + "\"); set title '`touch " + marker + "` @x <script>";
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"variants", {"sha256-qce-nolock"}},
             {"set", {{"workload.messages", 5}}},
             {"axes", {{{"path", "workload.message_bytes"}, {"values", {64, 128}}}}},
             {"plot", {{"title", title}}}};
  test::write_text(dir + "/s.json", sw.dump());
  // PNG: drawn by gnuplot, which must take the title as text.
  auto r = qcesim({"sweep", "s.json", "--plot", "t.png"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(test::slurp(dir + "/t.png").substr(1, 3), "PNG");
  // SVG: drawn by qcesim, the title escaped as XML text.
  r = qcesim({"sweep", "s.json", "--plot", "t.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::slurp(dir + "/t.svg");
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("<title>x&#39;; system(&quot;touch " + marker + "&quot;); set title &#39;`touch " + marker +
                     "` @x &lt;script&gt;</title>"),
            std::string::npos)
      << "the title is drawn as text";
  sw["plot"]["title"] = "x'\nsystem(\"touch " + marker + "\")\n";
  test::write_text(dir + "/s.json", sw.dump());
  r = qcesim({"sweep", "s.json", "--plot", "t2.png"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /plot/title: expected a string without control characters"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
}

// Text that would act on a terminal, reorder what it displays or break a document is refused
// where it is read, and shown (never obeyed) where it cannot be: an unknown key's escape in the
// error line, a byte that is not UTF-8 in a file's name.
TEST(TextSafety, WhatAnOutputMayCarryAndHowTheRestIsShown) {
  EXPECT_TRUE(model::printable("plain, µs, × → 日本 \xf0\x9f\x99\x82 and U+00A0 \xc2\xa0"));
  for (const std::string& bad : {std::string("\x1b[2J"), std::string("a\nb"), std::string("\x7f"),
                                 std::string("\xc2\x9b"
                                             "2J"),  // U+009B, a C1 CSI
                                 std::string("\xe2\x80\xae"
                                             "evil"),                           // U+202E, a right-to-left override
                                 std::string("\xe2\x81\xa6"),                   // U+2066, an isolate
                                 std::string("\xef\xbf\xbf"),                   // U+FFFF, not allowed in XML
                                 std::string("\xff\xfe"), std::string("\xc3"),  // not UTF-8
                                 std::string("\xc0\xaf"),                       // an overlong '/'
                                 std::string("\xed\xa0\x80"),                   // a surrogate
                                 std::string("\xf4\x90\x80\x80"),               // above U+10FFFF
                                 std::string("\xef\xb7\x90"),                   // U+FDD0, a noncharacter
                                 std::string("ok\xe2\x82"), std::string("ok\xf0\x9f\x99")})  // cut short at the end
    EXPECT_FALSE(model::printable(bad)) << model::terminal_safe(bad);
  EXPECT_EQ(model::terminal_safe("k\x1b]0;T\x07 \xc2\x9b \xe2\x80\xae \xff\nnext\tµ"),
            "k\\x1b]0;T\\x07 \\u009b \\u202e \\xff\nnext\tµ");
  EXPECT_EQ(model::markup_safe("a\x01"
                               "b\xff"
                               "c\xef\xbf\xbf"
                               "d"),
            "a b\xef\xbf\xbd"
            "c\xef\xbf\xbd"
            "d");
  EXPECT_EQ(cli::xml_text("<\xff\xef\xbf\xbe>"), "&lt;\xef\xbf\xbd\xef\xbf\xbd&gt;");
  EXPECT_EQ(model::utf8_prefix("\xc3\xa9\xc3\xa9", 3), "\xc3\xa9");  // never half an é
  EXPECT_EQ(model::utf8_prefix("abc", 5), "abc");
  EXPECT_EQ(model::markdown_cell("a | b\nc"), "a \\| b c");
  EXPECT_EQ(model::markdown_code("x`y", true), "``x`y``");
  EXPECT_EQ(model::markdown_code("`a|", true), "`` `a\\| ``");
  EXPECT_EQ(model::markdown_code("x=a|b", false), "`x=a|b`");  // outside a table a backslash would show
  EXPECT_EQ(model::markdown_code(" a ", false), "`  a  `");    // CommonMark eats one space of each side
  EXPECT_EQ(model::markdown_code("", true), "");
  // ConfigError's message is safe, its parts keep the input's bytes (code compares them).
  const model::ConfigError e("f.json", "/\x1b[31m", "a key", "\xe2\x80\xae");
  EXPECT_EQ(std::string(e.what()), "f.json: at /\\x1b[31m: expected a key, found \\u202e");
  EXPECT_EQ(e.path, "/\x1b[31m");
}

TEST_F(HostileInput, AnEscapeInAnInputIsShownNeverObeyed) {
  json sc = seed;
  sc["\x1b]0;PWNED\x07\x1b[31mRED"] = 1;
  save(sc);
  auto r = qcesim({"run", "seed.json", "--set", "workload.messages=5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at /\\x1b]0;PWNED\\x07\\x1b[31mRED: expected one of"), std::string::npos) << r.err;
  // A C1 control or a bidirectional override in free text is refused where it is read.
  sc = seed;
  sc["about"] =
      "looks fine \xe2\x80\xae"
      "txt.exe";
  save(sc);
  r = qcesim({"run", "seed.json", "--set", "workload.messages=5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /about: expected a string without control characters"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << r.err;
  // A text value set over a word parameter is checked as a profile's own text is.
  sc = seed;
  sc["overrides"] = {{"iommu.mode", "\x1b[2Jlazy"}};
  save(sc);
  r = qcesim({"run", "seed.json", "--set", "workload.messages=5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /overrides/iommu.mode: expected a word without control characters"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
}

// A sweep's text values are checked as every input text is, and each is set as the text it is:
// "64" for `about` (a text key) was re-read as the number 64 and refused.
TEST_F(HostileInput, SweepTextValuesAreCheckedAndSetAsTheTextTheyAre) {
  json sw = two_runs_sweep();
  sw["axes"] = {{{"path", "about"}, {"values", {"\x1b]0;PWNED\x07", "x"}}}};
  test::write_text(dir + "/s.json", sw.dump());
  auto r = qcesim({"sweep", "s.json", "--out", "o"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /axes/0/values/0: expected a number, boolean or string without control characters"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  // Formulas a spreadsheet would evaluate are written as text in the CSV.
  sw["axes"] = {{{"path", "about"}, {"values", {"64", "=HYPERLINK(\"http://x\",\"y\")", "-2+3", "@SUM(1)"}}}};
  test::write_text(dir + "/s.json", sw.dump());
  r = qcesim({"sweep", "s.json", "--out", "o"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = test::slurp(dir + "/o.csv");
  EXPECT_NE(csv.find("\n0,64,sha256-lib,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",sha256-lib,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,'-2+3,sha256-lib,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n3,'@SUM(1),sha256-lib,"), std::string::npos) << csv;
  EXPECT_EQ(json::parse(test::slurp(dir + "/o.json"))["rows"][0]["values"]["about"], "64");
}

// A text axis drawn by gnuplot: its labels are single-quoted strings in the script (backslashes,
// quotes and a trailing backslash as they are), not double-quoted data, and the chart is drawn.
TEST_F(HostileInput, ATextAxisReachesGnuplotAsQuotedLabels) {
  json sw = two_runs_sweep();
  sw["axes"] = {{{"path", "about"}, {"values", {"C:\\new\\table", "it's", "tail \\", "`touch x`"}}}};
  test::write_text(dir + "/s.json", sw.dump());
  const auto r = qcesim({"sweep", "s.json", "--out", "o", "--plot", "t.png"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::slurp(dir + "/t.png").substr(1, 3), "PNG");
  EXPECT_FALSE(fs::exists(dir + "/x"));
}

// A file's name is the user's and may be any bytes: the results that carry it are still written
// (U+FFFD where it is not UTF-8), not lost once every run is done.
TEST_F(HostileInput, AFileNameThatIsNotUtf8DoesNotLoseTheResults) {
  const std::string odd = dir + "/dir\xff";
  fs::create_directory(odd);
  fs::copy_file(dir + "/seed.json", odd + "/seed.json");
  fs::copy_file(dir + "/sm8650.json", odd + "/sm8650.json");
  test::write_text(odd + "/s.json", two_runs_sweep().dump());
  const auto r = qcesim({"sweep", odd + "/s.json", "--out", "o"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(test::slurp(dir + "/o.json"));
  EXPECT_NE(doc["scenario"].get<std::string>().find("dir\xef\xbf\xbd/seed.json"), std::string::npos) << doc["scenario"];
}

// A flame graph's names are cut at a character's boundary, and bytes that are not UTF-8 in a
// folded file do not make the SVG unreadable.
TEST_F(HostileInput, AFlameGraphStaysUtf8WhateverItsNames) {
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";
  std::string svg = cli::flamegraph_svg("task;" + accents + " 1160\ntask;big 30000\ntask;bad\xff\xfename 100\n",
                                        "x.folded", "t", "ns");
  std::replace(svg.begin(), svg.end(), '\n', ' ');
  EXPECT_EQ(model::markup_safe(svg), svg) << "every byte UTF-8 that XML allows";
  EXPECT_NE(svg.find(">\xc3\xa9..<"), std::string::npos) << "the name cut after a whole character";
  EXPECT_EQ(svg.find("\xef\xbf\xbd..<"), std::string::npos) << "not inside one (its half made U+FFFD)";
}

// ---- 11. Charts people can read --------------------------------------------------------------

// Zipped axes: grouped bars, a bar per variant and point (not a series per point), the paired
// values as labels, axis titles in words with units, the legend in the sweep's variant order.
TEST_F(HostileInput, ZippedAxesDrawGroupedBarsWithPairedLabels) {
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"variants", {"sha256-qce-nolock", "sha256-qce-lock", "sha256-lib"}},
             {"set", {{"workload.messages", 5}}},
             {"combine", "zip"},
             {"axes",
              {{{"path", "cost.arm_smmu_tlb_inv"}, {"values", {250, 500, 1000}}},
               {{"path", "cost.arm_smmu_tlb_sync"}, {"values", {1500, 3000, 6000}}}}},
             {"plot", {{"y", "cpu_us_per_request"}}}};
  test::write_text(dir + "/s.json", sw.dump());
  const auto r = qcesim({"sweep", "s.json", "--plot", "t.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::slurp(dir + "/t.svg");
  // Zipped axes are categories: grouped bars, a bar per variant and point (3 x 3, not 9 series),
  // no line through them.
  std::size_t bars = 0;
  for (std::size_t at = 0; (at = svg.find("</title></rect>", at)) != std::string::npos; ++at) ++bars;
  EXPECT_EQ(bars, 9u);
  EXPECT_EQ(svg.find("<path"), std::string::npos);
  for (const char* tick : {"250 / 1500", "500 / 3000", "1000 / 6000"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // The axis title in words (wrapped over lines, never clipped), the metric with its unit.
  EXPECT_NE(svg.find("Invalidates one page&#39;s SMMU TLB entry in strict mode"), std::string::npos);
  EXPECT_NE(svg.find("Waits until the SMMU has finished the invalidations [ns]"), std::string::npos);
  EXPECT_NE(svg.find("CPU time per request [µs]"), std::string::npos);
  // The legend in the sweep's variant order, each variant its own colour.
  EXPECT_LT(svg.find(">sha256-qce-nolock</text>"), svg.find(">sha256-lib</text>"));
  for (const char* colour : {"#0072B2", "#D55E00", "#009E73"})
    EXPECT_NE(svg.find("fill=\"" + std::string(colour) + "\""), std::string::npos) << colour;
}

// Folded stacks become a flame graph with every name escaped; a bad line is named.
TEST_F(HostileInput, FlamegraphEscapesNamesAndRefusesBadLines) {
  test::write_text(dir + "/p.folded", "task;<script>alert(1)</script> 300\nsoftirq;dma_unmap_sg 700\n");
  auto r = qcesim({"flamegraph", "p.folded", "-o", "f.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::slurp(dir + "/f.svg");
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt; (300 ns, 30.00%)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("softirq (700 ns, 70.00%)"), std::string::npos);
  test::write_text(dir + "/bad.folded", "task;x 12\ntask;y twelve\n");
  r = qcesim({"flamegraph", "bad.folded"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.folded: at line 2: expected \"frame;frame;... count\" with a whole count"),
            std::string::npos)
      << r.err;
}

// ---- 2. Outputs --------------------------------------------------------------------------------

TEST_F(HostileInput, OutputFileDevicesAreWrittenThroughAndNewNamesUnderDevRefused) {
  // Only looked at: classifying /dev/null writes nothing.
  EXPECT_EQ(cli::check_output("--json", "/dev/null"), cli::OutputKind::write_through);
  EXPECT_THROW(cli::check_output("--json", "/dev/qcesim-test-new-file"), model::ConfigError);
  EXPECT_THROW(cli::check_output("--json", "/"), model::ConfigError);
  EXPECT_THROW(cli::check_output("--json", "/no-such-folder/x.json"), model::ConfigError);
}

TEST_F(HostileInput, AFolderAsOutputIsRefusedBeforeTheRunAndLeavesNothing) {
  fs::create_directory(dir + "/out");
  const auto r = qcesim({"run", "seed.json", "--set", "workload.messages=5", "--json", "out"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json: expected a regular file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out: a folder"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[1/3]"), std::string::npos) << "nothing ran: " << r.err;
  EXPECT_EQ(outputs(), std::vector<std::string>{"out"});
  EXPECT_TRUE(test::list_dir(dir + "/out").empty());
}

TEST_F(HostileInput, AFifoIsWrittenThroughAndStaysAFifo) {
  const std::string fifo = dir + "/results.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = test::slurp(fifo); });
  const auto r =
      qcesim({"run", "seed.json", "--set", "workload.messages=5", "--variant", "sha256-lib", "--json", fifo});
  // A run that failed before opening the FIFO leaves the reader blocked in open(): release it, so
  // the test fails on the assertions below instead of hanging.
  if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) ::close(fd);
  reader.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(json::parse(got)["variants"][0]["requests"], 5);
}

TEST_F(HostileInput, ALinkToARegularFileStaysALinkAndItsTargetIsReplaced) {
  test::write_text(dir + "/target.json", "old");
  fs::create_symlink(dir + "/target.json", dir + "/link.json");
  const auto r =
      qcesim({"run", "seed.json", "--set", "workload.messages=5", "--variant", "sha256-lib", "--json", "link.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.json"));
  EXPECT_EQ(json::parse(test::slurp(dir + "/target.json"))["variants"][0]["name"], "sha256-lib");
  EXPECT_EQ(outputs(), (std::vector<std::string>{"link.json", "target.json"}));
}

// A link another user owns is not followed (their results.json -> /etc/shadow would make root's
// run replace /etc/shadow, and a link to a device would write into it): refused before the run,
// the link and its target untouched. One this user (or root) owns is followed, as above.
TEST_F(HostileInput, ALinkAnotherUserOwnsIsRefusedNotFollowed) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a link to another user needs root";
  test::write_text(dir + "/target.json", "old");
  fs::create_symlink(dir + "/target.json", dir + "/planted.json");
  ASSERT_EQ(lchown((dir + "/planted.json").c_str(), 12345, 12345), 0);
  const auto r =
      qcesim({"run", "seed.json", "--set", "workload.messages=5", "--variant", "sha256-lib", "--json", "planted.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("planted.json: a link owned by another user (uid 12345), not followed"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("[1/"), std::string::npos) << "nothing ran: " << r.err;
  EXPECT_EQ(test::slurp(dir + "/target.json"), "old");
  EXPECT_TRUE(fs::is_symlink(dir + "/planted.json"));
  // Nor as a link further down a chain this user started, nor as a folder on the way.
  fs::create_symlink(dir + "/planted.json", dir + "/mine.json");
  EXPECT_THROW(cli::check_output("--json", dir + "/mine.json"), model::ConfigError);
  fs::create_directory(dir + "/real");
  fs::create_symlink(dir + "/real", dir + "/out");
  ASSERT_EQ(lchown((dir + "/out").c_str(), 12345, 12345), 0);
  try {
    (void)cli::check_output("--json", dir + "/out/r.json");
    ADD_FAILURE() << "followed another user's folder link";
  } catch (const model::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a link owned by another user (uid 12345), not followed (at " + dir + "/out)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(test::list_dir(dir + "/real").empty());
}

// The output's folder is walked once and held: swapped for a link (to another folder, as a user
// who can write the parent would swap it) while the simulation runs, the output still lands in
// the folder walked, and the link's target stays as it was. The old code renamed by name, into
// wherever the name led by then.
TEST_F(HostileInput, AFolderSwappedWhileTheRunWritesDoesNotMoveTheOutput) {
  fs::create_directory(dir + "/out");
  fs::create_directory(dir + "/elsewhere");
  cli::OutputFile f("--json", dir + "/out/r.json");
  f.write("{}\n");
  fs::rename(dir + "/out", dir + "/moved");
  fs::create_symlink(dir + "/elsewhere", dir + "/out");
  f.commit();
  EXPECT_EQ(test::slurp(dir + "/moved/r.json"), "{}\n");
  EXPECT_TRUE(test::list_dir(dir + "/elsewhere").empty());
  // Nor does the temporary file of an output never committed go missing elsewhere: it is
  // removed from the folder it was made in.
  {
    cli::OutputFile g("--json", dir + "/moved/s.json");
    g.write("x");
    fs::rename(dir + "/moved", dir + "/moved2");
  }
  EXPECT_EQ(test::list_dir(dir + "/moved2"), std::vector<std::string>{"r.json"});
}

// The walk is the kernel's: `..` after a link is the target's parent, a trailing slash names a
// folder, and a link to nothing is refused rather than followed to make its target.
TEST_F(HostileInput, PathsAreWalkedAsTheKernelWalksThem) {
  fs::create_directories(dir + "/a/b");
  fs::create_symlink(dir + "/a/b", dir + "/l");
  cli::write_output("--json", dir + "/l/../up.json", "1");
  EXPECT_EQ(test::slurp(dir + "/a/up.json"), "1");
  EXPECT_THROW(cli::check_output("--json", dir + "/a/"), model::ConfigError);
  EXPECT_THROW(cli::check_output("--json", dir + "/a/up.json/x"), model::ConfigError);
  // Also when the link's text goes through another link on its way to nothing.
  fs::create_symlink(dir + "/a", dir + "/via");
  fs::create_symlink("via/none.json", dir + "/dangling2.json");
  EXPECT_THROW(cli::check_output("--json", dir + "/dangling2.json"), model::ConfigError);
  // A regular file reached through the kernel's own link (stdout redirected to a file) is written
  // through: appended to, not replaced.
  const std::string redirected = dir + "/redirected.txt";
  test::write_text(redirected, "old\n");
  const int fd = ::open(redirected.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(cli::check_output("--json", "/proc/self/fd/" + std::to_string(fd)), cli::OutputKind::write_through);
  cli::write_output("--json", "/proc/self/fd/" + std::to_string(fd), "new\n");
  ::close(fd);
  EXPECT_EQ(test::slurp(redirected), "old\nnew\n");
  fs::create_symlink(dir + "/a/none.json", dir + "/dangling.json");
  try {
    (void)cli::check_output("--json", dir + "/dangling.json");
    ADD_FAILURE() << "followed a link to nothing";
  } catch (const model::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dangling.json: a link to nothing"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir + "/a/none.json"));
  // A name of 255 bytes, the most a folder takes, can be written (its temporary name is cut).
  const std::string longest = dir + "/" + std::string(250, 'n') + ".json";
  cli::write_output("--json", longest, "{}");
  EXPECT_EQ(test::slurp(longest), "{}");
}

// The kernel's own links are the kernel's to follow: /proc/self/fd/N and /dev/fd/N naming a pipe
// (what /dev/stdout is under `| jq`, and bash's >(cmd)) are written through.
TEST_F(HostileInput, APipeNamedThroughProcIsWrittenThrough) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  for (const std::string& name : {"/proc/self/fd/" + std::to_string(fds[1]), "/dev/fd/" + std::to_string(fds[1])}) {
    EXPECT_EQ(cli::check_output("--json", name), cli::OutputKind::write_through) << name;
    cli::write_output("--json", name, "{}\n");
    char buf[8] = {};
    ASSERT_EQ(::read(fds[0], buf, sizeof buf), 3) << name;
    EXPECT_EQ(std::string(buf, 3), "{}\n");
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

// A FIFO nothing reads is an error when the output is written, not a wait for ever; a replaced
// file keeps its permission bits but not set-user-ID (the new file is root's).
TEST_F(HostileInput, AFifoNobodyReadsFailsAndASetuidFileLosesTheBit) {
  const std::string fifo = dir + "/nobody.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(cli::check_output("--json", fifo), cli::OutputKind::write_through);
  try {
    cli::write_output("--json", fifo, "text");
    ADD_FAILURE() << "wrote into a FIFO nobody reads";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a FIFO that nothing reads"), std::string::npos) << e.what();
  }
  const std::string file = dir + "/setuid.json";
  test::write_text(file, "old");
  ASSERT_EQ(chmod(file.c_str(), 04755), 0);
  cli::write_output("--json", file, "new");
  struct stat st;
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(test::slurp(file), "new");
}

// A sweep run in its own folder, whose default prefix is its name: its results would replace the
// sweep's own file. Refused before any run; the definition stays.
TEST_F(HostileInput, ASweepsOutputIsNeverOneOfItsInputs) {
  const json sw = two_runs_sweep();
  test::write_text(dir + "/t.json", sw.dump());
  const auto r = qcesim({"sweep", "t.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out: expected an output that is none of the files read, found t.json: the input t.json "
                       "itself"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(json::parse(test::slurp(dir + "/t.json")), sw);
  const auto seed_out = qcesim({"sweep", "t.json", "--out", "seed"});
  EXPECT_EQ(seed_out.exit_code, 2);
  EXPECT_NE(seed_out.err.find("the input seed.json itself"), std::string::npos) << seed_out.err;
  const auto ok = qcesim({"sweep", "t.json", "--out", "results"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // run's outputs alike: its scenario, and the profile the scenario names.
  const std::string seed_text = test::slurp(seed_file);
  for (const char* victim : {"seed.json", "sm8650.json"}) {
    const auto run =
        qcesim({"run", "seed.json", "--set", "workload.messages=5", "--variant", "sha256-lib", "--json", victim});
    EXPECT_EQ(run.exit_code, 2) << victim;
    EXPECT_NE(run.err.find(std::string(victim) + " itself"), std::string::npos) << run.err;
  }
  EXPECT_EQ(test::slurp(seed_file), seed_text);
}

TEST_F(HostileInput, AnUncommittedOutputLeavesNoTemporaryFile) {
  {
    cli::OutputFile f("--json", dir + "/a.json");
    f.write("partial");
    EXPECT_EQ(outputs().size(), 1u);  // the temporary file, hidden beside the target
  }
  EXPECT_TRUE(outputs().empty());
  cli::write_output("--json", dir + "/b.json", "whole");
  EXPECT_EQ(outputs(), std::vector<std::string>{"b.json"});
  EXPECT_EQ(test::slurp(dir + "/b.json"), "whole");
}

// ---- 3. Signals and children -------------------------------------------------------------------

// Long enough to be interrupted: 3 variants x 4 million timing-only requests.
std::vector<std::string> long_run(const std::string& scenario, const std::string& extra_file) {
  // --trace: each child streams its timeline into a temporary file from the start.
  return {"run",
          scenario,
          "--timing-only",
          "--set",
          "workload.messages=4000000",
          "--set",
          "sim.fast_forward=0",
          "-j",
          "3",
          "--json",
          extra_file,
          "--profile",
          "p.folded",
          "--trace",
          "t.json"};
}

TEST_F(HostileInput, SigtermToTheParentStopsItsChildrenAndRemovesPartialFiles) {
  const auto r = qcesim(long_run(seed_file, "r.json"), [&](pid_t pid) {
    ASSERT_TRUE(wait_for_text(dir + "/.stderr", "variant(s)"));
    // The children's timelines, being written (at most 20 s for three processes to start).
    auto partial = [&] {
      std::size_t n = 0;
      for (const auto& name : outputs()) n += name.rfind(".t.", 0) == 0 && name.find(".qcesim-") != std::string::npos;
      return n;
    };
    for (int i = 0; i < 400 && partial() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(partial(), 3u);
    kill(pid, SIGTERM);  // the parent alone, as a service manager would
  });
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_TRUE(none_left(seed_file)) << "children still running";
  EXPECT_TRUE(outputs().empty());
}

TEST_F(HostileInput, SigintExits130) {
  const auto r = qcesim(long_run(seed_file, "r.json"), [&](pid_t pid) {
    ASSERT_TRUE(wait_for_text(dir + "/.stderr", "variant(s)"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, SIGINT);
  });
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(none_left(seed_file));
}

// Started with SIGCHLD ignored (a parent that ignores it passes that on through exec), the runs
// still report back: the launcher resets it, or the kernel would reap the runs with no signal and
// no status and the parent would wait for them forever.
TEST_F(HostileInput, RunsReportBackWithSigchldIgnored) {
  const std::string out = dir + "/v.out";
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGCHLD, SIG_IGN);
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int n = open("/dev/null", O_RDWR);
    dup2(n, 0);
    dup2(o, 1);
    dup2(n, 2);
    setpgid(0, 0);
    std::string bin = QCESIM_BINARY;
    std::vector<std::string> args = {"run", "seed.json", "--uncertainty", "3", "--set", "workload.messages=30"};
    std::vector<char*> argv = {bin.data()};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ASSERT_GT(pid, 1);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 1200 && done == 0; ++i) {  // 60 s at most
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (done == 0) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "qcesim with SIGCHLD ignored did not finish in 60 s";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(test::slurp(out).find("sha256-qce-lock"), std::string::npos) << test::slurp(out);
  EXPECT_TRUE(none_left(seed_file));
}

TEST_F(HostileInput, ChildrenDieWhenTheirParentIsKilled) {
  const auto r = qcesim(long_run(seed_file, "r.json"), [&](pid_t pid) {
    ASSERT_TRUE(wait_for_text(dir + "/.stderr", "variant(s)"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_GE(test::processes_with(seed_file).size(), 2u);  // the parent and its children
    kill(pid, SIGKILL);
  });
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_TRUE(none_left(seed_file)) << "orphaned simulations";
}

// The process that forks the runs (the launcher, studies/processes.cpp) killed from outside: the
// run under way ends without a result, and a new launcher starts the rest.
TEST_F(HostileInput, AKilledLauncherFailsOnlyTheRunUnderWay) {
  const auto r = sweep_killing_the_third_run(true);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("[3/4] workload.messages=4000000 sha256-qce-nolock: failed: the simulation process ended "
                       "without a result"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[4/4] workload.messages=7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 run(s) failed"), std::string::npos) << r.err;
  EXPECT_TRUE(none_left(sweep_file())) << "orphaned simulations";
}

TEST_F(HostileInput, AStoppedSweepResumes) {
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"variants", {"sha256-qce-nolock"}},
             {"set", {{"sim.fast_forward", 0}}},  // every request simulated: long enough to stop
             {"axes", {{{"path", "workload.messages"}, {"values", {5, 6, 3000000, 3000001}}}}}};
  const std::string file = dir + "/s.json";
  test::write_text(file, sw.dump());
  auto stop_after = [&](const char* line) {
    return [this, line](pid_t pid) {
      ASSERT_TRUE(wait_for_text(dir + "/.stderr", line));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      kill(pid, SIGTERM);
    };
  };
  const auto r = qcesim({"sweep", file, "-j", "1"}, stop_after("[2/4]"));
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_TRUE(none_left(file));
  EXPECT_EQ(outputs(), (std::vector<std::string>{"s.json", "t.journal.jsonl"}));
  // The same command again takes up where it stopped.
  const auto again = qcesim({"sweep", file, "-j", "1"}, stop_after("2 already done"));
  EXPECT_EQ(again.exit_code, 143) << again.err;
  EXPECT_NE(again.err.find("(4 points x 1 variants = 4 runs, 2 already done)"), std::string::npos) << again.err;
  EXPECT_TRUE(none_left(file));
}

// The journal is opened once and never through a link (its name is the sweep's, in a folder
// others may write): a link there is refused, and a first line that is not this sweep's key is
// refused rather than appended to.
TEST_F(HostileInput, ASweepJournalIsNeverALinkNorSomeoneElsesFile) {
  const json sw = two_runs_sweep();
  test::write_text(dir + "/s.json", sw.dump());
  test::write_text(dir + "/victim", "root:x:0:0\n");
  fs::create_symlink(dir + "/victim", dir + "/out.journal.jsonl");
  const auto linked = qcesim({"sweep", "s.json", "--out", "out"});
  EXPECT_EQ(linked.exit_code, 2) << linked.err;
  EXPECT_NE(linked.err.find("out.journal.jsonl: expected a sweep journal: a regular file of this user's (not a "
                            "link), found a link"),
            std::string::npos)
      << linked.err;
  EXPECT_EQ(test::slurp(dir + "/victim"), "root:x:0:0\n");
  fs::remove(dir + "/out.journal.jsonl");
  test::write_text(dir + "/out.journal.jsonl", "root:x:0:0\n");
  const auto foreign = qcesim({"sweep", "s.json", "--out", "out"});
  EXPECT_EQ(foreign.exit_code, 2) << foreign.err;
  EXPECT_NE(foreign.err.find("the journal of this sweep definition"), std::string::npos) << foreign.err;
  EXPECT_EQ(test::slurp(dir + "/out.journal.jsonl"), "root:x:0:0\n");
  // Another user's file with this sweep's very key is not this user's runs either.
  if (geteuid() != 0) return;
  const std::string key = studies::Sweep::load(dir + "/s.json").key();
  const std::string forged = json{{"key", key}, {"sweep", "t"}}.dump() + "\n";
  test::write_text(dir + "/out.journal.jsonl", forged);
  ASSERT_EQ(chown((dir + "/out.journal.jsonl").c_str(), 12345, 12345), 0);
  const auto owned = qcesim({"sweep", "s.json", "--out", "out"});
  EXPECT_EQ(owned.exit_code, 2) << owned.err;
  EXPECT_NE(owned.err.find("found a file another user owns (uid 12345)"), std::string::npos) << owned.err;
  const auto fresh = qcesim({"sweep", "s.json", "--out", "out", "--fresh"});  // not deleted either
  EXPECT_EQ(fresh.exit_code, 2) << fresh.err;
  EXPECT_EQ(test::slurp(dir + "/out.journal.jsonl"), forged);
}

// A run whose process dies is reported as failed, counted once ("[3/4]", not "[5/4]"), and the
// sweep goes on with the next; it exits 2 and keeps the journal for a retry.
TEST_F(HostileInput, ADeadRunIsCountedOnceAndTheSweepGoesOn) {
  const auto r = sweep_killing_the_third_run(false);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(
      r.err.find("[3/4] workload.messages=4000000 sha256-qce-nolock: failed: the simulation process died (signal 9)"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[4/4] workload.messages=7"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[5/4]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 run(s) failed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/t.journal.jsonl"));
}

// ---- 4. Bounded memory ---------------------------------------------------------------------------

// The whole run traced takes about the memory of a run that keeps ten requests: the trace goes
// to the file as it is made.
TEST_F(HostileInput, ATraceOfEveryRequestIsStreamedNotHeld) {
  auto traced = [&](const std::string& range) {
    return qcesim({"run", "seed.json", "--timing-only", "--variant", "sha256-qce-lock", "--set",
                   "workload.messages=4000", "--trace", "t.json", "--trace-requests", range});
  };
  const auto few = traced("0:10");
  ASSERT_EQ(few.exit_code, 0) << few.err;
  const auto all = traced("0:");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto size = fs::file_size(dir + "/t.json");
  EXPECT_GT(size, 20u << 20);  // every request's spans are in it
  EXPECT_LT(all.max_rss_kb, few.max_rss_kb + 30 * 1024)
      << "kept " << all.max_rss_kb << " kB for a " << size << "-byte trace";
  // Over 100 MB of JSON, read a line at a time (the writer streams one event a line): a DOM of it
  // was most of this test's time, minutes under the sanitizers. The frame must hold the events
  // together as one document, every event line must end as its place requires, and a sample of
  // them must parse on their own (Trace.* parse whole, smaller traces).
  std::ifstream in(dir + "/t.json");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, R"({"traceEvents":[)");
  std::size_t events = 0;
  std::size_t requests = 0;
  std::string previous;
  while (std::getline(in, line) && line.rfind('{', 0) == 0) {
    if (events > 0) {
      EXPECT_EQ(previous.back(), ',') << "event " << events << " not followed by a comma";
    }
    ++events;
    if (line.find(R"("cat":"request")") != std::string::npos && line.find(R"("ph":"X")") != std::string::npos)
      ++requests;
    if (events % 997 == 1) {
      const json e = json::parse(line.back() == ',' ? line.substr(0, line.size() - 1) : line);
      EXPECT_TRUE(e.contains("ph")) << line;
    }
    previous = std::move(line);
  }
  ASSERT_GT(events, 0u);
  EXPECT_EQ(previous.back(), '}') << "the last event ends the array";
  const json frame = json::parse(R"({"traceEvents":[)" + line);  // the closing line, without events
  EXPECT_EQ(frame["otherData"]["generator"], "qcesim");
  EXPECT_FALSE(std::getline(in, line)) << "after the document: " << line;
  EXPECT_EQ(requests, 4000u);
}

TEST_F(HostileInput, SweepSizesAreCheckedFromTheDefinition) {
  json sw = {{"sweep", "t"}, {"scenario", "seed.json"}};
  sw["axes"] = {{{"path", "qce.clock"}, {"range", {{"from", 50}, {"to", 600}, {"step", 0.5}}}},
                {{"path", "cost.readl"}, {"range", {{"from", 0.01}, {"to", 10}, {"step", 0.01}}}},
                {{"path", "workload.messages"}, {"range", {{"from", 1}, {"to", 1000}, {"step", 1}}}}};
  test::write_text(dir + "/s.json", sw.dump());
  auto r = qcesim({"sweep", "s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /axes: expected at most 20000 points"), std::string::npos) << r.err;
  EXPECT_LT(r.max_rss_kb, 200 * 1024);
  // An explicit list is capped as a range is.
  sw["axes"] = {{{"path", "workload.messages"}, {"values", json::array()}}};
  for (int i = 0; i < 10001; ++i) sw["axes"][0]["values"].push_back(i + 1);
  test::write_text(dir + "/s.json", sw.dump());
  r = qcesim({"sweep", "s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /axes/0/values: expected at most 10000 values"), std::string::npos) << r.err;
  // 10000 values exactly is within the cap (it was off by one).
  sw["axes"] = {{{"path", "workload.messages"}, {"range", {{"from", 1}, {"to", 10000}, {"step", 1}}}}};
  sw["variants"] = {"sha256-lib", "sha256-qce-lock", "sha256-qce-nolock"};
  test::write_text(dir + "/s.json", sw.dump());
  r = qcesim({"sweep", "s.json"});
  EXPECT_NE(r.err.find("expected at most 20000 runs (points x variants), found 10000 x 3"), std::string::npos) << r.err;
}

TEST_F(HostileInput, OversizedAndDeeplyNestedFilesAreRefusedUnparsed) {
  test::write_text(dir + "/big.json", "{\"scenario\": \"" + std::string(5u << 20, 'x') + "\"}");
  auto r = qcesim({"run", "big.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("big.json: expected scenario file of at most 4194304 bytes, found 5242896 bytes"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.max_rss_kb, 100 * 1024);
  test::write_text(dir + "/deep.json", std::string(200000, '[') + std::string(200000, ']'));
  r = qcesim({"run", "deep.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("deep.json: expected JSON nested at most 32 deep"), std::string::npos) << r.err;
}

// ---- 5. Everything checked before the first simulation -----------------------------------------

// A sweep's report takes what its file says: an option that would change its runs is refused, not
// dropped (--timing-only was silently ignored).
TEST_F(HostileInput, ASweepsReportRefusesOptionsItsFileDecides) {
  test::write_text(dir + "/s.json", two_runs_sweep().dump());
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--timing-only"}, {"--variant", "sha256-lib"}, {"--uncertainty", "4"}}) {
    std::vector<std::string> args = {"report", "s.json", "-o", "r.html"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = qcesim(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0];
    EXPECT_NE(r.err.find(extra[0] + ": expected a scenario file (not a sweep) with this option"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir + "/r.html"));
  }
}

TEST_F(HostileInput, ABadValueAtALaterSweepPointIsFoundBeforeAnyRun) {
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"set", {{"workload.messages", 5}}},
             {"axes", {{{"path", "workload.message_bytes"}, {"values", {64, 128, 0}}}}}};
  test::write_text(dir + "/s.json", sw.dump());
  const auto r = qcesim({"sweep", "s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.json: at /axes: expected paths and values the scenario accepts, found at point 2 "
                       "(workload.message_bytes=0)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("[1/"), std::string::npos) << r.err;
  EXPECT_EQ(outputs(), std::vector<std::string>{"s.json"});
}

struct Refusal {
  std::vector<std::string> args;
  std::string message;
};

// Each of these exits 2 with this message before anything runs.
TEST_F(HostileInput, BadSetsAndOptionsAreNamedByTheOption) {
  const std::vector<Refusal> cases = {
      {{"--set", "cpu.irq_cpu=9"},
       "--set cpu.irq_cpu=9: at /overrides/cpu.irq_cpu: expected a CPU of cpu.cpus (0..7), found 9"},
      {{"--set", "cpu.cpus=cortex-x4,pentium"},
       "--set cpu.cpus=cortex-x4,pentium: at /overrides/cpu.cpus: expected core types the profile describes "
       "(cpu.<type>.freq, .freq_min, .kernel_ipc and .copy_bandwidth), found \"pentium\", with no cpu.pentium.freq in"},
      {{"--set", "cpu.cpus=cortex-x4,,cortex-x4"},
       "at /overrides/cpu.cpus: expected core types by CPU number, comma separated (each a name of letters, digits, - "
       "and _)"},
      {{"--set", "qce.clock=1e400"}, "--set qce.clock=1e400: expected a number a double can hold, found \"1e400\""},
      {{"--set", "workload.messages.x=1"},
       "--set workload.messages.x=1: expected a path through objects and arrays, found "
       "the number 50000 at /workload/messages"},
      {{"--set", "cpu.task_cpu=1.5"},
       "--set cpu.task_cpu=1.5: at /overrides/cpu.task_cpu: expected a whole number for cpu.task_cpu"},
      {{"--set", "workload..messages=3"}, "expected a path of non-empty keys joined by dots"},
      {{"--variant", "sha256-lib", "--variant", "sha256-lib"}, "--variant: expected each variant named once"},
      {{"--variant", "nope"},
       "--variant: expected a variant named one of sha256-lib, sha256-qce-lock, sha256-qce-nolock"},
  };
  for (const Refusal& c : cases) {
    std::vector<std::string> args = {"run", "seed.json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = qcesim(args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("variant(s)"), std::string::npos) << "ran: " << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(HostileInput, LibraryAndFileErrorsNameTheFile) {
  fs::create_directory(dir + "/folder.json");
  auto r = qcesim({"run", "folder.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("folder.json: expected a readable scenario file, found a folder"), std::string::npos) << r.err;
  json sw = {{"sweep", "t"},
             {"scenario", "seed.json"},
             {"combine", 3},
             {"axes", {{{"path", "qce.clock"}, {"values", {100}}}}}};
  test::write_text(dir + "/s.json", sw.dump());
  r = qcesim({"sweep", "s.json"});
  EXPECT_NE(r.err.find("s.json: at /combine: expected \"product\" or \"zip\", found the number 3"), std::string::npos)
      << r.err;
  // A scenario naming someone else's file as its profile learns nothing of its contents.
  test::write_text(dir + "/secret", "root:SECRET-TOKEN-123:19000::::::\n");
  json s = seed;
  s["profile"] = dir + "/secret";
  save(s);
  r = qcesim({"run", "seed.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("secret: expected valid JSON"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("SECRET"), std::string::npos) << r.err;
  // A profile that is a FIFO or a device would make qcesim wait or read forever: refused.
  ASSERT_EQ(mkfifo((dir + "/profile.fifo").c_str(), 0600), 0);
  s["profile"] = "profile.fifo";
  save(s);
  r = qcesim({"run", "seed.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("profile.fifo: expected a regular file as profile file, found a device, FIFO or socket"),
            std::string::npos)
      << r.err;
  r = qcesim({"hash", "--hmac-key", "ab cd", "seed.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected hex digits, found ' ' at position 2"), std::string::npos) << r.err;
}

TEST_F(HostileInput, NamesThatBecomeFilesOrCellsAreChecked) {
  for (const std::string& bad :
       std::vector<std::string>{"a/b", "", "x\ny", std::string("nul\0x", 5), "..", "-rf", std::string(65, 'v')}) {
    json s = seed;
    s["variants"][0]["name"] = bad;
    save(s);
    const auto r = qcesim({"run", "seed.json"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("at /variants/0/name: expected a "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  // The scenario's own name goes to the terminal and into files: no escape sequence in it.
  json named = seed;
  named["scenario"] = "seed\x1b]0;owned\x07";
  save(named);
  auto rn = qcesim({"run", "seed.json"});
  EXPECT_EQ(rn.exit_code, 2);
  EXPECT_NE(rn.err.find("at /scenario: expected a non-empty string without control characters"), std::string::npos)
      << rn.err;
  EXPECT_EQ(rn.err.find('\x1b'), std::string::npos);
  json sw = {{"sweep", "../../x"}, {"scenario", "seed.json"}, {"axes", {{{"path", "qce.clock"}, {"values", {100}}}}}};
  test::write_text(dir + "/s.json", sw.dump());
  const auto r = qcesim({"sweep", "s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at /sweep: expected a sweep name"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir).parent_path().parent_path() / "x.csv"));
}

// A profile parameter named with '=' would be unreachable by --set NAME=VALUE, and every
// uncertainty sample's set of it would name another parameter: refused when the profile loads.
TEST_F(HostileInput, AParameterNameWithAnEqualsSignIsRefused) {
  json prof = json::parse(test::slurp(dir + "/sm8650.json"));
  prof["parameters"]["evil=1"] = {
      {"value", 5}, {"unit", "ns"}, {"range", {1, 10}}, {"interval", {2, 8}}, {"provenance", "estimate: a test's"}};
  test::write_text(dir + "/sm8650.json", prof.dump(1));
  const auto r = qcesim({"run", "seed.json", "--uncertainty", "3", "--set", "workload.messages=200"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sm8650.json: at /parameters/evil=1: expected a parameter name of"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("without =, found \"evil=1\""), std::string::npos) << r.err;
}

TEST_F(HostileInput, MeasuredValuesAreCheckedByKeyAndValue) {
  json s = seed;
  s["variants"][1]["measured"]["wal_s"] = 1.0;
  save(s);
  auto r = qcesim({"run", "seed.json"});
  EXPECT_NE(r.err.find("at /variants/1/measured/wal_s: expected one of messages, message_bytes, wall_s"),
            std::string::npos)
      << r.err;
  s = seed;
  s["variants"][1]["measured"]["wall_s"] = -1;
  save(s);
  r = qcesim({"run", "seed.json"});
  EXPECT_NE(r.err.find("at /variants/1/measured/wall_s: expected a number of seconds in [0, "), std::string::npos)
      << r.err;
}

TEST_F(HostileInput, CalibrateNeedsAsManyMeasuredNumbersAsParameters) {
  json s = seed;
  for (auto& v : s["variants"]) v.erase("measured");
  save(s);
  auto r = qcesim({"calibrate", "seed.json", "--fit", "qce.clock", "--underdetermined"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("with --underdetermined at least one), found 0 above zero"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("start cost"), std::string::npos) << "evaluated: " << r.err;
  // Two numbers (the CPU variant's wall and CPU time) for three parameters: only when asked for.
  s["variants"][0]["measured"] = seed["variants"][0]["measured"];
  save(s);
  const std::vector<std::string> three = {"calibrate",  "seed.json", "--fit",        "cost.readl,cost.writel,qce.clock",
                                          "--messages", "20",        "--iterations", "0",
                                          "--report",   "fit.md"};
  r = qcesim(three);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at least as many as the 3 fitted parameters"), std::string::npos) << r.err;
  std::vector<std::string> asked = three;
  asked.push_back("--underdetermined");
  r = qcesim(asked);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::slurp(dir + "/fit.md").find("Fitted 3 parameters to 2 measured numbers"), std::string::npos);
  EXPECT_NE(test::slurp(dir + "/fit.md").find("-1 degrees of freedom left"), std::string::npos);
}
