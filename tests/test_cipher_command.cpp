// The built `qcesim cipher`: every algorithm the driver registers, both engines and both
// register-I/O modes, byte-identical to OpenSSL's EVP (what `openssl enc -nopad` runs) over a
// file of 100000 bytes (several engine requests for the non-XTS modes: the IV chains through the
// result dump); decrypt inverts encrypt; bad options and lengths exit 2 naming what was expected.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>
#include <tuple>
#include <utility>

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
  const test::TempDir tmp("cipher");
  const std::string& dir = tmp.path();
  const std::size_t len = 100000;
  const auto data = test::random_bytes(len, 5);
  write_bytes(dir + "/in.bin", data);
  const std::vector<std::uint8_t> xts_data(data.begin(), data.begin() + 65536);
  write_bytes(dir + "/xts.bin", xts_data);
  const Alg algs[] = {{"ecb(aes)", EVP_aes_128_ecb(), 16, 0},       {"cbc(aes)", EVP_aes_256_cbc(), 32, 16},
                      {"ctr(aes)", EVP_aes_128_ctr(), 16, 16},      {"xts(aes)", EVP_aes_256_xts(), 64, 16},
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
}

TEST(CipherCommand, BadOptionsAndLengthsExit2NamingWhatWasExpected) {
  const test::TempDir tmp("cipher-bad");
  const std::string& dir = tmp.path();
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
      {{"cipher", "--alg", "xts(aes)", "--key", std::string(128, 'a'), "--iv", iv16, "32.bin"},
       "different XTS key halves"},
      {{"cipher", "--alg", "cbc(aes)", "--key", k16, "--iv", iv16, "missing.bin"}, "missing.bin: No such file"},
      {{"cipher", "--alg", "cbc(aes)", "--key", k16, "--iv", iv16, "--assoc", "00", "32.bin"},
       "expected none for cbc(aes)"},
      {{"cipher", "--alg", "authenc(hmac(sha256),cbc(aes))", "--key", k16, "--iv", iv16, "32.bin"},
       "--auth-key: expected the HMAC key"},
      {{"cipher", "--alg", "authenc(hmac(sha256),cbc(aes))", "--key", k16, "--auth-key", std::string(130, 'a'), "--iv",
        iv16, "32.bin"},
       "--auth-key: expected an HMAC key of at most 64 bytes"},
      {{"cipher", "--alg", "ccm(aes)", "--key", k16, "--iv", "0011", "32.bin"}, "--iv: expected a 7..13-byte nonce"},
      {{"cipher", "--alg", "ccm(aes)", "--key", k16, "--iv", std::string(24, 'c'), "--tag-bytes", "5", "32.bin"},
       "--tag-bytes: expected a CCM tag"},
      {{"cipher", "--alg", "ccm(aes)", "--key", k16, "--iv", std::string(24, 'c'), "17.bin"},
       "expected whole 16-byte blocks for ccm(aes)"},
      {{"cipher", "--alg", "ccm(aes)", "--key", k16, "--iv", std::string(24, 'c'), "--assoc", "00", "--assoc-file",
        "32.bin", "32.bin"},
       "--assoc-file: expected it or --assoc, found both"},
      {{"cipher", "--alg", "ecb(aes)", "--key", k16, "--era", "2026", "32.bin"},
       "expected an algorithm the 2026 driver registers"},
      {{"cipher", "--alg", "ecb(aes)", "--key", k16, "--era", "2019", "32.bin"}, "--era: expected a kernel era"},
      {{"cipher", "--alg", "ecb(aes)", "--key", k16, "--platform", "missing.json", "32.bin"},
       "--platform missing.json: expected a readable profile file"},
  };
  write_bytes(dir + "/0.bin", {});
  const std::string k32 = std::string(32, 'a') + std::string(32, 'b');
  // xts(aes) of no bytes: -EINVAL from the kernel's xts (on the CPU, and in the 2020 driver's
  // fallback, which took every AES request up to aes_sw_max_len: no zero-length check yet) and
  // from the 2026 driver; the 2021-2024 driver returns at once ("CE does not handle 0 length
  // messages"), nothing out. The 2020 fallback's cbc(aes) of no bytes is nothing too.
  for (const char* where : {"--era=2026", "--engine=cpu", "--era=2020"}) {
    const auto r = test::run_qcesim({"cipher", "--alg", "xts(aes)", "--key", k32, "--iv", iv16, where, "0.bin"}, dir);
    EXPECT_EQ(r.exit_code, 2) << where;
    EXPECT_NE(r.err.find("input: expected at least 16 bytes"), std::string::npos) << r.err;
  }
  const auto older =
      test::run_qcesim({"cipher", "--alg", "xts(aes)", "--key", k32, "--iv", iv16, "--era", "2024", "0.bin"}, dir);
  EXPECT_EQ(older.exit_code, 0) << older.err;
  EXPECT_TRUE(older.out.empty());
  const auto cbc2020 =
      test::run_qcesim({"cipher", "--alg", "cbc(aes)", "--key", k16, "--iv", iv16, "--era", "2020", "0.bin"}, dir);
  EXPECT_EQ(cbc2020.exit_code, 0) << cbc2020.err;
  EXPECT_TRUE(cbc2020.out.empty());
  // A partial last XTS block is stolen wherever the software runs it: the CPU, and the 2020
  // driver's fallback (every AES request up to aes_sw_max_len), the same bytes.
  const auto cpu17 =
      test::run_qcesim({"cipher", "--alg", "xts(aes)", "--key", k32, "--iv", iv16, "--engine", "cpu", "17.bin"}, dir);
  const auto e2020 =
      test::run_qcesim({"cipher", "--alg", "xts(aes)", "--key", k32, "--iv", iv16, "--era", "2020", "17.bin"}, dir);
  ASSERT_EQ(cpu17.exit_code, 0) << cpu17.err;
  ASSERT_EQ(e2020.exit_code, 0) << e2020.err;
  EXPECT_EQ(e2020.out, cpu17.out);
  EXPECT_EQ(e2020.out.size(), 17u);
  for (const Case& c : cases) {
    const auto r = test::run_qcesim(c.args, dir);
    EXPECT_EQ(r.exit_code, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << c.says;
  }
}

