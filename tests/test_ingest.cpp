// qcesim ingest (issue 25): the kit's archive read as hostile input, the device tree through
// libfdt, the ftrace tables, and the profile and scenarios made from a board. The inputs are
// tests/data/board/ (made by fuzz/make_board_seeds.py: SM8650 wiring from sm8650.dtsi, P1's
// published numbers dressed as afalg-bench reports) and archives built here byte by byte.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "model/counter_rng.h"
#include "cpu/core_type.h"
#include "ingest/board_archive.h"
#include "ingest/ingest.h"
#include "model/config_error.h"
#include "soc/device_tree.h"
#include "studies/calibrate.h"
#include "studies/scenario.h"
#include "tests/process.h"

namespace qcesim {
namespace {

namespace fs = std::filesystem;
using ingest::read_tar;
using model::ConfigError;

std::string data(const std::string& name) { return std::string(QCESIM_SOURCE_DIR) + "/tests/data/board/" + name; }

std::string slurp(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One ustar member: a header with a correct checksum, then the data padded to 512 bytes.
std::string member(const std::string& name, const std::string& bytes, char type = '0', const std::string& link = "") {
  std::string h(512, '\0');
  std::memcpy(&h[0], name.data(), std::min<std::size_t>(name.size(), 100));
  std::snprintf(&h[100], 8, "%07o", 0644);
  std::snprintf(&h[108], 8, "%07o", 0);
  std::snprintf(&h[116], 8, "%07o", 0);
  std::snprintf(&h[124], 12, "%011lo", static_cast<unsigned long>(bytes.size()));
  std::snprintf(&h[136], 12, "%011o", 0);
  h[156] = type;
  std::memcpy(&h[157], link.data(), std::min<std::size_t>(link.size(), 100));
  std::memcpy(&h[257],
              "ustar\0"
              "00",
              8);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  std::snprintf(&h[148], 8, "%06o", sum);
  std::string out = h + bytes;
  out.resize((out.size() + 511) / 512 * 512, '\0');
  return out;
}
std::string end_blocks() { return std::string(1024, '\0'); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Ingest, TarReaderTakesRegularFilesAndFolders) {
  const std::string t = member("runs/", "", '5') + member("./runs/seed-cpu", "qcesim-afalg 1\n") + end_blocks();
  const ingest::TarMembers m = read_tar(t, "a.tar");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.at("runs/seed-cpu"), "qcesim-afalg 1\n");
}

TEST(Ingest, TarReaderRefusesLinksDevicesFifosAndNamesThatEscape) {
  for (const auto& [type, kind] : std::vector<std::pair<char, std::string>>{{'1', "a hard link"},
                                                                            {'2', "a symbolic link"},
                                                                            {'3', "a character device"},
                                                                            {'4', "a block device"},
                                                                            {'6', "a FIFO"},
                                                                            {'x', "a pax extended header"}}) {
    const std::string e =
        error_of([&, type = type] { read_tar(member("system/fdt", "", type, "/dev/sda") + end_blocks(), "a.tar"); });
    EXPECT_NE(e.find("a.tar: at member \"system/fdt\": expected a regular file or a folder, found " + kind),
              std::string::npos)
        << e;
  }
  for (const std::string name : {"/etc/passwd", "../escape", "runs/../../x", "runs//x", "a\x1b[31m"}) {
    const std::string e = error_of([&] { read_tar(member(name, "x") + end_blocks(), "a.tar"); });
    EXPECT_NE(e.find("expected a relative name without '..', empty parts or control characters"), std::string::npos)
        << name << ": " << e;
  }
}

TEST(Ingest, TarReaderRefusesBadChecksumsTruncationHugeMembersAndDuplicates) {
  std::string bad = member("manifest.txt", "x") + end_blocks();
  bad[0] = 'M';  // the checksum no longer matches
  EXPECT_NE(error_of([&] { read_tar(bad, "a.tar"); }).find("a tar header with a valid checksum"), std::string::npos);
  const std::string full = member("manifest.txt", std::string(2000, 'x'));
  EXPECT_NE(error_of([&] { read_tar(full.substr(0, 1024), "a.tar"); }).find("expected 2000 bytes of data, found 512"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_tar(full, "a.tar"); }).find("the end-of-archive blocks"), std::string::npos);
  ingest::TarLimits small;
  small.max_member_bytes = 1000;
  EXPECT_NE(error_of([&] { read_tar(full + end_blocks(), "a.tar", small); }).find("at most 1000 bytes, found 2000"),
            std::string::npos);
  const std::string twice = member("manifest.txt", "a") + member("./manifest.txt", "b") + end_blocks();
  EXPECT_NE(error_of([&] { read_tar(twice, "a.tar"); }).find("each name once"), std::string::npos);
}

TEST(Ingest, DeviceTreeGivesTheEnginesWiring) {
  const ingest::FdtFacts f = ingest::read_fdt(slurp(data("sm8650-like.dtb")), "t.tar", "system/fdt");
  const soc::DeviceTree& dt = soc::device_tree("sm8650");
  ASSERT_EQ(f.crypto.size(), 1u);
  const ingest::FdtCrypto& c = f.crypto[0];
  EXPECT_EQ(c.path, "/soc@0/crypto@1dfa000");
  EXPECT_EQ(c.base, dt.qce_base);
  EXPECT_EQ(c.size, dt.qce_size);
  EXPECT_EQ(c.bam_base, dt.bam_base);
  EXPECT_EQ(c.bam_size, dt.bam_size);
  EXPECT_TRUE(c.has_ee);
  EXPECT_EQ(c.bam_ee, dt.bam_ee);
  EXPECT_EQ(c.rx_pipe, dt.rx_pipe);
  EXPECT_EQ(c.tx_pipe, dt.tx_pipe);
  EXPECT_EQ(c.bam_spi, dt.bam_spi);
  EXPECT_TRUE(c.iommus);
  EXPECT_EQ(c.status, "okay");
  ASSERT_EQ(f.cpus.size(), 8u);
  EXPECT_EQ(f.cpus[0], "arm,cortex-a520");
  EXPECT_EQ(f.cpus[7], "arm,cortex-x4");
  EXPECT_EQ(f.compatible, "qcom,sm8650-qrd, qcom,sm8650");
}

TEST(Ingest, DeviceTreeRefusesMalformedBlobs) {
  const std::string good = slurp(data("sm8650-like.dtb"));
  std::vector<std::string> bad = {good.substr(0, 20), good.substr(0, good.size() - 8),
                                  "not a device tree at all......................"};
  std::string magic = good;
  magic[0] = 0;
  bad.push_back(magic);
  std::string strings = good;
  strings[12 + 3] = static_cast<char>(0xff);  // off_dt_strings past the end
  bad.push_back(strings);
  std::string token = good;
  token[56 + 3] = 7;  // the first structure token is no longer FDT_BEGIN_NODE
  bad.push_back(token);
  for (const std::string& b : bad) {
    const std::string e = error_of([&] { ingest::read_fdt(b, "t.tar", "system/fdt"); });
    EXPECT_NE(e.find("t.tar: at system/fdt: expected a"), std::string::npos) << e;
  }
}

// A node's name reaches the report and its tables: only the characters the Devicetree
// Specification allows pass (a | would split a table row, an escape would reach a terminal).
TEST(Ingest, DeviceTreeNodeNamesAreOfTheSpecsCharacters) {
  std::string dtb = slurp(data("sm8650-like.dtb"));
  const std::size_t at = dtb.find("crypto@1dfa000");
  ASSERT_NE(at, std::string::npos);
  dtb[at] = '|';
  const std::string e = error_of([&] { ingest::read_fdt(dtb, "t.tar", "system/fdt"); });
  EXPECT_NE(e.find("expected a node path of letters, digits and , . _ + - @ /, found \"/soc@0/|rypto@1dfa000\""),
            std::string::npos)
      << e;
}

TEST(Ingest, ANegativePropertyLengthIsRefusedBeforeLibfdtLoopsOnIt) {
  // Debian's libfdt 1.6.1 spins forever in fdt_check_full on this input (the fdt fuzzer's find).
  const std::string blob =
      slurp(std::string(QCESIM_SOURCE_DIR) + "/fuzz/regressions/fdt/negative-property-length-hangs-libfdt.dtb");
  const std::string e = error_of([&] { ingest::read_fdt(blob, "t.tar", "system/fdt"); });
  EXPECT_NE(e.find("expected a valid flattened device tree, found a property of 4294967284 bytes running past the "
                   "structure block"),
            std::string::npos)
      << e;
}

TEST(Ingest, FunctionGraphGivesCallsAndSelfTimes) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  ASSERT_EQ(a.ftrace.kind, "graph");
  std::map<std::string, ingest::FunctionStat> by;
  for (const auto& f : a.ftrace.functions) by[f.function] = f;
  // Two requests: 9.0 us and 7.0 us, with traced callees of 3.0 + 1.2 and 2.6 + 1.0 us.
  EXPECT_EQ(by.at("qce_ahash_async_req_handle").calls, 2u);
  EXPECT_NEAR(by.at("qce_ahash_async_req_handle").total_us, 16.0, 1e-9);
  EXPECT_NEAR(by.at("qce_ahash_async_req_handle").self_us, 16.0 - 3.0 - 1.2 - 2.6 - 1.0, 1e-9);
  EXPECT_NEAR(by.at("iommu_dma_map_sg").self_us, (3.0 - 0.9 - 0.7) + 2.6, 1e-9);
  EXPECT_EQ(by.at("__arm_lpae_map").calls, 2u);
  const std::vector<std::string> items = {"cost.dma_map_sg", "cost.arm_lpae_map_pages", "cost.bam_dma_irq"};
  EXPECT_EQ(ingest::kernel_function_item("iommu_dma_map_sg", items), "cost.dma_map_sg");
  EXPECT_EQ(ingest::kernel_function_item("__arm_lpae_map.isra.0", items), "cost.arm_lpae_map_pages");
  EXPECT_EQ(ingest::kernel_function_item("bam_dma_irq", items), "cost.bam_dma_irq");
  EXPECT_EQ(ingest::kernel_function_item("qce_ahash_update", items), "");
}

