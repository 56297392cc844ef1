// libFuzzer target: the Tarantool request template parser (iproto::RequestTemplate).
// Whatever parses must encode into one well-formed IPROTO packet: the length prefix
// equal to what follows, a header map {REQUEST_TYPE: type, SYNC: sync} and, but for
// ping, one body map, every value decodable; within MaxSize(); the same bytes for the
// same rng seed. A refused template must say why, with a column (or that it is empty
// or too large).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/iproto/request_template.h"
#include "proto/iproto/value.h"

namespace {

using memstand::Buffer;
using memstand::Rng;
using memstand::iproto::RequestTemplate;
using memstand::iproto::TemplateArgs;
using memstand::iproto::Value;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// One packet; traps unless it is well formed.
void CheckPacket(std::string_view bytes, const RequestTemplate& t, uint64_t sync) {
  Check(bytes.size() >= 5 && static_cast<uint8_t>(bytes[0]) == 0xce);
  uint32_t len = 0;
  for (int i = 1; i <= 4; ++i) len = (len << 8) | static_cast<uint8_t>(bytes[i]);
  Check(len == bytes.size() - 5);
  bytes.remove_prefix(5);
  auto header = memstand::iproto::Decode(&bytes);
  Check(header.ok() && header->type() == Value::Type::kMap && header->size() == 2);
  Check(header->items()[0] == Value::Uint(0) && header->items()[1] == Value::Uint(t.type()));
  Check(header->items()[2] == Value::Uint(1) && header->items()[3] == Value::Uint(sync));
  if (t.type() != memstand::iproto::kPing) {
    auto body = memstand::iproto::Decode(&bytes);
    Check(body.ok() && body->type() == Value::Type::kMap);
  }
  Check(bytes.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = RequestTemplate::Parse(text);
  if (!t.ok()) {
    const std::string& m = t.status().message();
    Check(m.find(" at column ") != std::string::npos || m.find("empty") == 0 ||
          m.find("the request would be larger") == 0);
    return 0;
  }
  const std::string value(size % 300, 'v');  // str headers of every width up to 300
  for (uint64_t sync : {uint64_t{0}, uint64_t{size}, UINT64_MAX}) {
    Rng rng(sync), same(sync);
    TemplateArgs a{.key_index = sync * 7919, .key_prefix = "k:", .data = value, .seq = ~sync, .rng = &rng};
    if (t->MaxSize(a) > (4u << 20)) return 0;  // bounded work per input
    Buffer out(64), again(64);
    const size_t n = t->Append(&out, sync, a);
    Check(n == out.Readable() && n <= t->MaxSize(a));
    CheckPacket(out.View(), *t, sync);
    a.rng = &same;
    t->Append(&again, sync, a);
    Check(again.View() == out.View());
  }
  return 0;
}
