// workload.caller for skciphers (studies/caller_path.cpp): what each user-space caller's system
// calls charge per message, page by page (AF_ALG's copy into the socket's pages and its pinned
// output; cryptodev's slow pinning, once in place), where an AIO read's completion runs, and the
// engine's scatterlists of user pages on a SoC without an IOMMU. Replays through the CLI, one
// elaboration per process.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cpu/costs.h"
#include "model/profile.h"
#include "studies/caller_path.h"
#include "studies/scenario.h"
#include "tests/process.h"

using nlohmann::json;
using namespace qcesim;
namespace test = qcesim::test;

namespace {

const std::string kSrc = QCESIM_SOURCE_DIR;

// Calls of each cost item, by field, in a list of charges; the copy's bytes apart.
std::map<std::string, double> charged_calls(const std::vector<cpu::Charge>& ch, double* copy_ns = nullptr) {
  std::map<std::string, double> n;
  for (const cpu::Charge& c : ch) {
    if (c.item < 0) {
      EXPECT_STREQ(c.fn, "copy_from_user");
      if (copy_ns) *copy_ns += c.time.to_seconds() * 1e9;
      continue;
    }
    n[cpu::kCostItems[static_cast<unsigned>(c.item)].field] += c.count;
  }
  return n;
}

studies::Workload cbc(studies::Workload::Caller c, bool in_place = false) {
  studies::Workload w;
  w.algorithm = *parse_alg_name("cbc(aes)");
  w.caller = c;
  w.in_place = in_place;
  return w;
}

}  // namespace

// AF_ALG read synchronously: two system calls; per page of text one page allocated, copied into,
// pinned on the output side and freed; a further output list per 16 pages; nothing left for the
// completion context. The copy takes the task core's copy bandwidth.
TEST(CallerPath, AfAlgChargesPerPageAndTheCopyAtTheCoresBandwidth) {
  const cpu::Costs k = cpu::costs_from_profile(model::Profile::load(kSrc + "/scenarios/ipq40xx.json"));
  const studies::Workload w = cbc(studies::Workload::Caller::af_alg);
  // Every part of a sync AF_ALG request: before the call, its wait, and after crypto_wait_req
  // returns.
  auto whole = [&](std::uint32_t bytes, double* copy) {
    const studies::CallerCharges c = studies::caller_charges(w, k, bytes);
    EXPECT_TRUE(c.completion.empty());
    EXPECT_EQ(charged_calls(c.wait), (std::map<std::string, double>{{"crypto_wait_req", 1}}));
    EXPECT_FALSE(c.wait_always);  // crypto_wait_req returns at once on a finished call
    auto n = charged_calls(c.before, copy);
    for (const auto& [item, count] : charged_calls(c.after)) n[item] += count;
    return n;
  };
  double copy1 = 0, copy2 = 0;
  const auto a = whole(4096, &copy1);
  const auto b = whole(8192, &copy2);
  EXPECT_EQ(a.at("svc_exception"), 2);
  EXPECT_EQ(a.at("syscall_entry_exit"), 2);
  for (const char* per_page : {"alloc_pages", "af_alg_skcipher_page", "gup_page", "free_pages"}) {
    EXPECT_EQ(a.at(per_page), 1) << per_page;
    EXPECT_EQ(b.at(per_page), 2) << per_page;
  }
  EXPECT_EQ(a.at("gup_call"), 1);
  EXPECT_EQ(a.count("af_alg_rsgl"), 0u);
  EXPECT_EQ(a.at("kmalloc"), 4);  // control buffer, tsgl table, request, source table
  EXPECT_EQ(a.at("kfree"), 4);
  EXPECT_EQ(a.at("af_alg_skcipher_control"), 1);
  // The text's pages are freed after the wait, in the task.
  EXPECT_EQ(charged_calls(studies::caller_charges(w, k, 4096).after).at("free_pages"), 1);
  // 4096 bytes at the A7's 750 MB/s: 5.46 us; twice the bytes, twice the time.
  EXPECT_NEAR(copy1, 4096.0 / 750e6 * 1e9, 1.0);
  EXPECT_NEAR(copy2, 2 * copy1, 0.01);
  // 17 pages: a second output list with its allocation.
  const auto c = whole(17 * 4096, nullptr);
  EXPECT_EQ(c.at("gup_call"), 2);
  EXPECT_EQ(c.at("af_alg_rsgl"), 1);
  EXPECT_EQ(c.at("kmalloc"), 5);
}

