// What one run of stretched-cache recorded (every operation's time and the relay's
// counts over it), and how it becomes the report: blocks (a)-(f), the WAIT invariant,
// the JSON fields and the evidence tables (docs/scenarios/stretched-cache.md). The
// procedure that fills these is stretched_cache.cc.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "relay/relay_stats.h"
#include "scenario/scenario.h"
#include "scenario/stretched_cache/figures.h"
#include "scenario/stretched_cache/pair.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {

/// What the client sends per operation, on its one connection.
enum class ClientMode {
  kSet,         // SET, its reply
  kSequential,  // SET, its reply, then WAIT 1 T, its reply
  kPipelined,   // SET and WAIT 1 T in one write, both replies
  kGet,         // GET of one key
};

/// "set", "sequential", "pipelined", "get" (JSON and CSV).
const char* ClientModeName(ClientMode mode);

struct OpSample {
  int index = 0;     // 1-based within its series
  int position = 0;  // its place in its round (1-based; the order alternates)
  int64_t ns = 0;
  int64_t wait = -1;  // WAIT's integer reply; -1: no WAIT in this operation
  std::string other;  // a WAIT reply that is no integer: its text
  LinkDelta repl;     // the relay's replication link over the operation (zero: no relay)
  LinkDelta client;   // the relay's client link over the operation
};

/// N operations of one kind under one condition.
struct Series {
  std::string block;      // "a" .. "e"
  std::string condition;  // "no relay", "nodelay off", "idle", "under load", "pipelined", ...
  ClientMode mode = ClientMode::kSet;
  std::string path = "direct";  // the client's connection: "direct" or "relay" (link 1)
  int64_t one_way_ns = -1;      // the relay's delay; -1: no relay on the replication
  std::string relay_mode;       // "pipelined", "serializing"; "" without a relay
  bool nodelay = true;
  std::vector<OpSample> samples;
  std::string failure;

  /// "(d) 20ms serializing sequential"-style name for messages.
  std::string Name() const;
  /// WAIT operations, those that answered 1, and the other answers by text.
  int64_t waits() const;
  int64_t ones() const;
  std::map<std::string, int64_t> other_answers() const;
};

/// One relay's counts over one measured stretch (the differences of two snapshots).
struct RelayRun {
  std::string block, condition;
  std::string settings;  // "delay 5ms, pipelined, TCP_NODELAY on"
  RelayStats during;
};

/// Block (c) under load: the background writer's SETs under one relay mode.
struct BackgroundCounts {
  int64_t writes = 0;  // answered
  int64_t errors = 0;
};

struct StretchedRun {
  int run = 1;
  std::vector<Series> series;
  std::vector<RelayRun> relays;
  std::vector<LinkCheck> checks;
  std::string failure;  // why the run stopped early ("" if it did not)
  std::map<std::string, BackgroundCounts> background;  // by relay mode
  double seconds = 0;  // the run's wall time, servers included
};

/// Fills the report's procedure, limits, blocks, invariants, JSON, tables and verdict.
/// A run and distance whose serializing relay read more than kMaxOneChunkPercent of the
/// sequential client's operations as one chunk prints no serializing - pipelined figure
/// for that client (JSON `valid` false) and fails the report (an instrument check).
void FillStretchedReport(const StretchedCacheOptions& options, const std::vector<StretchedRun>& runs,
                         bool interrupted, ScenarioReport* report);

}  // namespace memstand
