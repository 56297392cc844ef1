// A gtest fixture base for tests that talk IPROTO to a real Tarantool: one server per
// suite, running the suite's init Lua, and a fresh connection past the greeting for
// every test. Plus shorthands for building expected MessagePack values.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codec/server_suite.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/iproto.h"

namespace memstand::codec_test {

inline iproto::Value U(uint64_t u) { return iproto::Value::Uint(u); }
inline iproto::Value S(std::string s) { return iproto::Value::String(std::move(s)); }
inline iproto::Value A(std::vector<iproto::Value> v) { return iproto::Value::Array(std::move(v)); }

/// Suite derives as `class X : public TarantoolTest<X>` and defines
/// `static constexpr const char* kInitLua`, whose box.cfg must listen on "{PORT}".
template <typename Suite>
class TarantoolTest : public ServerSuiteTest<TarantoolTest<Suite>> {
 public:
  static Result<std::unique_ptr<TestServer>> StartServer() { return StartTarantool(Suite::kInitLua); }

 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(this->Connect());
    auto bytes = this->conn_->ReadExactly(iproto::kGreetingSize);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    auto greeting = iproto::ParseGreeting(*bytes);
    ASSERT_TRUE(greeting.ok()) << greeting.status().message();
    greeting_ = *greeting;
  }

  iproto::Greeting greeting_;
};

}  // namespace memstand::codec_test