// A caller that sent the operation and IV once, at the socket's set-up (af_alg_control once), sends
// each request's text with a plain send: no control messages to copy and parse, no control buffer;
// the rest of the request as with them.
TEST(CallerPath, AfAlgControlOnceSendsOnlyTheText) {
  const cpu::Costs k = cpu::costs_from_profile(model::Profile::load(kSrc + "/scenarios/ipq40xx.json"));
  studies::Workload w = cbc(studies::Workload::Caller::af_alg);
  const auto each = charged_calls(studies::caller_charges(w, k, 4096).before);
  w.af_alg_control_each = false;
  const auto once = charged_calls(studies::caller_charges(w, k, 4096).before);
  EXPECT_EQ(once.count("af_alg_skcipher_control"), 0u);
  EXPECT_EQ(once.at("kmalloc"), each.at("kmalloc") - 1);
  EXPECT_EQ(once.at("kfree"), each.at("kfree") - 1);
  for (const char* same : {"svc_exception", "af_alg_skcipher_send", "af_alg_skcipher_recv", "alloc_pages", "gup_page"})
    EXPECT_EQ(once.at(same), each.at(same)) << same;
  w.caller = studies::Workload::Caller::af_alg_aio;
  EXPECT_EQ(charged_calls(studies::caller_charges(w, k, 4096).before).count("af_alg_skcipher_control"), 0u);
  // ECB's control message is the operation alone: it fits the system call's stack buffer, so
  // the parse is charged but no control buffer.
  studies::Workload ecb = cbc(studies::Workload::Caller::af_alg);
  ecb.algorithm = *parse_alg_name("ecb(aes)");
  const auto ecb_each = charged_calls(studies::caller_charges(ecb, k, 4096).before);
  ecb.af_alg_control_each = false;
  const auto ecb_once = charged_calls(studies::caller_charges(ecb, k, 4096).before);
  EXPECT_EQ(ecb_each.at("af_alg_skcipher_control"), 1);
  EXPECT_EQ(ecb_each.at("kmalloc"), ecb_once.at("kmalloc"));
  EXPECT_EQ(ecb_each.at("kfree"), ecb_once.at("kfree"));
}

// AIO (OpenSSL's afalg engine): four system calls, two before the call, the eventfd's read the
// caller blocks in (it runs whether or not the call completed at once), and io_getevents after;
// what af_alg_free_resources and the AIO completion free is charged where the read completes.
// cryptodev: one ioctl; its pinning once in place, twice with a separate output, page by page; it
// waits in wait_for_completion (cryptodev's waitfor). An in-kernel caller has its wait alone.
TEST(CallerPath, AioCompletesApartAndCryptodevPinsOnceInPlace) {
  const cpu::Costs k = cpu::costs_from_profile(model::Profile::load(kSrc + "/scenarios/sm8650.json"));
  const auto aio = studies::caller_charges(cbc(studies::Workload::Caller::af_alg_aio), k, 4096);
  const auto t = charged_calls(aio.before);
  const auto d = charged_calls(aio.completion);
  const auto a = charged_calls(aio.after);
  const auto wt = charged_calls(aio.wait);
  EXPECT_EQ(t.at("svc_exception"), 2);
  EXPECT_EQ(t.at("aio_submit"), 1);
  EXPECT_EQ(wt.at("svc_exception"), 1);
  EXPECT_EQ(wt.at("eventfd_read"), 1);
  EXPECT_EQ(wt.count("crypto_wait_req"), 0u);
  EXPECT_TRUE(aio.wait_always);
  EXPECT_EQ(a.at("svc_exception"), 1);
  EXPECT_EQ(a.at("aio_getevents"), 1);
  EXPECT_EQ(t.count("free_pages"), 0u);
  EXPECT_EQ(a.count("free_pages"), 0u);
  EXPECT_EQ(d.at("free_pages"), 1);
  EXPECT_EQ(d.at("aio_complete"), 1);
  EXPECT_EQ(d.at("kfree"), 3);  // source table, request, aio_kiocb
  const auto same =
      charged_calls(studies::caller_charges(cbc(studies::Workload::Caller::cryptodev, true), k, 3 * 4096).before);
  const auto apart =
      charged_calls(studies::caller_charges(cbc(studies::Workload::Caller::cryptodev, false), k, 3 * 4096).before);
  EXPECT_EQ(same.at("svc_exception"), 1);
  EXPECT_EQ(same.at("cryptodev_pin_call"), 1);
  EXPECT_EQ(same.at("cryptodev_pin_page"), 3);
  EXPECT_EQ(apart.at("cryptodev_pin_call"), 2);
  EXPECT_EQ(apart.at("cryptodev_pin_page"), 6);
  EXPECT_EQ(same.count("kmalloc"), 0u);  // the session's tfm, request and tables are reused
  const auto dev = studies::caller_charges(cbc(studies::Workload::Caller::cryptodev, true), k, 4096);
  ASSERT_EQ(dev.wait.size(), 1u);
  EXPECT_STREQ(dev.wait[0].fn, "waitfor");
  EXPECT_EQ(charged_calls(dev.wait).at("crypto_wait_req"), 1);
  const auto kernel = studies::caller_charges(cbc(studies::Workload::Caller::kernel), k, 4096);
  EXPECT_TRUE(kernel.before.empty() && kernel.completion.empty() && kernel.after.empty());
  EXPECT_EQ(charged_calls(kernel.wait), (std::map<std::string, double>{{"crypto_wait_req", 1}}));
  EXPECT_FALSE(kernel.wait_always);
}

