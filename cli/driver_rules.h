// The qce driver's kernel-era rules that `cipher` and `hash` take from --platform and --era.
#pragma once

#include <string>

#include "drivers/crypto/qce/fallback.h"
#include "model/profile.h"

namespace qcesim::cli {

// A --platform profile: Profile::load, its errors naming the option as well as the file
// ("--platform x.json: expected ..., found ...").
model::Profile load_platform(const std::string& file);

// The platform profile's driver.era and aes_sw_max_len (none: no rules), then --era over the era
// (era < 0: not given). An era without a platform keeps CONFIG_CRYPTO_DEV_QCE_SW_MAX_LEN's
// default, 512 bytes. Returns "" or the option's error: "--era: expected ..., found N".
std::string select_driver_rules(const model::Profile* platform, int era, qce::QceRules& rules);

}  // namespace qcesim::cli