TEST(Ingest, RunsAreReadAsTheSeedMeasurementReportsThem) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  const ingest::BenchRun* qce = nullptr;
  for (const auto& r : a.runs)
    if (r.member == "runs/seed-qce") qce = &r;
  ASSERT_NE(qce, nullptr);
  EXPECT_EQ(qce->driver, "sha256-qce");
  EXPECT_EQ(qce->messages, 50000u);
  EXPECT_NEAR(qce->wall_s, 4.85, 1e-9);
  // Every core's busy time, as P1's CPU: /proc/stat's user, nice, system, irq and softirq
  // ticks (129 + 55 + 94) at USER_HZ 100; the process's own utime + stime is 1.29 s of it.
  EXPECT_NEAR(qce->cpu_s, 2.78, 1e-9);
  EXPECT_NEAR(qce->task_cpu_s, 1.29, 1e-6);
  EXPECT_NEAR(qce->hardirq_s, 0.55, 1e-9);  // 55 ticks at USER_HZ 100
  EXPECT_NEAR(qce->softirq_s, 0.94, 1e-9);
  EXPECT_EQ(qce->check, "equal");
  // Every CPU's idle states entered during the loop (sysfs cpuidle deltas).
  ASSERT_EQ(qce->idle.size(), 3u);
  EXPECT_EQ(qce->idle[2].cpu, 7u);
  EXPECT_EQ(qce->idle[2].state, 1u);
  EXPECT_EQ(qce->idle[2].entries, 1000u);
  EXPECT_EQ(qce->idle[2].time_us, 120000.0);
  EXPECT_EQ(qce->idle[2].name, "cpu-sleep-0");
  ASSERT_EQ(a.tcrypt.size(), 2u);  // the first result was on a line of its own
  EXPECT_EQ(a.tcrypt[0].block_bytes, 16u);
  EXPECT_EQ(a.tcrypt[0].ops_per_s, 20000);
  EXPECT_EQ(a.tcrypt[1].ops_per_s, 10500);
  EXPECT_EQ(a.cpus.size(), 8u);
  EXPECT_EQ(a.cpus[7].part, 0xd82u);
}

TEST(Ingest, TcryptRowsCountOnlyUnderTheirDriversHeader) {
  // What a 6.1 kernel logs for mode=500 (every cipher, whatever alg= says): only the rows under
  // "(cbc-aes-ce)" belong to tcrypt/cbc-aes-ce.
  const std::string log =
      "[ 55.4] testing speed of async ecb(aes) (ecb-aes-ce) encryption\n"
      "[ 55.5] tcrypt: test 0 (128 bit key, 16 byte blocks): 229944 operations in 1 seconds (3679104 bytes)\n"
      "[ 60.1] testing speed of async cbc(aes) (cbc-aes-ce) decryption\n"
      "[ 60.2] tcrypt: test 0 (128 bit key, 16 byte blocks): \n"
      "[ 61.2] 200000 operations in 2 seconds (3200000 bytes)\n"
      "[ 62.0] tcrypt: test 1 (256 bit key, 4096 byte blocks): 3000 operations in 1 seconds (12288000 bytes)\n";
  const ingest::BoardArchive a = ingest::parse_board_archive(
      read_tar(member("manifest.txt", "qcesim-board-archive 1\n") + member("tcrypt/cbc-aes-ce", log) + end_blocks(),
               "t.tar"),
      "t.tar");
  ASSERT_EQ(a.tcrypt.size(), 2u);
  EXPECT_EQ(a.tcrypt[0].direction, "decryption");
  EXPECT_EQ(a.tcrypt[0].key_bits, 128u);
  EXPECT_EQ(a.tcrypt[0].block_bytes, 16u);
  EXPECT_EQ(a.tcrypt[0].ops_per_s, 100000);  // 200000 operations in 2 seconds, joined from its own line
  EXPECT_EQ(a.tcrypt[1].key_bits, 256u);
  EXPECT_EQ(a.tcrypt[1].ops_per_s, 3000);
}

// A complete afalg-bench report up to its interrupt rows.
constexpr const char* kGoodRun =
    "qcesim-afalg 1\ntype hash\nalg sha256\ndriver sha256-qce\nbytes 4096\nmessages 10\nrequested 10\n"
    "wall_ns 1000000\nutime_us 10\nstime_us 90\nclk_tck 100\nstat_before cpu 1 0 1 1 0 0 0 0\n"
    "stat_after cpu 2 0 2 2 0 0 0 0\nstatus complete\n";

