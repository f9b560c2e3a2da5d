// QCE v5 register subset, named and placed as drivers/crypto/qce/regs-v5.h has them.
// Shared by the engine model (qce.cpp) and the driver (qce_driver.cpp).
#pragma once

#include <cstdint>

namespace qcesim::qce {

constexpr std::uint32_t REG_VERSION = 0x000;
constexpr std::uint32_t REG_STATUS = 0x100;
constexpr std::uint32_t REG_STATUS2 = 0x104;
constexpr std::uint32_t REG_ENGINES_AVAIL = 0x108;
constexpr std::uint32_t REG_FIFO_SIZES = 0x10c;
constexpr std::uint32_t REG_SEG_SIZE = 0x110;
constexpr std::uint32_t REG_GOPROC = 0x120;
constexpr std::uint32_t REG_ENCR_SEG_CFG = 0x200;
constexpr std::uint32_t REG_ENCR_SEG_SIZE = 0x204;
constexpr std::uint32_t REG_ENCR_SEG_START = 0x208;
constexpr std::uint32_t REG_CNTR0_IV0 = 0x20c;
constexpr std::uint32_t REG_CNTR1_IV1 = 0x210;
constexpr std::uint32_t REG_CNTR2_IV2 = 0x214;
constexpr std::uint32_t REG_CNTR3_IV3 = 0x218;
constexpr std::uint32_t REG_CNTR_MASK = 0x21c;
constexpr std::uint32_t REG_ENCR_CCM_INT_CNTR0 = 0x220;
constexpr std::uint32_t REG_ENCR_XTS_DU_SIZE = 0x230;
constexpr std::uint32_t REG_CNTR_MASK2 = 0x234;
constexpr std::uint32_t REG_CNTR_MASK1 = 0x238;
constexpr std::uint32_t REG_CNTR_MASK0 = 0x23c;
constexpr std::uint32_t REG_AUTH_SEG_CFG = 0x300;
constexpr std::uint32_t REG_AUTH_SEG_SIZE = 0x304;
constexpr std::uint32_t REG_AUTH_SEG_START = 0x308;
constexpr std::uint32_t REG_AUTH_IV0 = 0x310;          // ..AUTH_IV15 at 0x34c
constexpr std::uint32_t REG_AUTH_INFO_NONCE0 = 0x350;  // ..3 at 0x35c: CCM's B0
constexpr std::uint32_t REG_AUTH_BYTECNT0 = 0x390;     // ..AUTH_BYTECNT3 at 0x39c
constexpr std::uint32_t REG_CONFIG = 0x400;
constexpr std::uint32_t REG_ENCR_KEY0 = 0x3000;      // ..7
constexpr std::uint32_t REG_ENCR_XTS_KEY0 = 0x3020;  // ..7
constexpr std::uint32_t REG_AUTH_KEY0 = 0x3040;      // ..15

constexpr unsigned AUTH_IV_WORDS = 16;
constexpr unsigned AUTH_BYTECNT_WORDS = 4;
constexpr unsigned AUTH_KEY_WORDS = 16;

// STATUS
constexpr std::uint32_t SW_ERR = 1u << 0;
constexpr std::uint32_t OPERATION_DONE = 1u << 1;
constexpr std::uint32_t DIN_RDY = 1u << 2;
constexpr std::uint32_t DOUT_RDY = 1u << 3;
constexpr std::uint32_t ERR_INTR = 1u << 4;
constexpr std::uint32_t OP_DONE_INTR = 1u << 5;
constexpr std::uint32_t DIN_INTR = 1u << 6;
constexpr std::uint32_t DOUT_INTR = 1u << 7;
constexpr std::uint32_t AUTH_BUSY = 1u << 8;
constexpr std::uint32_t ENCR_BUSY = 1u << 9;
constexpr std::uint32_t CRYPTO_STATE_SHIFT = 10;  // [13:10]
constexpr std::uint32_t AXI_ERR = 1u << 14;
constexpr std::uint32_t DIN_ERR = 1u << 15;
constexpr std::uint32_t DOUT_ERR = 1u << 16;
constexpr std::uint32_t CFG_CHNG_ERR = 1u << 17;
constexpr std::uint32_t PIPE_ACTIVE_ERR = 1u << 18;
constexpr std::uint32_t ACCESS_VIOL = 1u << 19;
constexpr std::uint32_t HSD_ERR = 1u << 20;
constexpr std::uint32_t MAC_FAILED = 1u << 31;

// STATUS2
constexpr std::uint32_t AXI_EXTRA = 1u << 1;
constexpr std::uint32_t STATUS2_LOCKED = 1u << 2;

// ENGINES_AVAIL
constexpr std::uint32_t SHA_SEL = 1u << 4;
constexpr std::uint32_t BAM_PIPE_SETS_SHIFT = 9;  // [12:9]

// GOPROC
constexpr std::uint32_t GO = 1u << 0;
constexpr std::uint32_t CLR_CNTXT = 1u << 1;
constexpr std::uint32_t RESULTS_DUMP = 1u << 2;

// AUTH_SEG_CFG
constexpr std::uint32_t AUTH_ALG_SHIFT = 0;  // [2:0]
constexpr std::uint32_t AUTH_ALG_NONE = 0;
constexpr std::uint32_t AUTH_ALG_SHA = 1;
constexpr std::uint32_t AUTH_ALG_AES = 2;
constexpr std::uint32_t AUTH_KEY_SIZE_SHIFT = 3;  // [5:3]
constexpr std::uint32_t AUTH_KEY_SZ_AES128 = 0;
constexpr std::uint32_t AUTH_KEY_SZ_AES256 = 2;
constexpr std::uint32_t AUTH_MODE_SHIFT = 6;  // [8:6]
constexpr std::uint32_t AUTH_MODE_HASH = 0;   // with ALG SHA
constexpr std::uint32_t AUTH_MODE_CCM = 0;    // with ALG AES
constexpr std::uint32_t AUTH_MODE_HMAC = 1;
constexpr std::uint32_t AUTH_SIZE_SHIFT = 9;  // [13:9]
constexpr std::uint32_t AUTH_SIZE_SHA1 = 0;
constexpr std::uint32_t AUTH_SIZE_SHA256 = 1;  // (with ALG AES, SIZE is the CCM MAC's bytes - 1)
constexpr std::uint32_t AUTH_POS_SHIFT = 14;   // [15:14]: hash the input (BEFORE) or the cipher's output (AFTER)
constexpr std::uint32_t AUTH_POS_BEFORE = 0;
constexpr std::uint32_t AUTH_POS_AFTER = 1;
constexpr std::uint32_t AUTH_LAST = 1u << 16;
constexpr std::uint32_t AUTH_FIRST = 1u << 17;
constexpr std::uint32_t AUTH_USE_HW_KEY = 1u << 18;
constexpr std::uint32_t AUTH_USE_PIPE_KEY = 1u << 19;
constexpr std::uint32_t AUTH_NONCE_NUM_WORDS_SHIFT = 20;  // [22:20]
constexpr std::uint32_t AUTH_F9_DIRECTION = 1u << 23;
constexpr std::uint32_t AUTH_COMP_EXP_MAC = 1u << 24;

// ENCR_SEG_CFG
constexpr std::uint32_t ENCR_ALG_SHIFT = 0;  // [2:0]
constexpr std::uint32_t ENCR_ALG_NONE = 0;
constexpr std::uint32_t ENCR_ALG_DES = 1;
constexpr std::uint32_t ENCR_ALG_AES = 2;
constexpr std::uint32_t ENCR_KEY_SZ_SHIFT = 3;  // [5:3]
constexpr std::uint32_t ENCR_KEY_SZ_DES = 0;
constexpr std::uint32_t ENCR_KEY_SZ_3DES = 1;
constexpr std::uint32_t ENCR_KEY_SZ_AES128 = 0;
constexpr std::uint32_t ENCR_KEY_SZ_AES256 = 2;
constexpr std::uint32_t ENCR_MODE_SHIFT = 6;  // [9:6]
constexpr std::uint32_t ENCR_MODE_ECB = 0;
constexpr std::uint32_t ENCR_MODE_CBC = 1;
constexpr std::uint32_t ENCR_MODE_CTR = 2;
constexpr std::uint32_t ENCR_MODE_XTS = 3;
constexpr std::uint32_t ENCR_MODE_CCM = 4;
constexpr std::uint32_t ENCODE = 1u << 10;
constexpr std::uint32_t CNTR_ALG_SHIFT = 11;  // [12:11], 0: NIST
constexpr std::uint32_t LAST_CCM = 1u << 13;

// CONFIG
constexpr std::uint32_t MASK_ERR_INTR = 1u << 0;
constexpr std::uint32_t MASK_OP_DONE_INTR = 1u << 1;
constexpr std::uint32_t MASK_DIN_INTR = 1u << 2;
constexpr std::uint32_t MASK_DOUT_INTR = 1u << 3;
constexpr std::uint32_t HIGH_SPD_EN_N_SHIFT = 4;
constexpr std::uint32_t PIPE_SET_SELECT_SHIFT = 5;  // [8:5]
constexpr std::uint32_t PIPE_SET_SELECT_MASK = 0xFu << PIPE_SET_SELECT_SHIFT;
constexpr std::uint32_t LITTLE_ENDIAN_MODE = 1u << 9;
constexpr std::uint32_t REQ_SIZE_SHIFT = 17;  // [20:17], beats - 1

// struct qce_result_dump: what GO|RESULTS_DUMP pushes through the producer pipe.
constexpr unsigned RESULT_DUMP_BYTES = 104;  // auth_iv[16], auth_byte_count[4], encr_cntr_iv[4], status, status2
constexpr unsigned QCE_RESULT_BUF_SZ = 128;  // ALIGN(104, 64): what the driver maps for it
constexpr unsigned DUMP_AUTH_IV = 0;
constexpr unsigned DUMP_AUTH_BYTECNT = 64;
constexpr unsigned DUMP_ENCR_CNTR_IV = 80;
constexpr unsigned DUMP_STATUS = 96;
constexpr unsigned DUMP_STATUS2 = 100;

}  // namespace qcesim::qce
