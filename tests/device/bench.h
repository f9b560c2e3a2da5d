// What the device benches share: the CPU's 32-bit register accesses over TLM and running a test's
// body as the CPU's thread of a freshly elaborated bench (one per process).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>

namespace qcesim::test {

// One register read or write through `socket` at `addr`; a failed access fails the test.
template <class Socket>
std::uint32_t reg_access(Socket& socket, tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t value) {
  tlm::tlm_generic_payload t;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(t, delay);
  EXPECT_TRUE(t.is_response_ok()) << std::hex << addr;
  return value;
}

// Runs `body` on the elaborated `bench` as the CPU's thread, until it returns.
template <class Bench>
void run_on(Bench& bench, const std::function<void(Bench&)>& body) {
  sc_core::sc_spawn([&] {
    body(bench);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
}

}  // namespace qcesim::test