// The AEAD form: ccm(aes) and authenc against OpenSSL (CCM's EVP; authenc composed of AES-CBC and
// HMAC-SHA-256), on both engines and register-I/O modes, with associated data from hex and from
// a file; decryption gives the plaintext back; a flipped bit is exit 1 with nothing written; a
// CCM text that is not whole blocks runs on a 2026 driver's fallback (--era 2026).
TEST(CipherCommand, AeadsMatchOpenSslAndABadTagIsExit1) {
  const test::TempDir tmp("cipher-aead");
  const std::string& dir = tmp.path();
  const auto pt = test::random_bytes(4096, 21), assoc = test::random_bytes(40, 22);
  const auto key = test::random_bytes(32, 23), hkey = test::random_bytes(32, 24), nonce = test::random_bytes(12, 25),
             iv = test::random_bytes(16, 26);
  write_bytes(dir + "/pt.bin", pt);
  write_bytes(dir + "/assoc.bin", assoc);
  const auto ccm = test::openssl_ccm_encrypt(key, nonce, assoc, pt, 12);
  auto ct = test::openssl_cipher(EVP_aes_256_cbc(), true, key, iv, pt);
  std::vector<std::uint8_t> macced = assoc;
  macced.insert(macced.end(), ct.begin(), ct.end());
  const auto mac = test::openssl_hmac(HashAlg::sha256, hkey, macced);
  ct.insert(ct.end(), mac.begin(), mac.end());
  struct Aead {
    std::vector<std::string> args;
    std::vector<std::uint8_t> want;
  };
  const Aead aeads[] = {{{"cipher", "--alg", "ccm(aes)", "--key", hexs(key), "--iv", hexs(nonce), "--tag-bytes", "12",
                          "--assoc", hexs(assoc)},
                         ccm},
                        {{"cipher", "--alg", "authenc(hmac(sha256),cbc(aes))", "--key", hexs(key), "--auth-key",
                          hexs(hkey), "--iv", hexs(iv), "--assoc-file", "assoc.bin"},
                         ct}};
  for (const Aead& a : aeads) {
    for (const std::vector<std::string>& how : {std::vector<std::string>{"--engine", "qce", "--reg-io", "mmio"},
                                                std::vector<std::string>{"--engine", "qce", "--reg-io", "bam"},
                                                std::vector<std::string>{"--engine", "cpu"}}) {
      auto args = a.args;
      args.insert(args.end(), how.begin(), how.end());
      auto enc = args;
      enc.push_back("pt.bin");
      const auto r = test::run_qcesim(enc, dir);
      ASSERT_EQ(r.exit_code, 0) << a.args[2] << " " << how[1] << ": " << r.err;
      EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()), a.want) << a.args[2] << " " << how[1];
      write_bytes(dir + "/ct.bin", a.want);
      auto dec = args;
      dec.insert(dec.end(), {"--decrypt", "ct.bin"});
      const auto d = test::run_qcesim(dec, dir);
      ASSERT_EQ(d.exit_code, 0) << d.err;
      EXPECT_EQ(std::vector<std::uint8_t>(d.out.begin(), d.out.end()), pt) << a.args[2] << " decrypt " << how[1];
      auto bad = a.want;
      bad[100] ^= 0x04;
      write_bytes(dir + "/bad.bin", bad);
      dec.back() = "bad.bin";
      const auto b = test::run_qcesim(dec, dir);
      EXPECT_EQ(b.exit_code, 1) << a.args[2] << " " << how[1] << ": " << b.err;
      EXPECT_TRUE(b.out.empty());
      EXPECT_NE(b.err.find("tag does not match"), std::string::npos) << b.err;
    }
  }
  // 100 bytes of CCM: the 2026 driver's software fallback, as OpenSSL computes it.
  const std::vector<std::uint8_t> small(pt.begin(), pt.begin() + 100);
  write_bytes(dir + "/small.bin", small);
  const auto r = test::run_qcesim(
      {"cipher", "--alg", "ccm(aes)", "--key", hexs(key), "--iv", hexs(nonce), "--era", "2026", "small.bin"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()),
            test::openssl_ccm_encrypt(key, nonce, {}, small, 16));
}

