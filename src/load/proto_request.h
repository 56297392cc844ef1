// What the load engine's requests for memcached, etcd and Tarantool share
// (memcache_request.h, etcd_request.h, iproto_request.h, one class per protocol, which
// its session appends): the values of one request, and the rendering of a text
// template's argument with its placeholders in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/rng.h"
#include "workload/command_template.h"

namespace memstand {

/// What one request is made of. `scratch` is the caller's (its session's): its
/// capacity is kept, so steady state does not allocate.
struct ProtoArgs {
  uint64_t key_index = 0;
  std::string_view data;
  uint64_t sync = 0;  // IPROTO only
  std::string* scratch = nullptr;
  std::string* scratch2 = nullptr;
  uint64_t seq = 0;     // IPROTO __seq__
  Rng* rng = nullptr;   // IPROTO __rand:N__ / __int:A:B__; REQUIRES non-null if uses_rng()
};

/// A text template's argument (memcache, etcd) with __key__ (key_prefix and the decimal
/// key index) and __data__ in place: the data or the literal itself when the argument
/// is only that, else assembled in *scratch.
std::string_view RenderArg(const TemplateArg& arg, std::string_view key_prefix, const ProtoArgs& a,
                           std::string* scratch);
/// The longest an argument renders to with key indexes up to key_max (__data__ not
/// counted).
size_t LongestArg(const TemplateArg& arg, size_t key_prefix_size, uint64_t key_max);
/// Whether an argument holds a placeholder of this kind.
bool HasPart(const TemplateArg& arg, TemplatePart::Kind kind);

/// Tarantool's name of a box error code: 3 -> "ER_TUPLE_FOUND"; "ER_<code>" if unknown.
std::string IprotoErrorName(uint32_t code);
/// Whether a box error leaves open whether the request took effect: ER_TIMEOUT (78) and
/// ER_SYNC_QUORUM_TIMEOUT (216: a synchronous transaction whose quorum was not
/// gathered in time, which replicas may keep). ER_SYNC_ROLLBACK (217) and the rest say
/// it did not.
inline bool IprotoErrorIndefinite(uint32_t code) { return code == 78 || code == 216; }

}  // namespace memstand