// What the uncertainty and sensitivity designs sample is what the caller path charges: a caller's
// items only with that caller (M1's engine, control once, has no control items; the hash socket no
// skcipher ones), none with an in-kernel caller, a driver's item always; and the caller-only list
// is exactly the items the paths charge but the allocator's, which the drivers charge too.
TEST(CallerPath, TheItemsADesignSamplesAreTheOnesThePathCharges) {
  using C = studies::Workload::Caller;
  const std::vector<std::string> cores = {"a7"};
  auto matters = [&](const studies::Workload& w, const char* key) { return studies::param_can_matter(key, w, cores); };
  studies::Workload once = cbc(C::af_alg);
  once.af_alg_control_each = false;
  EXPECT_TRUE(matters(cbc(C::af_alg), "cost.af_alg_skcipher_control"));
  EXPECT_FALSE(matters(once, "cost.af_alg_skcipher_control"));
  EXPECT_TRUE(matters(once, "cost.af_alg_skcipher_send"));
  EXPECT_TRUE(matters(once, "cost.af_alg_rsgl"));  // a message past 16 pages takes a second list
  EXPECT_FALSE(matters(once, "cost.aio_submit"));
  EXPECT_TRUE(matters(cbc(C::af_alg_aio), "cost.aio_submit"));
  EXPECT_FALSE(matters(cbc(C::cryptodev), "cost.gup_page"));
  EXPECT_TRUE(matters(cbc(C::cryptodev), "cost.cryptodev_pin_page"));
  studies::Workload hash;
  hash.caller = C::af_alg;
  EXPECT_TRUE(matters(hash, "cost.af_alg_hash_send"));
  EXPECT_FALSE(matters(hash, "cost.af_alg_skcipher_send"));
  EXPECT_FALSE(matters(cbc(C::kernel), "cost.svc_exception"));
  EXPECT_TRUE(matters(cbc(C::kernel), "cost.crypto_wait_req"));
  EXPECT_FALSE(matters(cbc(C::af_alg_aio), "cost.crypto_wait_req"));  // it blocks in the eventfd's read
  EXPECT_TRUE(matters(cbc(C::kernel), "cost.readl"));
  EXPECT_TRUE(matters(once, "cost.kmalloc"));
  // Only an skcipher socket copies the text in (copy_from_user): cryptodev pins the user's pages,
  // the hash socket too.
  EXPECT_TRUE(matters(once, "cpu.a7.copy_bandwidth"));
  EXPECT_TRUE(matters(cbc(C::af_alg_aio), "cpu.a7.copy_bandwidth"));
  EXPECT_FALSE(matters(cbc(C::cryptodev), "cpu.a7.copy_bandwidth"));
  EXPECT_FALSE(matters(hash, "cpu.a7.copy_bandwidth"));
  EXPECT_FALSE(matters(cbc(C::kernel), "cpu.a7.copy_bandwidth"));

  std::set<cpu::Cost> charged;
  studies::Workload ecb = cbc(C::af_alg);
  ecb.algorithm = *parse_alg_name("ecb(aes)");
  for (const studies::Workload& w : {cbc(C::af_alg), once, ecb, cbc(C::af_alg_aio), cbc(C::cryptodev, true),
                                     cbc(C::cryptodev, false), hash, cbc(C::kernel)})
    for (const cpu::Cost c : studies::caller_use(w).items) charged.insert(c);
  for (std::size_t i = 0; i < cpu::kNumCosts; ++i) {
    const auto c = static_cast<cpu::Cost>(i);
    const bool shared = c == cpu::Cost::kmalloc || c == cpu::Cost::kfree;
    EXPECT_EQ(studies::caller_only_item(c), charged.count(c) == 1 && !shared) << cpu::kCostItems[i].field;
  }
}

