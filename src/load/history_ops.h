// --history: what each command of the mix is to a register (docs/history.md#what-run-records):
// a read of its key or a write of a value to it. The history holds registers only, so a
// mix with any other command is refused before the run.
#pragma once

#include <string>
#include <vector>

#include "history/record.h"
#include "load/iproto_request.h"
#include "load/load_options.h"
#include "util/status.h"

namespace memstand {

struct HistoryPlan {
  std::vector<history::Op> ops;  // by command index
  /// What every key begins with: the text before __key__ in the commands (the same in
  /// all of them: `{tag}__key__`), then --key-prefix.
  std::string key_prefix;
  /// Tarantool: the keys are numbers (__keynum__), and the tuple field (from 0) that
  /// holds a write's value. The space's id is known once its name is resolved
  /// (HistorySpace).
  bool key_numbers = false;
  uint16_t value_field = 0;
};

/// InvalidArgument naming the first command that is neither a read nor a write of one
/// key, or that names its keys otherwise than the others (Tarantool: another space, or
/// another field for the value); values too short to carry a write's tag.
Result<HistoryPlan> PlanHistory(const LoadOptions& opt);

/// Tarantool: the id of the space the requests read and write (their names resolved);
/// 0 for another protocol's requests.
uint32_t HistorySpace(const std::vector<IprotoRequest>& requests);
template <class Request>
uint32_t HistorySpace(const std::vector<Request>&) {
  return 0;
}

/// The history's kind of target for a protocol.
history::TargetKind HistoryTargetKind(Protocol p);

}  // namespace memstand