TEST(Ingest, ABadManifestOrRunNamesMemberLineAndValue) {
  const std::string run = "qcesim-afalg 1\ntype hash\ndriver sha256-ce\nbytes 4096\nmessages 12x\n";
  const std::string t =
      member("manifest.txt", "qcesim-board-archive 1\nitem runs/a collected\n") + member("runs/a", run) + end_blocks();
  EXPECT_NE(error_of([&] {
              ingest::parse_board_archive(read_tar(t, "b.tar"), "b.tar");
            }).find("b.tar: at runs/a line 5: expected messages: a whole number up to 100000000000, found \"12x\""),
            std::string::npos);
  for (const auto& [line, why] : std::vector<std::pair<std::string, std::string>>{
           {"cpuidle 7 1 x 5 WFI", "expected idle state entries: a whole number up to"},
           {"cpuidle 7 1 5 WFI", "expected cpuidle CPU STATE ENTRIES MICROSECONDS NAME, found \"cpuidle 7 1 5 WFI\""},
           {"cpuidle 7 1 5 9 WFI extra", "expected cpuidle CPU STATE ENTRIES MICROSECONDS NAME"},
           {"cpuidle 7 1 0 5 WFI", "expected idle state entries: at least 1, found \"0\""},
           {"send sideways", "expected send whole or send more, found \"send sideways\""}}) {
    const std::string bad = member("manifest.txt", "qcesim-board-archive 1\nitem runs/a collected\n") +
                            member("runs/a", "qcesim-afalg 1\ntype hash\n" + line + "\n") + end_blocks();
    EXPECT_NE(error_of([&] {
                ingest::parse_board_archive(read_tar(bad, "b.tar"), "b.tar");
              }).find("b.tar: at runs/a line 3: " + why),
              std::string::npos)
        << line;
  }
  // irq_cpu belongs right after its row's irq line; one counting more than its row says nothing.
  const ingest::BoardArchive over = ingest::parse_board_archive(
      read_tar(member("manifest.txt", "qcesim-board-archive 1\nitem runs/a collected\n") +
                   member("runs/a", std::string(kGoodRun) + "irq 5 10 GICv3 304 Level bam_dma\nirq_cpu 5 0 11\n") +
                   end_blocks(),
               "b.tar"),
      "b.tar");
  ASSERT_EQ(over.runs.size(), 1u);
  ASSERT_EQ(over.runs[0].irqs.size(), 1u);
  EXPECT_EQ(over.runs[0].irqs[0].cpu, -1);
  for (const auto& [lines, why] : std::vector<std::pair<std::string, std::string>>{
           {"irq_cpu 5 0 10\n", "expected irq_cpu right after the irq line of its label, found \"irq_cpu 5 0 10\""},
           {"irq 5 10 GICv3 304 Level bam_dma\nirq_cpu 5 x 10\n", "expected a CPU number: a whole number up to 1023"},
           {"irq 5 10 GICv3 304 Level bam_dma\nirq_cpu 5 0\n", "expected irq_cpu LABEL CPU COUNT"}}) {
    const std::string bad = member("manifest.txt", "qcesim-board-archive 1\nitem runs/a collected\n") +
                            member("runs/a", "qcesim-afalg 1\ntype hash\n" + lines) + end_blocks();
    EXPECT_NE(error_of([&] { ingest::parse_board_archive(read_tar(bad, "b.tar"), "b.tar"); }).find(why),
              std::string::npos)
        << lines << ": " << error_of([&] { ingest::parse_board_archive(read_tar(bad, "b.tar"), "b.tar"); });
  }
  // The qcrypto module's parameters: aes_sw_max_len is a uint.
  for (const auto& [line, why] : std::vector<std::pair<std::string, std::string>>{
           {"aes_sw_max_len -1", "expected aes_sw_max_len: a whole number up to 4294967295, found \"-1\""},
           {"aes_sw_max_len 4294967296", "expected aes_sw_max_len: a whole number up to 4294967295"},
           {"aes_sw_max_len", "expected aes_sw_max_len VALUE, found \"aes_sw_max_len\""},
           {"aes_sw_max_len 1 2", "expected aes_sw_max_len VALUE, found \"aes_sw_max_len 1 2\""}}) {
    const std::string bad = member("manifest.txt", "qcesim-board-archive 1\n") +
                            member("system/qce-parameters", "other a b c\n" + line + "\n") + end_blocks();
    EXPECT_NE(error_of([&] {
                ingest::parse_board_archive(read_tar(bad, "b.tar"), "b.tar");
              }).find("b.tar: at system/qce-parameters line 2: " + why),
              std::string::npos)
        << line << ": " << error_of([&] { ingest::parse_board_archive(read_tar(bad, "b.tar"), "b.tar"); });
  }
  // Another parameter's value is anyone's (a vendor driver's string): listed by name, not read.
  const ingest::BoardArchive vendor = ingest::parse_board_archive(
      read_tar(member("manifest.txt", "qcesim-board-archive 1\n") +
                   member("system/qce-parameters", "ce_device two words here\naes_sw_max_len 768 \n") + end_blocks(),
               "b.tar"),
      "b.tar");
  EXPECT_EQ(vendor.qce_parameters, (std::vector<std::string>{"ce_device", "aes_sw_max_len"}));
  EXPECT_EQ(vendor.aes_sw_max_len, 768u);
  // MSG_MORE is a hash socket's: a cipher run that says it was sent so is refused.
  const std::string cipher_more = member("manifest.txt", "qcesim-board-archive 1\nitem runs/a collected\n") +
                                  member("runs/a", "qcesim-afalg 1\ntype skcipher\ndriver cbc-aes-qce\nsend more\n") +
                                  end_blocks();
  EXPECT_NE(error_of([&] {
              ingest::parse_board_archive(read_tar(cipher_more, "b.tar"), "b.tar");
            }).find("b.tar: at runs/a line 1: expected send more only for a hash, found type skcipher"),
            std::string::npos);
  const std::string v2 = member("manifest.txt", "qcesim-board-archive 2\n") + end_blocks();
  EXPECT_NE(error_of([&] {
              ingest::parse_board_archive(read_tar(v2, "b.tar"), "b.tar");
            }).find("expected 'qcesim-board-archive 1', found \"qcesim-board-archive 2\""),
            std::string::npos);
}

TEST(Ingest, ARunTheKitMarkedFailedIsListedNotMeasured) {
  const std::string manifest =
      "qcesim-board-archive 1\nitem runs/seed-qce failed afalg-bench exit 1: cannot bind hash 'sha256-qce'\n";
  const std::string run = "qcesim-afalg 1\ndriver sha256-qce\nerror Package not installed\n";
  const ingest::BoardArchive a = ingest::parse_board_archive(
      read_tar(member("manifest.txt", manifest) + member("runs/seed-qce", run) + end_blocks(), "f.tar"), "f.tar");
  EXPECT_TRUE(a.runs.empty());
  ASSERT_EQ(a.failed_runs.size(), 1u);
  EXPECT_EQ(a.failed_runs[0].path, "runs/seed-qce");
  EXPECT_EQ(a.failed_runs[0].status, "failed");
}