// Replayed on the IPQ40xx (no IOMMU): AF_ALG's 8 KiB request reaches the BAM as two page entries
// on each side (5 descriptors with the result dump, 3 for an in-kernel caller's one buffer, 5 again
// for one whose pages are apart; 3 behind the SM8650's IOMMU, which merges them); the
// AIO read's completion work runs in the done tasklet (softirq) on the engine path and in the
// task on the CPU path, where the software cipher completes inside io_submit.
TEST(CallerPath, ReplayedUserPagesAndTheAioCompletionsContext) {
  // At the A7's full clock (the profile's ondemand would stretch the copy by the clock it picks).
  const std::vector<std::string> base = {"workload.messages=200", "workload.message_bytes=8192",
                                         "driver.aes_sw_max_len=0", "cpu.governor=performance"};
  auto with = [&](const char* caller) {
    auto s = base;
    s.push_back(std::string("workload.caller=") + caller);
    return s;
  };
  const json kernel = test::run_scenario_variant("ipq40xx-cipher.json", "qce", base).variant;
  const json sync = test::run_scenario_variant("ipq40xx-cipher.json", "qce", with("af_alg")).variant;
  const json aio = test::run_scenario_variant("ipq40xx-cipher.json", "qce", with("af_alg_aio")).variant;
  const json aio_cpu = test::run_scenario_variant("ipq40xx-cipher.json", "cpu", with("af_alg_aio")).variant;
  EXPECT_EQ(kernel["bam_descriptors"], 200 * 3);
  EXPECT_EQ(sync["bam_descriptors"], 200 * 5);
  auto pages = base;
  pages.push_back("workload.scatterlist=pages");  // tcrypt's separately allocated pages
  EXPECT_EQ(test::run_scenario_variant("ipq40xx-cipher.json", "qce", pages).variant["bam_descriptors"], 200 * 5);
  // Behind the SM8650's translating IOMMU the pages map to one contiguous range: one segment.
  const json merged =
      test::run_scenario_variant("sm8650-cipher.json", "qce-nolock",
                                 {"workload.messages=200", "workload.message_bytes=8192", "workload.caller=af_alg"})
          .variant;
  EXPECT_EQ(merged["bam_descriptors"], 200 * 3);
  EXPECT_EQ(sync["digest_mismatches"], 0);
  EXPECT_EQ(aio["digest_mismatches"], 0);
  EXPECT_GT(test::function_cpu_s(aio, "aio_complete", "softirq"), 0.0);
  EXPECT_EQ(test::function_cpu_s(aio, "aio_complete", "task"), 0.0);
  EXPECT_EQ(test::function_cpu_s(sync, "aio_complete", ""), 0.0);
  EXPECT_GT(test::function_cpu_s(aio_cpu, "aio_complete", "task"), 0.0);
  EXPECT_EQ(aio_cpu["softirq_s"], 0.0);
  // The socket's copy: 8 KiB at 750 MB/s per request, in the task.
  EXPECT_NEAR(test::function_cpu_s(sync, "copy_from_user", "task"), 200 * 8192 / 750e6, 1e-8);
  EXPECT_GT(sync["wall_s"].get<double>(), kernel["wall_s"].get<double>());
}

