// libsystemc owns main() and calls sc_main; GoogleTest runs from here. ctest runs each test
// in its own process (gtest_discover_tests), which SystemC's one elaboration per process needs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

namespace {
const int kQuietBanner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