TEST(Ingest, ABoardBecomesAProfileAndScenariosTheModelLoads) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  const std::string scen = std::string(QCESIM_SOURCE_DIR) + "/scenarios";
  const ingest::IngestResult r = ingest::ingest_board(a, "t", scen);
  EXPECT_EQ(fs::path(r.base_profile).filename(), "sm8650.json");  // by the crypto node's address
  ASSERT_EQ(r.scenarios, (std::vector<std::string>{"t-sha256-4096.json", "t-sha256-4096-more.json"}));
  const test::TempDir tmp("ingest");
  const std::string& dir = tmp.path();
  for (const auto& [f, text] : r.files) std::ofstream(dir + "/" + f) << text;
  const studies::Scenario sc = studies::Scenario::load(dir + "/t-sha256-4096.json");
  ASSERT_EQ(sc.variants.size(), 2u);
  const model::Profile p = sc.profile_for(sc.variants[1]);
  EXPECT_EQ(p.text("iommu.mode"), "lazy");  // the crypto device's group is DMA-FQ
  EXPECT_DOUBLE_EQ(p.num("cpu.cortex-x4.freq"), 3.3024);
  EXPECT_EQ(p.params().at("cpu.cortex-x4.freq").provenance.rfind("measured: on the board, cpufreq policy7", 0), 0u);
  EXPECT_DOUBLE_EQ(p.num("cpuidle.cpu_sleep.exit_latency"), 1200);
  EXPECT_DOUBLE_EQ(p.num("driver.era"), 2024);  // priority 275 in /proc/crypto
  EXPECT_EQ(p.text("cpu.governor"), "schedutil");
  // The BAM's interrupts all on CPU0 during the seed's engine run (irq_cpu 250 0 50000).
  EXPECT_DOUBLE_EQ(p.num("cpu.irq_cpu"), 0);
  EXPECT_EQ(p.params().at("cpu.irq_cpu").provenance,
            "measured: on the board, runs/seed-qce /proc/interrupts: 50000 of the BAM's 50000 interrupts on CPU0 "
            "(archive sm8650-like.tar, qcesim ingest)");
  const nlohmann::json j = model::read_json_file(dir + "/t-sha256-4096.json", "scenario");
  EXPECT_EQ(j["variants"][1]["engine"], "qce");
  EXPECT_EQ(j["variants"][1]["measured"]["wall_s"], 4.85);
  EXPECT_EQ(j["variants"][1]["measured"]["cpu_s"], 2.78);   // every core's busy ticks
  EXPECT_EQ(j["variants"][1]["measured"]["task_s"], 1.29);  // the process's utime + stime
  // The BAM's /proc/interrupts row, 50000 over 50000 messages (a made-up count): a check for validate.
  EXPECT_EQ(j["variants"][1]["measured"]["irqs_per_request"], 1.0);
  EXPECT_EQ(j["variants"][0]["engine"], "cpu");
  EXPECT_FALSE(j["variants"][0]["measured"].contains("irqs_per_request"));  // the CPU's run has no engine
  // The engine's wiring read from the device tree matches the SM8650 entry the profile runs.
  EXPECT_NE(r.report.find("| pipes rx / tx | 4 / 5 | 4 / 5 |"), std::string::npos) << r.report;
  // Where the measuring CPU (7) slept during each run: entries per request, time per entry;
  // other CPUs' states are not its.
  EXPECT_NE(r.report.find("| runs/seed-qce | 7 | 0 WFI | 0.980 | 95.0 |\n| runs/seed-qce | 7 | 1 cpu-sleep-0 | 0.020 | "
                          "120.0 |"),
            std::string::npos)
      << r.report;
  EXPECT_EQ(r.report.find("| runs/seed-qce | 0 |"), std::string::npos);
  EXPECT_EQ(r.report.find("| runs/seed-cpu | 7 |"), std::string::npos);  // its loop moved from CPU 7 to 6
  EXPECT_EQ(r.report.find("older than 6.5"), std::string::npos);         // 6.12: AF_ALG's digest path
  EXPECT_FALSE(j["workload"].contains("hash_calls"));
  EXPECT_EQ(j["workload"]["caller"], "af_alg");  // afalg-bench's send and read per message
  // The messages sent with MSG_MORE: init, update and final on any kernel, their own scenario.
  const studies::Scenario more = studies::Scenario::load(dir + "/t-sha256-4096-more.json");
  EXPECT_EQ(more.workload.hash_calls, studies::Workload::HashCalls::init_update_final);
  EXPECT_EQ(more.workload.messages, 2000u);
  ASSERT_EQ(more.variants.size(), 1u);
  EXPECT_EQ(more.variants[0].engine, studies::VariantEngine::qce);
  EXPECT_DOUBLE_EQ(more.variants[0].measured.at("wall_s"), 0.28);
  EXPECT_NE(r.report.find("| BAM interrupt | GIC SPI 272 | GIC SPI 272 |"), std::string::npos) << r.report;
  EXPECT_EQ(r.report.find("wiring differs"), std::string::npos) << r.report;
  EXPECT_NE(
      r.report.find("| runs/seed-qce | sha256-qce | qce | 50000 | 4096 | 97.00 | 55.60 | 25.80 | 0.55 | 0.94 | 1.00 |"),
      std::string::npos)
      << r.report;
}

// An IPQ4019 router as the kit sees it on OpenWrt (tests/data/board/ipq40xx-like.tar: a 32-bit
// 4.19 kernel, ARMv7 /proc/cpuinfo, one ondemand policy, no IOMMU, no idle driver; M1's AES-128-CBC
// rates with the threshold not in force) becomes the IPQ40xx profile, and the qcrypto module's
// aes_sw_max_len decides whether the 256-byte requests reach the engine.
TEST(Ingest, AnIpq40xxRouterBecomesTheIpq40xxProfile) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("ipq40xx-like.tar"));
  const std::string scen = std::string(QCESIM_SOURCE_DIR) + "/scenarios";
  const ingest::IngestResult r = ingest::ingest_board(a, "r", scen);
  EXPECT_EQ(fs::path(r.base_profile).filename(), "ipq40xx.json");  // crypto@8e3a000, qcom,crypto-v5.1
  ASSERT_EQ(r.scenarios,
            (std::vector<std::string>{"r-cbc-aes128-1024.json", "r-cbc-aes128-256.json", "r-sha256-4096.json"}));
  const test::TempDir tmp("ingest");
  const std::string& dir = tmp.path();
  for (const auto& [f, text] : r.files) std::ofstream(dir + "/" + f) << text;
  const studies::Scenario sc = studies::Scenario::load(dir + "/r-cbc-aes128-256.json");
  ASSERT_EQ(sc.variants.size(), 2u);
  EXPECT_EQ(sc.variants[1].engine, studies::VariantEngine::qce);
  const model::Profile p = sc.profile_for(sc.variants[1]);
  EXPECT_EQ(p.text("cpu.cpus"), "cortex-a7,cortex-a7,cortex-a7,cortex-a7");  // MIDR part 0xc07
  EXPECT_DOUBLE_EQ(p.num("cpu.cortex-a7.freq"), 0.7168);
  EXPECT_EQ(p.text("cpu.cortex-a7.opps"), "0.048,0.2,0.5,0.7168");
  EXPECT_EQ(p.text("cpu.governor"), "ondemand");
  EXPECT_EQ(p.text("iommu.mode"), "none");  // no iommus property on the crypto node
  EXPECT_DOUBLE_EQ(p.num("cpuidle.off"), 1);
  EXPECT_DOUBLE_EQ(p.num("driver.era"), 2020);  // 4.19, priority 300
  EXPECT_DOUBLE_EQ(p.num("driver.aes_sw_max_len"), 0);
  EXPECT_EQ(p.params().at("driver.aes_sw_max_len").provenance,
            "measured: on the board, /sys/module/qcrypto/parameters/aes_sw_max_len (archive ipq40xx-like.tar, "
            "qcesim ingest)");
  const nlohmann::json j = model::read_json_file(dir + "/r-cbc-aes128-256.json", "scenario");
  EXPECT_EQ(j["workload"]["key_bytes"], 16);
  EXPECT_EQ(j["workload"]["message_bytes"], 256);
  // GIC-0 239 is SPI 207 on the IPQ4019's GICv2: one BAM interrupt per request.
  EXPECT_EQ(j["variants"][1]["measured"]["irqs_per_request"], 1.0);
  // No kernel configuration in the archive: the process's own time may hold interrupts' time,
  // so it is no measured task_s.
  EXPECT_FALSE(j["variants"][1]["measured"].contains("task_s")) << j;
  EXPECT_NE(r.report.find("Without CONFIG_IRQ_TIME_ACCOUNTING=y"), std::string::npos);
  // At 1024 bytes the BLSP's BAM (the console's UART, GIC-0 270) moved too: the crypto BAM's own
  // row, the device tree's SPI + 32, is the count; without the device tree two rows are none.
  const nlohmann::json k = model::read_json_file(dir + "/r-cbc-aes128-1024.json", "scenario");
  EXPECT_EQ(k["variants"][1]["measured"]["irqs_per_request"], 1.0);
  // The seed's BAM interrupts on CPU1 (the caller's CPU0 then takes no interrupt): cpu.irq_cpu 1;
  // spread over two CPUs (3000 of 4000 on one): the profile's, and the report says why.
  const auto irq_cpu = [&](int cpu, std::uint64_t on_it) {
    ingest::BoardArchive b = a;
    for (ingest::BenchRun& run : b.runs)
      if (run.member == "runs/seed-qce") run.irqs[0].cpu = cpu, run.irqs[0].cpu_count = on_it;
    const ingest::IngestResult o = ingest::ingest_board(b, "r", scen);
    for (const auto& [f, text] : o.files)
      if (f == "r-profile.json")
        return std::make_pair(nlohmann::json::parse(text)["parameters"]["cpu.irq_cpu"]["value"], o.report);
    return std::make_pair(nlohmann::json(), o.report);
  };
  EXPECT_EQ(irq_cpu(0, 4000).first, 0);
  EXPECT_EQ(irq_cpu(1, 4000).first, 1);
  const auto [beyond, beyond_report] = irq_cpu(5, 4000);  // the router has four cores
  EXPECT_EQ(beyond, 0);
  EXPECT_NE(beyond_report.find("went to CPU5, which the board's 4 cores do not include"), std::string::npos);
  const auto [split, split_report] = irq_cpu(1, 3000);
  EXPECT_EQ(split, 0);  // ipq40xx.json's
  EXPECT_NE(split_report.find("went to more than one CPU (3000 of the BAM's 4000 interrupts on CPU1)"),
            std::string::npos)
      << split_report;
  // Only the BLSP's BAM moved (say the requests went to software): not the engine's interrupts.
  ingest::BoardArchive blsp_only = a;
  for (ingest::BenchRun& run : blsp_only.runs)
    if (run.member == "runs/cbc-aes128-256-qce") run.irqs = {{"26", "GIC-0 270 Level bam_dma", 250}};
  for (const auto& [f, text] : ingest::ingest_board(blsp_only, "r", scen).files)
    if (f == "r-cbc-aes128-256.json") {
      EXPECT_FALSE(nlohmann::json::parse(text)["variants"][1]["measured"].contains("irqs_per_request")) << text;
    }
  ingest::BoardArchive no_dt = a;
  no_dt.has_fdt = false;
  for (const auto& [f, text] : ingest::ingest_board(no_dt, "r", scen).files)
    if (f == "r-cbc-aes128-1024.json") {
      EXPECT_FALSE(nlohmann::json::parse(text)["variants"][1]["measured"].contains("irqs_per_request")) << text;
    }
  for (const std::string row :
       {"| BAM interrupt | GIC SPI 207 | GIC SPI 207 |", "| Linux's EE on the BAM | 1 | 1 |",
        "| BAM controlled by another EE | yes | — |", "| IOMMU on the engine | no | — |", "older than 6.5",
        "| runs/cbc-aes128-256-qce | cbc-aes-qce | qce | 31689 | 256 | 94.67 |"})
    EXPECT_NE(r.report.find(row), std::string::npos) << row << "\n" << r.report;
  EXPECT_EQ(r.report.find("system/qce-parameters"), std::string::npos);  // not a lack
  EXPECT_EQ(r.report.find("No profile for this board"), std::string::npos);

  // A driver without the parameter (4.19 without the 2020 backport): no threshold either.
  ingest::BoardArchive old = a;
  old.aes_sw_max_len.reset();
  for (ingest::ManifestItem& i : old.items)
    if (i.path == "system/qce-parameters") i.status = "absent";
  const auto aes_sw_max_len = [&](const ingest::BoardArchive& b) {
    const ingest::IngestResult o = ingest::ingest_board(b, "r", scen);
    for (const auto& [f, text] : o.files)
      if (f == "r-profile.json")
        return std::make_pair(nlohmann::json::parse(text)["parameters"]["driver.aes_sw_max_len"], o.report);
    return std::make_pair(nlohmann::json(), o.report);
  };
  auto [v, report] = aes_sw_max_len(old);
  EXPECT_EQ(v["value"], 0) << v;
  EXPECT_NE(v["provenance"].get<std::string>().find("no aes_sw_max_len among the qcrypto module's parameters"),
            std::string::npos);
  // A kit that did not look (no such item): the profile's 512, and the report says so.
  ingest::BoardArchive older = old;
  older.items.erase(std::remove_if(older.items.begin(), older.items.end(),
                                   [](const ingest::ManifestItem& i) { return i.path == "system/qce-parameters"; }),
                    older.items.end());
  std::tie(v, report) = aes_sw_max_len(older);
  EXPECT_EQ(v["value"], 512);
  EXPECT_NE(report.find("does not give the driver's aes_sw_max_len"), std::string::npos) << report;
  // Set above the profile's range (every request to software): the range's end, said.
  ingest::BoardArchive all = a;
  all.aes_sw_max_len = 4294967295u;
  std::tie(v, report) = aes_sw_max_len(all);
  EXPECT_EQ(v["value"], 1048576);
  EXPECT_NE(report.find("aes_sw_max_len is 4294967295: every request up to 1048576 bytes goes to software"),
            std::string::npos)
      << report;
}