// What the kernel's self-tests exercise at setkey (issue 23, part 9): the 2026 driver sends equal
// XTS halves to its fallback (IEEE 1619 vector 1 has K1 = K2 = 0); a tfm that forbids weak keys
// refuses weak and semi-weak DES keys, 3DES with K1 = K2 or K2 = K3, and equal XTS halves where
// the kernel checks them (the CPU's xts, the 2026 driver), with -EINVAL (3DES in the driver: -ENOKEY), authenc
// over DES and 3DES too; without the flag a weak DES key encrypts as OpenSSL does.
TEST(CipherCommand, WeakKeysAsTheKernelTreatsThem) {
  const test::TempDir tmp("cipher-weak");
  const std::string& dir = tmp.path();
  const std::vector<std::uint8_t> in(32, 0);
  write_bytes(dir + "/in.bin", in);
  const std::string zero_key(64, '0'), zero_iv(32, '0');  // XTS-AES-128: two 16-byte halves
  // IEEE 1619-2007 annex B, vector 1 (OpenSSL's XTS refuses equal halves, so not from it).
  const std::vector<std::uint8_t> ieee1619_v1 = {0x91, 0x7c, 0xf6, 0x9e, 0xbd, 0x68, 0xb2, 0xec, 0x9b, 0x9f, 0xe9,
                                                 0xa3, 0xea, 0xdd, 0xa6, 0x92, 0xcd, 0x43, 0xd2, 0xf5, 0x95, 0x98,
                                                 0xed, 0x85, 0x8c, 0x02, 0xc2, 0x65, 0x2f, 0xbf, 0x92, 0x2e};
  // xts(aes) with a 32-byte all-zero key: both halves equal.
  for (const std::vector<std::string>& where :
       {std::vector<std::string>{"--era", "2026"}, std::vector<std::string>{"--engine", "cpu"}}) {
    std::vector<std::string> args = {"cipher", "--alg", "xts(aes)", "--key", zero_key, "--iv", zero_iv, "in.bin"};
    args.insert(args.end(), where.begin(), where.end());
    const auto r = test::run_qcesim(args, dir);
    ASSERT_EQ(r.exit_code, 0) << where[0] << ": " << r.err;
    EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()), ieee1619_v1) << where[0];
    args.push_back("--forbid-weak-keys");
    const auto w = test::run_qcesim(args, dir);
    EXPECT_EQ(w.exit_code, 2) << where[0];
    EXPECT_NE(w.err.find("two different XTS key halves (the tfm forbids weak keys: -EINVAL)"), std::string::npos)
        << w.err;
  }
  const auto era2024 = test::run_qcesim(
      {"cipher", "--alg", "xts(aes)", "--key", zero_key, "--iv", zero_iv, "--era", "2024", "in.bin"}, dir);
  EXPECT_EQ(era2024.exit_code, 2);
  EXPECT_NE(era2024.err.find("equal halves: -ENOKEY"), std::string::npos) << era2024.err;
  // The 2020 driver had no equal-key checks: its fallback (every AES request up to aes_sw_max_len)
  // runs vector 1; a longer request would be the engine's, which cannot, and is refused as not
  // modelled, as is 3DES with two equal keys (DES has no fallback).
  const auto era2020 = test::run_qcesim(
      {"cipher", "--alg", "xts(aes)", "--key", zero_key, "--iv", zero_iv, "--era", "2020", "in.bin"}, dir);
  ASSERT_EQ(era2020.exit_code, 0) << era2020.err;
  EXPECT_EQ(std::vector<std::uint8_t>(era2020.out.begin(), era2020.out.end()), ieee1619_v1);
  write_bytes(dir + "/1k.bin", std::vector<std::uint8_t>(1024, 0));
  const auto long2020 = test::run_qcesim(
      {"cipher", "--alg", "xts(aes)", "--key", zero_key, "--iv", zero_iv, "--era", "2020", "1k.bin"}, dir);
  EXPECT_EQ(long2020.exit_code, 2);
  EXPECT_NE(long2020.err.find("the 2020 driver's fallback runs"), std::string::npos) << long2020.err;
  // DES: the weak key 01..01 (which encrypts zeros to 8ca64de9c1b123a7) and a semi-weak one with
  // its parity bits flipped (the schedule ignores them) are refused with the flag; without it they
  // encrypt as OpenSSL does.
  for (const char* key : {"0101010101010101", "1ee01fe00ef10ff0"}) {
    const auto weak =
        test::run_qcesim({"cipher", "--alg", "ecb(des)", "--key", key, "--forbid-weak-keys", "in.bin"}, dir);
    EXPECT_EQ(weak.exit_code, 2) << key;
    EXPECT_NE(weak.err.find("neither weak nor semi-weak"), std::string::npos) << weak.err;
    const auto plain = test::run_qcesim({"cipher", "--alg", "ecb(des)", "--key", key, "in.bin"}, dir);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    std::vector<std::uint8_t> k(8);
    for (int i = 0; i < 8; ++i)
      k[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(std::stoi(std::string(key + 2 * i, 2), nullptr, 16));
    // Single DES as 3DES with three equal keys (OpenSSL's DES itself is in its legacy provider).
    std::vector<std::uint8_t> k3 = k;
    k3.insert(k3.end(), k.begin(), k.end());
    k3.insert(k3.end(), k.begin(), k.end());
    EXPECT_EQ(std::vector<std::uint8_t>(plain.out.begin(), plain.out.end()),
              test::openssl_cipher(EVP_des_ede3_ecb(), true, k3, {}, in))
        << key;
  }
  // A key one bit away from a weak one is not weak.
  EXPECT_EQ(test::run_qcesim(
                {"cipher", "--alg", "ecb(des)", "--key", "0101010101010103", "--forbid-weak-keys", "in.bin"}, dir)
                .exit_code,
            0);
  // 3DES: K1 = K2 refused by the flag; K1 = K3 (allowed by the kernel's check) encrypts on the CPU.
  // The driver's verify_skcipher_des3_key passes on des3_ede_verify_key's -ENOKEY (outside FIPS
  // mode); the CPU's generic des3_ede_setkey turns it into -EINVAL when the tfm forbids weak keys.
  const std::string k1 = "0123456789abcdef", k2 = "23456789abcdef01";
  for (const auto& [engine, errno_text] :
       {std::pair{"cpu", "-EINVAL, des3_ede_setkey"}, std::pair{"qce", "-ENOKEY, des3_ede_verify_key"}}) {
    const auto k1k2 = test::run_qcesim(
        {"cipher", "--alg", "ecb(des3_ede)", "--key", k1 + k1 + k2, "--engine", engine, "--forbid-weak-keys", "in.bin"},
        dir);
    EXPECT_EQ(k1k2.exit_code, 2) << engine;
    EXPECT_NE(k1k2.err.find(std::string("K1 != K2 and K2 != K3 (the tfm forbids weak keys: ") + errno_text),
              std::string::npos)
        << k1k2.err;
  }
  // authenc over DES and 3DES: the driver's verify_aead_des(3)_key and the CPU's authenc refuse them too.
  for (const char* engine : {"qce", "cpu"}) {
    for (const auto& [alg, key] : {std::pair{"authenc(hmac(sha256),cbc(des))", std::string("0101010101010101")},
                                   std::pair{"authenc(hmac(sha1),cbc(des3_ede))", k1 + k1 + k2}}) {
      const auto a = test::run_qcesim({"cipher", "--alg", alg, "--key", key, "--auth-key", "00112233", "--iv",
                                       "0001020304050607", "--engine", engine, "--forbid-weak-keys", "in.bin"},
                                      dir);
      EXPECT_EQ(a.exit_code, 2) << alg << " " << engine;
      EXPECT_NE(a.err.find("found a weak one"), std::string::npos) << a.err;
    }
  }
  const auto tdes2020 =
      test::run_qcesim({"cipher", "--alg", "ecb(des3_ede)", "--key", k1 + k1 + k2, "--era", "2020", "in.bin"}, dir);
  EXPECT_EQ(tdes2020.exit_code, 2);
  EXPECT_NE(tdes2020.err.find("the 2020 driver checked none"), std::string::npos) << tdes2020.err;
  EXPECT_EQ(test::run_qcesim({"cipher", "--alg", "ecb(des3_ede)", "--key", k1 + k2 + k1, "--engine", "cpu",
                              "--forbid-weak-keys", "in.bin"},
                             dir)
                .exit_code,
            0);
}

