// A history as Jepsen's operations, so that Knossos or Elle can check the same run
// (docs/history.md#export): one map per line, an invoke and a completion (:ok, :fail,
// :info) per operation, in time order, :index counting from 0, :process the client,
// :time in nanoseconds. Keys are their indices (integers); a value is its ValueId as an
// integer (client * 2^32 + seq), nil for an absent key, "foreign" for bytes of another run.
// Each nemesis event is two lines of :process :nemesis, :type :info (its start and end).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "history/record.h"
#include "util/status.h"

namespace memstand::history {

enum class JepsenSyntax { kEdn, kJson };

enum class JepsenModel {
  /// Knossos's cas-register over independent keys: :f :read / :write / :cas, :value
  /// [key v] (a cas's v is [expected new]).
  kCasRegister,
  /// Elle's rw-register: :f :txn, :value [[:r key v]] or [[:w key v]]. No cas.
  kRwRegister,
};

/// Writes the lines (two per record and two per event) to `sink` in pieces (about 1 MiB each); the first error the sink
/// returns ends the export and is returned. InvalidArgument (before anything is written)
/// for a history with a cas exported as kRwRegister.
Status ExportJepsen(const History& h, JepsenSyntax syntax, JepsenModel model,
                    const std::function<Status(std::string_view)>& sink);

}  // namespace memstand::history