// explain narrates OpenSSL's AIO request in the order it runs: the control messages, the send,
// io_submit and the read's start in the task, the driver, the AIO completion in the done tasklet
// (softirq), then the caller, woken, reading the eventfd and collecting the event. (M1's own
// engine sends only the text and reads synchronously: the scenario is set to OpenSSL's here.)
TEST(CallerPath, ExplainNarratesTheAioRequestInOrder) {
  const test::TempDir tmp("caller-explain");
  const test::ProcessResult r =
      test::run_qcesim({"explain", kSrc + "/scenarios/ipq40xx-m1-cbc128-256.json", "--variant", "qce", "--timing-only",
                        "--set", "workload.caller=af_alg_aio", "--set", "workload.af_alg_control=each"},
                       tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto at = [&r](const std::string& step, const std::string& where) {
    std::size_t pos = 0;
    while ((pos = r.out.find(step, pos)) != std::string::npos) {
      const std::size_t line = r.out.rfind('\n', pos) + 1;
      if (r.out.substr(line, pos - line).find(where) != std::string::npos) return line;
      ++pos;
    }
    ADD_FAILURE() << step << " in " << where << " not narrated";
    return std::string::npos;
  };
  const std::size_t send = at("skcipher_sendmsg", "task"), control = at("af_alg_cmsg_send", "task"),
                    copy = at("copy_from_user", "task"), submit = at("io_submit", "task"),
                    driver = at("qce_skcipher_async_req_handle", "task"), done = at("aio_complete", "softirq"),
                    efd = at("eventfd_read", "task"), events = at("io_getevents", "task");
  EXPECT_LT(control, send);  // the control messages are copied in before the socket's send
  EXPECT_LT(send, copy);
  EXPECT_LT(copy, submit);
  EXPECT_LT(submit, driver);
  EXPECT_LT(driver, done);
  EXPECT_LT(done, efd);
  EXPECT_LT(efd, events);
}

// The scenario refuses what no caller path covers.
TEST(CallerPath, RefusedCombinationsNameTheKey) {
  const std::string cipher = kSrc + "/scenarios/ipq40xx-cipher.json";
  struct Case {
    std::vector<std::string> sets;
    const char* says;
  };
  const Case cases[] = {
      {{"workload.caller=af_alg", "workload.in_place=true"},
       "/workload/in_place: expected false with caller \"af_alg\": AF_ALG copies the text"},
      {{"workload.caller=cryptodev", "workload.queue_depth=2"},
       "/workload/caller: expected \"kernel\" with queue_depth 2: a user-space caller's system call waits"},
      {{"workload.caller=af_alg", "workload.algorithm=\"ccm(aes)\""},
       "/workload/caller: expected \"kernel\" for ccm(aes): the user-space callers are modelled for hashes"},
  };
  for (const Case& c : cases) {
    std::string err;
    try {
      (void)studies::Scenario::load(cipher, c.sets);
    } catch (const std::exception& e) {
      err = e.what();
    }
    EXPECT_NE(err.find(c.says), std::string::npos) << c.says << " -> " << err;
  }
  std::string err;
  try {
    (void)studies::Scenario::load(kSrc + "/scenarios/sm8650-seed.json", {"workload.caller=cryptodev"});
  } catch (const std::exception& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("/workload/caller: expected \"kernel\" or \"af_alg\" for sha256: cryptodev is modelled for "
                     "skciphers"),
            std::string::npos)
      << err;
}

// The AIO caller reads its eventfd once per message whatever the engine did: also when the
// request completed inside its submission (completion by polling, in the caller's own context),
// so that it never came to wait; and no caller path charges crypto_wait_req for it.
TEST(CallerPath, AnAioReadCompletedByPollingStillReadsItsEventfd) {
  const test::TempDir tmp("aio-poll");
  std::filesystem::copy_file(kSrc + "/scenarios/ipq40xx.json", tmp.path() + "/ipq40xx.json");
  json sc = json::parse(test::slurp(kSrc + "/scenarios/ipq40xx-m1-cbc128-256.json"));
  sc["scenario"] = "aio-poll";
  sc["workload"]["caller"] = "af_alg_aio";
  sc["workload"]["messages"] = 50;
  sc["variants"] = json::array(
      {json{{"name", "poll"}, {"engine", "qce"}, {"reg_io", "mmio"}, {"completion", "poll"}, {"poll_delay_us", 1}},
       json{{"name", "irq"}, {"engine", "qce"}, {"reg_io", "mmio"}}});
  std::ofstream(tmp.path() + "/aio-poll.json") << sc.dump(1);
  const test::ProcessResult r =
      test::run_qcesim({"run", "aio-poll.json", "--timing-only", "--json", "r.json", "--jobs", "1"}, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json vs = json::parse(test::slurp(tmp.path() + "/r.json"))["variants"];
  ASSERT_EQ(vs.size(), 2u);
  const double poll = test::function_cpu_s(vs[0], "eventfd_read", "task");
  const double irq = test::function_cpu_s(vs[1], "eventfd_read", "task");
  EXPECT_GT(irq, 0.0);
  EXPECT_NEAR(poll, irq, irq * 1e-9);  // the same 50 reads at the same clock
  EXPECT_EQ(test::function_cpu_s(vs[0], "crypto_wait_req"), 0.0);
  EXPECT_EQ(test::function_cpu_s(vs[1], "crypto_wait_req"), 0.0);
  EXPECT_EQ(vs[0]["irqs"], 0);  // it did complete by polling
}