// --iv-out writes what the request leaves in req->iv: CBC the last ciphertext block, CTR the next
// counter; feeding it to a second call continues the stream exactly (chained requests, as the
// self-tests' iv_out and a caller splitting a message check). The CPU's CTR counts a partial last
// block, as crypto/ctr.c does.
TEST(CipherCommand, TheOutputIvChainsTheNextRequest) {
  const test::TempDir tmp("cipher-ivout");
  const std::string& dir = tmp.path();
  const auto data = test::random_bytes(4096, 77);
  write_bytes(dir + "/all.bin", data);
  write_bytes(dir + "/a.bin", std::vector<std::uint8_t>(data.begin(), data.begin() + 1024));
  write_bytes(dir + "/b.bin", std::vector<std::uint8_t>(data.begin() + 1024, data.end()));
  const auto key = test::random_bytes(16, 78);
  const std::vector<std::uint8_t> iv = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe};
  for (const char* alg : {"cbc(aes)", "ctr(aes)"}) {
    const EVP_CIPHER* evp = std::string(alg) == "cbc(aes)" ? EVP_aes_128_cbc() : EVP_aes_128_ctr();
    const auto want = test::openssl_cipher(evp, true, key, iv, data);
    for (const char* engine : {"qce", "cpu"}) {
      const auto first = test::run_qcesim({"cipher", "--alg", alg, "--engine", engine, "--key", hexs(key), "--iv",
                                           hexs(iv), "--iv-out", "iv.txt", "a.bin"},
                                          dir);
      ASSERT_EQ(first.exit_code, 0) << first.err;
      std::string next = test::slurp(dir + "/iv.txt");
      ASSERT_EQ(next.size(), 33u) << next;
      next.pop_back();  // the newline
      if (std::string(alg) == "cbc(aes)") {
        EXPECT_EQ(next, hexs(std::vector<std::uint8_t>(want.begin() + 1024 - 16, want.begin() + 1024))) << engine;
      } else {
        EXPECT_EQ(next, "0000000000000000000000000000013e") << engine;  // 0xfe + 64 blocks
      }
      const auto second = test::run_qcesim(
          {"cipher", "--alg", alg, "--engine", engine, "--key", hexs(key), "--iv", next, "b.bin"}, dir);
      ASSERT_EQ(second.exit_code, 0) << second.err;
      EXPECT_EQ(std::vector<std::uint8_t>(first.out.begin(), first.out.end()),
                std::vector<std::uint8_t>(want.begin(), want.begin() + 1024));
      EXPECT_EQ(std::vector<std::uint8_t>(second.out.begin(), second.out.end()),
                std::vector<std::uint8_t>(want.begin() + 1024, want.end()))
          << alg << " " << engine;
    }
  }
  // 499 bytes of CTR on the CPU: 32 counter blocks, the last partial.
  write_bytes(dir + "/p.bin", std::vector<std::uint8_t>(data.begin(), data.begin() + 499));
  const auto p = test::run_qcesim({"cipher", "--alg", "ctr(aes)", "--engine", "cpu", "--key", hexs(key), "--iv",
                                   hexs(iv), "--iv-out", "iv.txt", "p.bin"},
                                  dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(test::slurp(dir + "/iv.txt"), "0000000000000000000000000000011e\n");
  // Where the driver hands the request to its software fallback the IV is the software's too
  // (the self-tests' aes_ctr vector of 499 bytes): the 2026 driver sends a partial CTR block
  // there, every era AES-192. The engine (2024) leaves the counter on the partial block.
  const auto key24 = test::random_bytes(24, 79);
  for (const auto& [era, k, want_iv] : {std::tuple{"2026", key, "0000000000000000000000000000011e\n"},
                                        std::tuple{"2024", key24, "0000000000000000000000000000011e\n"},
                                        std::tuple{"2024", key, "0000000000000000000000000000011d\n"}}) {
    const auto f = test::run_qcesim({"cipher", "--alg", "ctr(aes)", "--era", era, "--key", hexs(k), "--iv", hexs(iv),
                                     "--iv-out", "iv.txt", "p.bin"},
                                    dir);
    ASSERT_EQ(f.exit_code, 0) << f.err;
    EXPECT_EQ(test::slurp(dir + "/iv.txt"), want_iv) << "era " << era << ", " << k.size() << "-byte key";
  }
  // An AEAD leaves no IV.
  EXPECT_EQ(test::run_qcesim({"cipher", "--alg", "ccm(aes)", "--key", hexs(key), "--iv", "101112131415161718191a1b",
                              "--iv-out", "iv.txt", "a.bin"},
                             dir)
                .exit_code,
            2);
}

