// The built `qcesim cipher`: every algorithm the driver registers, both engines and both
// register-I/O modes, byte-identical to OpenSSL's EVP (what `openssl enc -nopad` runs) over a
// file of 100000 bytes (several engine requests for the non-XTS modes: the IV chains through the
// result dump); decrypt inverts encrypt; bad options and lengths exit 2 naming what was expected.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>

#include "tests/emu_helpers.h"
#include "tests/process.h"

using namespace qcesim;

namespace {

std::string hexs(const std::vector<std::uint8_t>& v) { return test::hex(v); }

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& b) {
  test::write_text(path, std::string(b.begin(), b.end()));
}

struct Alg {
  const char* name;
  const EVP_CIPHER* evp;
  std::size_t key, iv;
};

}  // namespace

TEST(CipherCommand, EveryAlgorithmMatchesOpenSslOnBothEnginesAndModes) {
  const std::string dir = test::make_temp_dir("cipher");
  const std::size_t len = 100000;
  const auto data = test::random_bytes(len, 5);
  write_bytes(dir + "/in.bin", data);
  const std::vector<std::uint8_t> xts_data(data.begin(), data.begin() + 65536);
  write_bytes(dir + "/xts.bin", xts_data);
  const Alg algs[] = {{"ecb(aes)", EVP_aes_128_ecb(), 16, 0},     {"cbc(aes)", EVP_aes_256_cbc(), 32, 16},
                      {"ctr(aes)", EVP_aes_128_ctr(), 16, 16},    {"xts(aes)", EVP_aes_256_xts(), 64, 16},
                      {"cbc(des3_ede)", EVP_des_ede3_cbc(), 24, 8}, {"ecb(des3_ede)", EVP_des_ede3_ecb(), 24, 0}};
  unsigned seed = 10;
  for (const Alg& a : algs) {
    const auto key = test::random_bytes(a.key, seed++), iv = test::random_bytes(a.iv, seed++);
    const bool xts = std::string(a.name) == "xts(aes)";
    const auto& in = xts ? xts_data : data;
    const auto want = test::openssl_cipher(a.evp, true, key, iv, in);
    for (const std::vector<std::string>& how : {std::vector<std::string>{"--engine", "qce", "--reg-io", "mmio"},
                                                std::vector<std::string>{"--engine", "qce", "--reg-io", "bam"},
                                                std::vector<std::string>{"--engine", "cpu"}}) {
      std::vector<std::string> args = {"cipher", "--alg", a.name, "--key", hexs(key), xts ? "xts.bin" : "in.bin"};
      if (a.iv) args.insert(args.end(), {"--iv", hexs(iv)});
      args.insert(args.end(), how.begin(), how.end());
      const auto r = test::run_qcesim(args, dir);
      ASSERT_EQ(r.exit_code, 0) << a.name << " " << how[1] << ": " << r.err;
      EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()), want) << a.name << " " << how[1];
      // And back.
      write_bytes(dir + "/ct.bin", want);
      args[5] = "ct.bin";
      args.push_back("--decrypt");
      const auto d = test::run_qcesim(args, dir);
      ASSERT_EQ(d.exit_code, 0) << d.err;
      EXPECT_EQ(std::vector<std::uint8_t>(d.out.begin(), d.out.end()), in) << a.name << " decrypt " << how[1];
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(CipherCommand, BadOptionsAndLengthsExit2NamingWhatWasExpected) {
  const std::string dir = test::make_temp_dir("cipher-bad");
  write_bytes(dir + "/17.bin", test::random_bytes(17, 1));
  write_bytes(dir + "/32.bin", test::random_bytes(32, 1));
  const std::string k16(32, 'a'), iv16(32, 'b');
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"cipher", "--alg", "gcm(aes)", "--key", k16, "32.bin"}, "--alg: expected one of"},
      {{"cipher", "--alg", "cbc(aes)", "--key", "zz", "--iv", iv16, "32.bin"}, "--key: expected"},
      {{"cipher", "--alg", "cbc(aes)", "--key", std::string(48, 'a'), "--iv", iv16, "32.bin"}, "no AES-192"},
      {{"cipher", "--alg", "cbc(aes)", "--key", k16, "32.bin"}, "--iv: expected 16 bytes"},
      {{"cipher", "--alg", "ecb(aes)", "--key", k16, "--iv", iv16, "32.bin"}, "--iv: expected none"},
      {{"cipher", "--alg", "cbc(aes)", "--key", k16, "--iv", iv16, "17.bin"}, "input: expected a multiple of 16 bytes"},
      {{"cipher", "--alg", "xts(aes)", "--key", std::string(128, 'a'), "--iv", iv16, "32.bin"}, "different XTS key halves"},
      {{"cipher", "--alg", "cbc(aes)", "--key", k16, "--iv", iv16, "missing.bin"}, "missing.bin: No such file"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_qcesim(c.args, dir);
    EXPECT_EQ(r.exit_code, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << c.says;
  }
  std::filesystem::remove_all(dir);
}
