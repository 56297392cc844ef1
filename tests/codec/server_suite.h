// A gtest fixture base for tests against one real server: the server started once per
// suite and stopped after it, a blocking connection to it opened by each test that
// wants one.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "codec/server_util.h"

namespace memstand::codec_test {

/// Suite derives as `class X : public ServerSuiteTest<X>` (or `<X, Server>` for another
/// server type with port()) and defines a public
/// `static Result<std::unique_ptr<Server>> StartServer()`.
template <typename Suite, typename Server = TestServer>
class ServerSuiteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto server = Suite::StartServer();
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = server->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  /// Opens conn_ to the server; a fatal failure if there is none or it cannot.
  void Connect() {
    ASSERT_NE(server_, nullptr);
    auto conn = BlockingConn::Connect(server_->port());
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(*conn);
  }

  static inline Server* server_ = nullptr;
  std::unique_ptr<BlockingConn> conn_;
};

}  // namespace memstand::codec_test