// The same board on an Android 6.1 kernel: AF_ALG's hash socket hashes by init, update and final
// there, and the hash scenario replays those calls (the cipher's has nothing to say about it).
TEST(Ingest, AKernelBefore65ReplaysTheHashAsInitUpdateFinal) {
  ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  a.release = "6.1.75-android14-11";
  const ingest::IngestResult r = ingest::ingest_board(a, "t", std::string(QCESIM_SOURCE_DIR) + "/scenarios");
  EXPECT_NE(r.report.find("Kernel 6.1.75-android14-11 is older than 6.5"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("workload.hash_calls \"init_update_final\""), std::string::npos) << r.report;
  const test::TempDir tmp("ingest-6.1");
  for (const auto& [f, text] : r.files) std::ofstream(tmp.path() + "/" + f) << text;
  for (const char* f : {"/t-sha256-4096.json", "/t-sha256-4096-more.json"})
    EXPECT_EQ(studies::Scenario::load(tmp.path() + f).workload.hash_calls,
              studies::Workload::HashCalls::init_update_final)
        << f;
}

// The driver's era from the kernel release: Thara Gopinath's eleven qce fixes (the held-back
// last block, the skcipher checks, XTS's data unit) came in the 5.13 merge window (Herbert Xu's
// "Crypto Update for 5.13"), so 5.12 is still the 2020 driver and 5.13 the 2021 one.
TEST(Ingest, TheDriversEraStartsAtTheReleaseThatMergedIt) {
  ingest::BoardArchive a = ingest::read_board_archive(data("ipq40xx-like.tar"));
  auto era = [&a](const std::string& release) {
    a.release = release;
    const ingest::IngestResult r = ingest::ingest_board(a, "e", std::string(QCESIM_SOURCE_DIR) + "/scenarios");
    const test::TempDir tmp("ingest-era");
    for (const auto& [f, text] : r.files) std::ofstream(tmp.path() + "/" + f) << text;
    const studies::Scenario sc = studies::Scenario::load(tmp.path() + "/e-cbc-aes128-256.json");
    return sc.profile_for(sc.variants[1]).num("driver.era");
  };
  EXPECT_DOUBLE_EQ(era("5.12.19"), 2020);
  EXPECT_DOUBLE_EQ(era("5.13.0"), 2021);
  EXPECT_DOUBLE_EQ(era("6.13.12"), 2021);
  EXPECT_DOUBLE_EQ(era("6.14.0"), 2021);  // the archive's priority 300 is the driver's own word
}

// The engine's interrupt count becomes a measurement only from one /proc/interrupts row: with a
// second BAM's row moving in the same run (a UART's BLSP) the report shows their sum, the scenario
// has no count.
// Two BAM rows moved during the run: the crypto BAM's own, the one a GIC lists as the device
// tree's SPI + 32 (SM8650's 272: hwirq 304), is the count; where neither is, there is none.
TEST(Ingest, TwoBamRowsCountOnlyTheCryptoBamsOwn) {
  ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  for (ingest::BenchRun& r : a.runs)
    if (r.member == "runs/seed-qce") r.irqs.push_back({"40", "GICv3 270 Level bam_dma", 7000});
  const auto seed = [](const ingest::IngestResult& r) {
    for (const auto& [f, text] : r.files)
      if (f == "t-sha256-4096.json") return nlohmann::json::parse(text)["variants"][1]["measured"];
    return nlohmann::json();
  };
  const std::string scen = std::string(QCESIM_SOURCE_DIR) + "/scenarios";
  ingest::IngestResult r = ingest::ingest_board(a, "t", scen);
  EXPECT_EQ(seed(r)["irqs_per_request"], 1.0) << seed(r);
  EXPECT_NE(r.report.find("| 0.55 | 0.94 | 1.00 |"), std::string::npos) << r.report;
  // The device tree's BAM on another SPI: neither row is its own, so neither counts.
  ASSERT_FALSE(a.fdt.crypto.empty());
  a.fdt.crypto[0].bam_spi = 100;
  r = ingest::ingest_board(a, "t", scen);
  EXPECT_FALSE(seed(r).contains("irqs_per_request")) << seed(r);
  EXPECT_TRUE(seed(r).contains("wall_s"));
  EXPECT_NE(r.report.find("| 0.55 | 0.94 | — |"), std::string::npos) << r.report;
  // Without a device tree no row is known to be the crypto BAM's: both are summed in the
  // report, (50000 + 7000) / 50000, and two rows are no measurement.
  a.has_fdt = false;
  r = ingest::ingest_board(a, "t", scen);
  EXPECT_FALSE(seed(r).contains("irqs_per_request")) << seed(r);
  EXPECT_NE(r.report.find("| 1.14 |"), std::string::npos) << r.report;
}

// Which driver the board's kernel runs, from its qce and BAM function names: mainline's request
// handlers alone (the synthetic archive) replay mainline; any of the locking series' qce
// functions, a compiler's clone suffix ignored, replay the series (reg_io bam, BAM locking); the
// series' BAM half alone still runs mainline's qce. The report's open questions read the trace's
// pipe resets per request (counted by qce_dma_terminate_all): one per request with the series is
// the UNLOCK still listed, freed in softirq (H4).
TEST(Ingest, TheKernelsFunctionNamesSayWhetherItRunsTheLockingSeries) {
  ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  ASSERT_TRUE(a.has_kernel_symbols);
  EXPECT_TRUE(a.kernel_symbols.count("qce_handle_queue"));  // "qce_handle_queue.constprop.0 [qcrypto]"
  EXPECT_TRUE(a.ftrace_traceable.count("bam_chan_init_hw"));
  const std::string scen = std::string(QCESIM_SOURCE_DIR) + "/scenarios";
  const auto engine_variant = [](const ingest::IngestResult& r) {
    for (const auto& [f, text] : r.files)
      if (f == "t-sha256-4096.json") return nlohmann::json::parse(text)["variants"][1];
    return nlohmann::json();
  };
  const auto has = [](const ingest::IngestResult& r, const std::string& text) {
    return r.report.find(text) != std::string::npos;
  };
  ingest::IngestResult r = ingest::ingest_board(a, "t", scen);
  EXPECT_EQ(engine_variant(r)["reg_io"], "mmio");
  EXPECT_TRUE(has(r,
                  "- **The driver**: mainline, registers written by the CPU (qce_ahash_async_req_handle, "
                  "qce_dma_request, qce_start): the locking questions"))
      << r.report;
  // The synthetic trace: two requests (qce_dma_terminate_all twice), no reset.
  EXPECT_TRUE(has(r,
                  "bam_chan_init_hw ran 0 times in the traced run's 2 requests (0.00 per request, counted by "
                  "qce_dma_terminate_all, once per request): none, as mainline has none."))
      << r.report;
  EXPECT_TRUE(has(r,
                  "CPU0 took 50000 of the crypto BAM's 50000 interrupts during runs/seed-qce, whose loop ran on "
                  "CPU7: another core than the caller's (H1's placement"))
      << r.report;
  // Mainline's count is the model's to compare (2 on SM8650, 1 on the IPQ40xx: timing).
  EXPECT_TRUE(has(r, "1.00 during runs/seed-qce; `qcesim run t-sha256-4096.json` sets the model's count beside it."))
      << r.report;

  // The BAM half alone: still mainline's qce.
  ingest::BoardArchive bam_half = a;
  bam_half.kernel_symbols.insert("bam_setup_pipe_lock");
  r = ingest::ingest_board(bam_half, "t", scen);
  EXPECT_EQ(engine_variant(r)["reg_io"], "mmio");
  EXPECT_TRUE(has(r, "; the series' BAM half alone (bam_setup_pipe_lock)")) << r.report;

  // The series' kernel (qce_write_dma, 13/14, and bam_setup_pipe_lock, 06/14), a reset in each of
  // the two traced requests, two interrupts per request, the loop and the interrupt on CPU0.
  a.kernel_symbols.insert({"bam_setup_pipe_lock", "qce_write_dma"});
  a.ftrace.functions.push_back({"bam_chan_init_hw", 2, 4.0, 4.0, 2.0, 0});
  for (ingest::BenchRun& b : a.runs)
    if (b.member == "runs/seed-qce") {
      b.cpu = b.cpu_end = 0;
      for (ingest::IrqDelta& d : b.irqs)
        if (d.label == "250") d.count = d.cpu_count = 100000;
    }
  r = ingest::ingest_board(a, "t", scen);
  EXPECT_EQ(engine_variant(r)["reg_io"], "bam");
  EXPECT_FALSE(engine_variant(r).contains("bam_lock"));  // the series' default with reg_io bam: locked
  EXPECT_TRUE(has(r,
                  "The kernel carries the BAM-locking series (qce_write_dma, bam_setup_pipe_lock in its function "
                  "names): the engine's variants replay it (reg_io bam, with BAM locking)."))
      << r.report;
  EXPECT_TRUE(has(r,
                  "2.00 during runs/seed-qce: the tx EOT's handler saw the UNLOCK (H1) or the UNLOCK took no "
                  "interrupt of its own (H4)"))
      << r.report;
  EXPECT_TRUE(has(r, "bam_chan_init_hw ran 2 times in the traced run's 2 requests (1.00 per request")) << r.report;
  EXPECT_TRUE(has(r, "reset the rx pipe and freed it in softirq (H4).")) << r.report;
  EXPECT_TRUE(has(r, "whose loop ran on CPU0: the caller's own core (H3's placement).")) << r.report;
  const test::TempDir tmp("ingest-series");
  for (const auto& [f, text] : r.files) std::ofstream(tmp.path() + "/" + f) << text;
  const studies::Scenario sc = studies::Scenario::load(tmp.path() + "/t-sha256-4096.json");
  EXPECT_TRUE(sc.variants[1].bam_lock);
  EXPECT_EQ(sc.variants[1].reg_io, qce::RegIo::bam);

  // A third interrupt on one request in four, a reset on one of two, a loop that moved: the race
  // both ways, the placement not decided.
  for (ingest::BenchRun& b : a.runs)
    if (b.member == "runs/seed-qce") {
      b.cpu_end = 7;
      for (ingest::IrqDelta& d : b.irqs)
        if (d.label == "250") d.count = d.cpu_count = 112500;
    }
  a.ftrace.functions.back().calls = 1;
  r = ingest::ingest_board(a, "t", scen);
  EXPECT_TRUE(has(r, "2.25 during runs/seed-qce: about 25 % of the requests took a third")) << r.report;
  EXPECT_TRUE(has(r, "(0.50 per request, counted by qce_dma_terminate_all, once per request): on some requests only"))
      << r.report;
  EXPECT_TRUE(has(r, "whose loop moved from CPU0 to CPU7: the placement is not decided.")) << r.report;

  // No trace, no kernel names: nothing is concluded, and the report says why the driver is not
  // known; the replay is mainline.
  a.has_kernel_symbols = false;
  a.kernel_symbols.clear();
  a.ftrace_traceable.clear();
  a.ftrace = {};
  r = ingest::ingest_board(a, "t", scen);
  EXPECT_EQ(engine_variant(r)["reg_io"], "mmio");
  EXPECT_TRUE(has(r, "- **The driver**: not known (system/kallsyms-crypto collected)")) << r.report;
  EXPECT_TRUE(has(r, "- **Pipe resets** (H1 against H4): no function trace (the kit's -f).")) << r.report;
  EXPECT_TRUE(has(r, "2.25 during runs/seed-qce; `qcesim run")) << r.report;  // no series: no hypothesis read
}

// The function name lists are hostile input too: a name with a control character, or more
// names than the kit writes, is refused naming the member and line.
TEST(Ingest, FunctionNameListsAreCheckedLikeEveryMember) {
  const auto with = [](const std::string& name, const std::string& text) {
    ingest::TarMembers m = ingest::read_tar(slurp(data("sm8650-like.tar")), "a.tar");
    m[name] = text;
    return error_of([&] { ingest::parse_board_archive(m, "a.tar"); });
  };
  EXPECT_NE(with("system/kallsyms-crypto", "qce_start [qcrypto]\nqce_\x1b[31m\n")
                .find("system/kallsyms-crypto line 2: expected a kernel function's name"),
            std::string::npos);
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "bam_f" + std::to_string(i) + "\n";
  EXPECT_EQ(with("ftrace/functions", many), "no error");  // 2000 are fine
  EXPECT_NE(with("ftrace/functions", many + "bam_g\n").find("at most 2000 function names"), std::string::npos);
}

// A board on ondemand with cpufreq-dt's frequency list: the governor and the task core's OPPs
// (those within the range its policy gave, written exactly), which the model then loads; a policy
// without its range gives no list.
TEST(Ingest, OndemandAndTheAvailableFrequenciesBecomeTheProfiles) {
  ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  for (ingest::CpufreqPolicy& pol : a.cpufreq) {
    pol.governor = "ondemand";
    if (pol.name == "policy7") pol.available_khz = {300000, 480000, 1017600, 2265600, 3302400};
    if (pol.name == "policy0") {
      pol.available_khz = {307200, 2265600};
      pol.min_khz = 0;
    }
  }
  const ingest::IngestResult r = ingest::ingest_board(a, "t", std::string(QCESIM_SOURCE_DIR) + "/scenarios");
  const test::TempDir tmp("ingest-opps");
  for (const auto& [f, text] : r.files) std::ofstream(tmp.path() + "/" + f) << text;
  const studies::Scenario sc = studies::Scenario::load(tmp.path() + "/t-sha256-4096.json");
  const model::Profile p = sc.profile_for(sc.variants[1]);
  EXPECT_EQ(p.text("cpu.governor"), "ondemand");
  EXPECT_EQ(p.text("cpu.cortex-x4.opps"), "0.48,1.0176,2.2656,3.3024");
  EXPECT_FALSE(p.has("cpu.cortex-a520.opps"));
  EXPECT_EQ(cpu::cpus_from_profile(p).back().opps.size(), 4u);
}

// A base profile's OPP table does not outlive the board's own range: with cpuinfo_min/max_freq and
// no frequency list, ingest leaves the table out and says so (it may not fit the new range).
TEST(Ingest, ABoardsRangeWithoutAListDropsTheBaseProfilesTable) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  const test::TempDir profiles("ingest-base");
  nlohmann::json base = model::read_json_file(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json", "profile");
  base["parameters"]["cpu.cortex-x4.opps"] = {
      {"value", "0.48,3.3"}, {"unit", "GHz list"}, {"provenance", "estimate: a test's table"}};
  test::write_text(profiles.path() + "/sm8650.json", base.dump(1));
  const ingest::IngestResult r = ingest::ingest_board(a, "t", profiles.path());
  EXPECT_NE(r.report.find("cpu.cortex-x4.opps left out"), std::string::npos) << r.report;
  const test::TempDir out("ingest-out");
  for (const auto& [f, text] : r.files) std::ofstream(out.path() + "/" + f) << text;
  const studies::Scenario sc = studies::Scenario::load(out.path() + "/t-sha256-4096.json");
  const model::Profile p = sc.profile_for(sc.variants[1]);
  EXPECT_FALSE(p.has("cpu.cortex-x4.opps"));
  EXPECT_DOUBLE_EQ(p.num("cpu.cortex-x4.freq"), 3.3024);
}

TEST(Ingest, CalibrateTakesTheBoardsFunctionTimesAsPriors) {
  const ingest::BoardArchive a = ingest::read_board_archive(data("sm8650-like.tar"));
  const ingest::IngestResult r = ingest::ingest_board(a, "t", std::string(QCESIM_SOURCE_DIR) + "/scenarios");
  const test::TempDir tmp("ingest-evidence");
  const std::string& dir = tmp.path();
  for (const auto& [f, text] : r.files) std::ofstream(dir + "/" + f) << text;
  studies::CalibrationSpec spec;
  spec.scenario = dir + "/t-sha256-4096.json";
  spec.fit = {"cost.dma_map_sg", "cost.kfree"};
  spec.evidence = dir + "/t-functions.json";
  const studies::CalibrationProblem p = studies::calibration_problem(spec);
  const model::Profile& prof = p.base;
  // iommu_dma_map_sg: (3.0 - 0.9 - 0.7) and 2.6 us of its own on cpu7 (the X4), so 2.0 us a call,
  // in instructions at the X4's clock and kernel IPC, over the item's shared factor.
  const model::Param& map = prof.param("cost.dma_map_sg");
  const double shared = map.shared.empty() ? 1.0 : prof.num(map.shared);
  EXPECT_NEAR(p.centre[0],
              2.0e-6 * prof.num("cpu.cortex-x4.freq") * 1e9 * prof.num("cpu.cortex-x4.kernel_ipc") / shared,
              1e-6 * p.centre[0]);
  EXPECT_NEAR(p.sigma[0], std::log(1.5), 1e-12);
  EXPECT_NE(p.evidence[0].find("iommu_dma_map_sg (2 calls, 2.000 us each on cpu7 cortex-x4)"), std::string::npos)
      << p.evidence[0];
  // kfree was not traced: the profile's prior.
  EXPECT_EQ(p.centre[1], prof.param("cost.kfree").value);
  EXPECT_NEAR(p.sigma[1], std::log(3.0), 1e-12);
  EXPECT_TRUE(p.evidence[1].empty());
}

// A --set of a fitted parameter starts the search there and centres its prior (a hypothesis'
// own starting point, docs/calibration.md H2); the others start at the profile's value.
TEST(Calibration, ASetOfAFittedParameterStartsTheSearchThere) {
  studies::CalibrationSpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json";
  spec.fit = {"iommu.tlb_miss", "cost.readl"};
  spec.sets = {"iommu.tlb_miss=2800"};
  const studies::CalibrationProblem p = studies::calibration_problem(spec);
  EXPECT_EQ(p.centre[0], 2800.0);
  EXPECT_EQ(p.centre[1], p.base.param("cost.readl").value);
  EXPECT_NE(p.base.param("iommu.tlb_miss").value, 2800.0);  // the profile itself is not changed
}

// The posterior weighs each residual by its own kind's scatter (wall, CPU, hardirq, softirq), the
// kind's RSS over its share of n - k degrees of freedom pulled towards the pooled estimate by one
// degree of freedom (P1 has 2-3 residuals of each kind, too few to trust alone): P1's hardirq and
// softirq misses weigh less than its walls and CPU times, and the four fitted parameters come
// out within a factor 1.3-2.0 at one sigma (docs/calibration.md). The caller's time trades
// against the register read (CPU) and the engine's finish (wall): negative correlations, which
// the profile written from the fit keeps for the uncertainty runs.
TEST(Calibration, ThePosteriorWeighsEachKindOfResidualByItsOwnScatter) {
  studies::CalibrationSpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json";
  spec.fit = {"cost.caller_overhead", "cost.readl", "qce.finish", "bam.ce_fetch"};
  spec.prior_factor = 1000;
  spec.iterations = 0;  // the profile's values are the fit's result: evaluate there
  const studies::CalibrationProblem p = studies::calibration_problem(spec);
  std::ostringstream progress;
  const studies::Calibration c = studies::calibrate(p, progress);
  ASSERT_EQ(c.spread.size(), 4u);
  const std::vector<std::pair<double, double>> one_sigma = {{1.2, 1.5}, {1.4, 1.8}, {1.7, 2.3}, {1.3, 1.6}};
  for (std::size_t q = 0; q < 4; ++q) {
    const double f = std::exp(c.spread[q] * p.sigma[q]);
    EXPECT_GT(f, one_sigma[q].first) << spec.fit[q];
    EXPECT_LT(f, one_sigma[q].second) << spec.fit[q];
  }
  // Each kind's variance lies between its own estimate and the pooled one, nearer its own the
  // more residuals it has.
  const auto var = studies::residual_variance(p, c.residuals);
  double rss = 0;
  std::map<std::string, std::pair<double, double>> own;  // kind -> (RSS, count)
  for (std::size_t t = 0; t < c.residuals.size(); ++t) {
    rss += c.residuals[t] * c.residuals[t];
    own[p.targets[t].key].first += c.residuals[t] * c.residuals[t];
    own[p.targets[t].key].second += 1;
  }
  const double pooled = rss / 6;
  for (const auto& [key, sums] : own) {
    const double dof = sums.second * 6 / 10, alone = sums.first / dof;
    EXPECT_NEAR(var.at(key), (sums.first + pooled) / (dof + 1), 1e-12) << key;
    EXPECT_GT(var.at(key), std::min(alone, pooled)) << key;
    EXPECT_LT(var.at(key), std::max(alone, pooled)) << key;
  }
  EXPECT_GT(var.at("hardirq_s"), 4 * var.at("wall_s"));
  const auto corr = studies::posterior_correlation(c);
  EXPECT_LT(corr[0][1], -0.2);  // the caller's time against the register read
  EXPECT_LT(corr[0][2], -0.2);  // and against the engine's finish
  const std::string rep = studies::calibration_report(c);
  EXPECT_NE(rep.find("| one sigma, a factor |"), std::string::npos) << rep;
  EXPECT_NE(rep.find("| `cost.readl` | ns | 886.7 | 886.7 | [15, 9880] | 0.07 | x1.57 | yes |"), std::string::npos)
      << rep;
  EXPECT_NE(rep.find("hardirq_s 33.4 %"), std::string::npos) << rep;
  EXPECT_NE(rep.find("Posterior correlation of log(value)"), std::string::npos) << rep;
  // The written profile: each fitted value's 90 % interval from its posterior, and the group.
  const nlohmann::json doc = studies::calibrated_profile(c, "2026-12-07");
  const model::Profile written = model::Profile::parse(doc, "fit.json");
  ASSERT_EQ(written.correlations().size(), 1u);
  EXPECT_EQ(written.correlations()[0].names, spec.fit);
  EXPECT_EQ(written.correlations()[0].matrix, corr);
  const model::Param& readl = written.param("cost.readl");
  const double f90 = std::exp(model::kNormalP95 * c.spread[1] * p.sigma[1]);
  EXPECT_NEAR(readl.lo, 886.7 / f90, 0.01);
  EXPECT_NEAR(readl.hi, 886.7 * f90, 0.01);
  // What the shipped profile says is this fit's result.
  const model::Profile shipped = model::Profile::load(p.scenario.profile_file);
  EXPECT_EQ(shipped.correlations()[0].matrix, corr);
  for (const std::string& n : spec.fit) {
    EXPECT_NEAR(shipped.param(n).lo, written.param(n).lo, 0.06) << n;
    EXPECT_NEAR(shipped.param(n).hi, written.param(n).hi, 0.06) << n;
  }
}

TEST(Ingest, CommandRefusesAHostileArchiveBeforeWritingAnything) {
  const test::TempDir tmp("ingest-cli");
  const std::string& dir = tmp.path();
  std::ofstream(dir + "/link.tar", std::ios::binary)
      << member("manifest.txt", "qcesim-board-archive 1\n") + member("runs/x", "", '2', "/etc/shadow") + end_blocks();
  auto r = test::run_qcesim({"ingest", "link.tar", "-o", "out"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("link.tar: at member \"runs/x\": expected a regular file or a folder, found a symbolic link"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  // A FIFO where a report would go is refused, not opened (nothing may hang or be replaced).
  fs::create_directory(dir + "/out");
  ASSERT_EQ(mkfifo((dir + "/out/b-report.md").c_str(), 0644), 0);
  r = test::run_qcesim({"ingest", data("sm8650-like.tar"), "-o", "out", "--name", "b"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("b-report.md, which is something else"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out/b-profile.json"));
  struct stat st;
  ASSERT_EQ(lstat((dir + "/out/b-report.md").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  // A name that is not a name, and an output folder that is a link.
  r = test::run_qcesim({"ingest", data("sm8650-like.tar"), "-o", "out", "--name", "../x"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  fs::create_directory_symlink("/tmp", dir + "/elsewhere");
  r = test::run_qcesim({"ingest", data("sm8650-like.tar"), "-o", "elsewhere"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("a folder (not a symbolic link)"), std::string::npos) << r.err;
  // A folder someone else owns could be swapped for a link while qcesim (root) writes into it.
  fs::create_directory(dir + "/theirs");
  if (geteuid() == 0 && chown((dir + "/theirs").c_str(), 12345, 12345) == 0) {
    r = test::run_qcesim({"ingest", data("sm8650-like.tar"), "-o", "theirs"}, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("expected a folder owned by the user running qcesim, found theirs, owned by uid 12345"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::is_empty(dir + "/theirs"));
  }
}

TEST(Ingest, ValidateShowsTheBoardsRows) {
  const test::TempDir tmp("ingest-validate");
  const std::string& dir = tmp.path();
  auto r = test::run_qcesim({"ingest", data("sm8650-like.tar"), "-o", "board", "--name", "p1-like"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# Board p1-like"), std::string::npos);
  r = test::run_qcesim({"validate", "board", "--samples", "3", "--messages", "200"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("p1-like-sha256-4096"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sha256-qce"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p1-like:"), std::string::npos) << r.out;  // grouped under the board's profile
  // The process's own CPU time gets a row of its own (the model's task context).
  EXPECT_NE(r.out.find("sha256-qce           task_s"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace qcesim

// --weighted fits with the posterior's weights (each kind's residual variance), refitting until a
// round leaves the parameters where they were: the result is the posterior's mode. At P1 the
// unweighted optimum is nearly that already: the four move by a few per cent at most, and the
// weighted cost at the result is below the weighted cost at the unweighted optimum.
TEST(Calibration, AWeightedFitEndsAtThePosteriorsMode) {
  studies::CalibrationSpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json";
  spec.fit = {"cost.caller_overhead", "cost.readl", "qce.finish", "bam.ce_fetch"};
  spec.prior_factor = 1000;
  spec.iterations = 0;
  std::ostringstream progress;
  const studies::Calibration start = studies::calibrate(studies::calibration_problem(spec), progress);
  EXPECT_EQ(start.weighted_rounds, 0u);
  spec.iterations = 60;
  spec.weighted = true;
  const studies::CalibrationProblem p = studies::calibration_problem(spec);
  const studies::Calibration c = studies::calibrate(p, progress);
  EXPECT_GE(c.weighted_rounds, 1u);
  EXPECT_LE(c.weighted_rounds, 5u);
  EXPECT_TRUE(c.weights_settled);
  EXPECT_NE(progress.str().find("weighted round 1"), std::string::npos);
  for (std::size_t q = 0; q < 4; ++q) {
    EXPECT_GT(c.fitted[q], 0.9 * start.fitted[q]) << spec.fit[q];
    EXPECT_LT(c.fitted[q], 1.1 * start.fitted[q]) << spec.fit[q];
  }
  const auto var = studies::residual_variance(p, c.residuals);
  double at_fit = 0, at_start = 0;
  for (std::size_t t = 0; t < c.residuals.size(); ++t) {
    const double w = 1.0 / var.at(p.targets[t].key);
    at_fit += w * c.residuals[t] * c.residuals[t];
    at_start += w * start.residuals[t] * start.residuals[t];
  }
  EXPECT_LE(at_fit, at_start);
  const std::string rep = studies::calibration_report(c);
  EXPECT_NE(rep.find("weighted by each kind's residual variance as the posterior weighs it"), std::string::npos) << rep;
  const nlohmann::json doc = studies::calibrated_profile(c, "2026-12-07");
  EXPECT_NE(doc["parameters"]["cost.readl"]["provenance"].get<std::string>().find("--weighted"), std::string::npos);
}
