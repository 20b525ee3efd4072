// A fixture for tests that set the proxy variables (http_proxy, no_proxy...): none is set when
// a test starts, and none is left when it ends.
#pragma once

#include <gtest/gtest.h>

#include "support/process.h"

namespace squall::test {

class ProxyEnvironmentTest : public testing::Test {
 protected:
  void SetUp() override { clear_proxy_environment(); }
  void TearDown() override { clear_proxy_environment(); }
};

}  // namespace squall::test