// rfc4309(ccm(aes)), which the driver registers (IPsec ESP's CCM): key || 3-byte salt, an 8-byte
// IV, associated data of 16 or 20 bytes ending with the IV's copy, which is not authenticated;
// as OpenSSL's CCM computes it with nonce salt || IV and the associated data without the copy,
// on both engines and register-I/O modes, AES-128 and AES-256, tags of 8, 12 and 16 bytes.
TEST(CipherCommand, Rfc4309MatchesOpenSslCcm) {
  const test::TempDir tmp("cipher-4309");
  const std::string& dir = tmp.path();
  const auto pt = test::random_bytes(1024, 91);
  write_bytes(dir + "/pt.bin", pt);
  unsigned seed = 92;
  for (const std::size_t key_bytes : {16u, 32u}) {
    for (const std::size_t alen : {16u, 20u}) {
      for (const unsigned tag : {8u, 12u, 16u}) {
        const auto key = test::random_bytes(key_bytes, seed++), salt = test::random_bytes(3, seed++),
                   iv = test::random_bytes(8, seed++);
        auto assoc = test::random_bytes(alen - 8, seed++);
        std::vector<std::uint8_t> nonce = salt;
        nonce.insert(nonce.end(), iv.begin(), iv.end());
        const auto want = test::openssl_ccm_encrypt(key, nonce, assoc, pt, tag);
        std::vector<std::uint8_t> full_key = key, req_assoc = assoc;
        full_key.insert(full_key.end(), salt.begin(), salt.end());
        req_assoc.insert(req_assoc.end(), iv.begin(), iv.end());  // ESP puts the IV's copy last
        for (const std::vector<std::string>& how :
             {std::vector<std::string>{"--reg-io", "mmio"}, std::vector<std::string>{"--reg-io", "bam"},
              std::vector<std::string>{"--engine", "cpu"}}) {
          std::vector<std::string> args = {
              "cipher", "--alg",   "rfc4309(ccm(aes))", "--key",       hexs(full_key),      "--iv",
              hexs(iv), "--assoc", hexs(req_assoc),     "--tag-bytes", std::to_string(tag), "pt.bin"};
          args.insert(args.end(), how.begin(), how.end());
          const auto r = test::run_qcesim(args, dir);
          ASSERT_EQ(r.exit_code, 0) << how[1] << ": " << r.err;
          EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()), want)
              << key_bytes << " " << alen << " " << tag << " " << how[1];
          // The IV's copy is not authenticated: another one gives the same output.
          auto other = req_assoc;
          other.back() ^= 0xff;
          auto a2 = args;
          a2[8] = hexs(other);
          const auto r2 = test::run_qcesim(a2, dir);
          EXPECT_EQ(r2.out, r.out) << how[1];
          write_bytes(dir + "/ct.bin", want);
          auto d = args;
          d[11] = "ct.bin";
          d.push_back("--decrypt");
          const auto back = test::run_qcesim(d, dir);
          ASSERT_EQ(back.exit_code, 0) << back.err;
          EXPECT_EQ(std::vector<std::uint8_t>(back.out.begin(), back.out.end()), pt);
          auto bad = want;
          bad[3] ^= 1;
          write_bytes(dir + "/ct.bin", bad);
          EXPECT_EQ(test::run_qcesim(d, dir).exit_code, 1) << how[1];
        }
      }
    }
  }
  // Associated data of another length is -EINVAL (crypto_ipsec_check_assoclen); tags of 4..16 other than 8/12/16 too.
  const auto r = test::run_qcesim({"cipher", "--alg", "rfc4309(ccm(aes))", "--key", std::string(38, '1'), "--iv",
                                   "0102030405060708", "--assoc", std::string(30, '2'), "pt.bin"},
                                  dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("16 or 20 bytes of associated data"), std::string::npos) << r.err;
}

// --platform takes a shipped profile by name, as scenarios are taken: from a folder without it,
// `--platform sm8650` applies SM8650's 2024 driver, whose rules send AES-192 to the software
// fallback (the bare engine, without a platform, has no AES-192 and refuses the key).
TEST(CipherCommand, PlatformByNameAppliesItsDriversFallback) {
  const test::TempDir tmp("cipher-platform");
  const std::string& dir = tmp.path();
  const auto data = test::random_bytes(4096, 41), key = test::random_bytes(24, 42), iv = test::random_bytes(16, 43);
  write_bytes(dir + "/in.bin", data);
  const std::vector<std::string> args = {"cipher", "--alg", "cbc(aes)", "--key", hexs(key), "--iv", hexs(iv), "in.bin"};
  const auto bare = test::run_qcesim(args, dir);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("the engine has no AES-192"), std::string::npos) << bare.err;
  const auto r = test::run_qcesim(test::plus_args(args, {"--platform", "sm8650"}), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::vector<std::uint8_t>(r.out.begin(), r.out.end()),
            test::openssl_cipher(EVP_aes_192_cbc(), true, key, iv, data));
}
