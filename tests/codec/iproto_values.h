// Short builders of IPROTO values for the codec tests: U(1), S("a"), A({U(1), S("a")}).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proto/iproto/value.h"

namespace memstand::iproto::testing {

inline Value U(uint64_t u) { return Value::Uint(u); }
inline Value I(int64_t i) { return Value::Int(i); }
inline Value S(std::string s) { return Value::String(std::move(s)); }
inline Value A(std::vector<Value> v) { return Value::Array(std::move(v)); }

}  // namespace memstand::iproto::testing
