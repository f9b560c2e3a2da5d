// The workloads a replay runs through the request loop (studies/request_loop.h), each a pool of
// messages in DRAM with, when the run has real data, their reference outputs computed on the
// host: hashes (hash_workload.cpp) and ciphers and AEADs (cipher_workload.cpp).
#pragma once

#include <memory>

#include "studies/request_loop.h"

namespace qcesim::studies {

// workload.algorithm a hash: one message per request, the CPU path the kernel's SHA library on
// the caller's core (variant.ce_interleave messages per call), the engine path's digests checked
// (and compressed ahead by the helper thread when the SoC has one: soc.qce.hash_ahead).
std::unique_ptr<RequestWorkload> make_hash_workload(Emulator& e, const Workload& w, const Variant& v, bool check);

// workload.algorithm an skcipher or an AEAD: encrypted or decrypted out of place, one request per
// message; the CPU path the implementation the kernel picks on the profile's core
// (cpu/soft_crypto.h); on the engine path the kernel era's rules send some requests to the
// driver's software fallback, as qce_skcipher_crypt and qce_aead_crypt do (qce::QceError when
// they refuse the workload's requests).
std::unique_ptr<RequestWorkload> make_cipher_workload(Emulator& e, const Workload& w, const EmulatorConfig& cfg,
                                                      bool engine, bool check);

}  // namespace qcesim::studies
