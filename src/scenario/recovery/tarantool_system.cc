// recovery's Tarantool side (system.h): memtx with a snapshot and the WAL, box.cfg
// wal_mode write or fsync, memtx_memory from --memory (MemtxMemory); replace/select on
// space `memstand` over IPROTO; box.snapshot() after the fill, so that a restart reads
// the snapshot and the WAL written under load; the data's size is
// box.slab.info().arena_used; loading done is box.info.status 'running', polled over
// IPROTO from the first accepted connection on.
#include <chrono>
#include <fstream>
#include <thread>

#include "core/clock.h"
#include "load/proto_control.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/recovery/configurations.h"
#include "scenario/recovery/system.h"

namespace memstand {
namespace {

constexpr int kTarantoolControlMs = 1000;
// box.snapshot() of the fill, and the count of every tuple after the restart.
constexpr int kTarantoolLongMs = 120'000;
constexpr auto kTarantoolWatchPoll = std::chrono::milliseconds(2);
// memtx's memory per tuple beyond the value: the tuple's header and MsgPack, the slab
// class's rounding (classes 5% apart) and the hash index's entry; 1000 B values took
// 1108 B of arena_used each here.
constexpr uint64_t kTarantoolPerKeyOverhead = 110;
// Run on every start after box.cfg: on a restart the recovered schema is already there.
constexpr char kTarantoolRecoveryInit[] =
    "box.schema.user.grant('guest', 'read,write,execute', 'universe', nil, {if_not_exists = true})\n"
    "local s = box.schema.space.create('memstand', {if_not_exists = true})\n"
    "s:create_index('primary', {type = 'hash', parts = {1, 'string'}, if_not_exists = true})\n";
constexpr char kArenaUsed[] = "return {arena_used = box.slab.info().arena_used}";
constexpr char kCountTuples[] =
    "local n, f = 0, 0\n"
    "for _, t in box.space.memstand:pairs() do\n"
    "  n = n + 1\n"
    "  if string.sub(t[1], 1, 5) == 'fill-' then f = f + 1 end\n"
    "end\n"
    "return {keys = n, fill = f}";

Result<std::unique_ptr<ProtoControl>> TarantoolControl(const NodeRecord& n, int timeout_ms) {
  return ProtoControl::Connect(Protocol::kIproto, TargetOfNode(n, Protocol::kIproto), timeout_ms);
}

// box.info.status over `c`: "loading", "orphan", "running", ...
Result<std::string> BoxStatus(ProtoControl& c) {
  auto r = c.Eval("return box.info.status", iproto::Value::Array({}));
  if (!r.ok()) return r.status();
  if (r->size() < 1 || r->items()[0].type() != iproto::Value::Type::kString) {
    return Status::Protocol("box.info.status: not a string: " + iproto::ToString(*r));
  }
  return r->items()[0].str();
}

class TarantoolSide : public RecoverySystem {
 public:
  Protocol protocol() const override { return Protocol::kIproto; }
  const char* name() const override { return "tarantool"; }

  Result<TopologySpec> Spec(const std::string& configuration, uint64_t memory,
                            const std::string& folder) const override {
    TopologySpec spec;
    spec.kind = TopologyKind::kTarantool;
    // No checkpoint but the scenario's own (box.snapshot() after the fill).
    spec.settings = {{"memtx_memory", std::to_string(MemtxMemory(memory))},
                     {"wal_mode", WalModeOf(configuration)},
                     {"checkpoint_interval", "0"}};
    spec.init_lua = folder + "/tarantool-init.lua";
    std::ofstream out(spec.init_lua, std::ios::trunc);
    out << kTarantoolRecoveryInit;
    out.close();
    if (!out) return Status::IoError("cannot write " + spec.init_lua);
    return spec;
  }

  std::string FillCommand() const override { return "replace memstand [__key__, __data__]"; }
  std::vector<std::string> LoadCommands() const override {
    return {"replace memstand [__key__, __data__]", "select memstand 0 [__key__]"};
  }
  uint64_t PerKeyOverhead() const override { return kTarantoolPerKeyOverhead; }

  Result<int64_t> DataSize(const NodeRecord& n) const override {
    auto c = TarantoolControl(n, kTarantoolControlMs);
    if (!c.ok()) return c.status();
    auto counters = (*c)->EvalCounters(kArenaUsed, "box.slab.info()");
    if (!counters.ok()) return counters.status();
    return (*counters)["arena_used"];
  }

  // A checkpoint of the fill: the restart reads this snapshot and the WAL after it.
  Status AfterFill(const NodeRecord& n, const std::string&, const ScenarioContext&) const override {
    auto c = TarantoolControl(n, kTarantoolLongMs);
    if (!c.ok()) return c.status();
    auto r = (*c)->Eval("box.snapshot()", iproto::Value::Array({}));
    if (!r.ok()) return r.status().WithContext("box.snapshot()");
    return Status::OK();
  }

  void FilesOnDisk(const std::string& dir, RecoveryCell* cell) const override {
    cell->snap_bytes = FilesBytes(dir, ".snap");
    cell->xlog_bytes = FilesBytes(dir, ".xlog");
  }

  bool WatchesLoaded() const override { return true; }

  // A connection every 2 ms until one is accepted (the greeting read), then
  // box.info.status on it every 2 ms until 'running'; a connection lost meanwhile is
  // opened again.
  void Watch(const NodeRecord& n, const std::atomic<bool>& restarting, const std::atomic<bool>& stop,
             RecoveryWatch* seen) const override {
    while (!stop.load() && !restarting.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::unique_ptr<ProtoControl> c;
    while (!stop.load()) {
      if (c == nullptr) {
        auto opened = TarantoolControl(n, kTarantoolControlMs);  // refused at once while down
        if (opened.ok()) {
          if (seen->accept_unix_ns == 0) seen->accept_unix_ns = UnixNowNs();
          c = std::move(*opened);
        }
      }
      if (c != nullptr) {
        auto status = BoxStatus(*c);
        if (status.ok() && *status == "running") {
          seen->loaded_unix_ns = UnixNowNs();
          return;
        }
        if (!status.ok()) c.reset();
      }
      std::this_thread::sleep_for(kTarantoolWatchPoll);
    }
  }

  void CountAfter(const NodeRecord& n, RecoveryCell* cell) const override {
    auto c = TarantoolControl(n, kTarantoolLongMs);
    if (!c.ok()) return;
    auto counters = (*c)->EvalCounters(kCountTuples, "the tuples of space memstand");
    if (!counters.ok()) return;
    cell->keys_after = (*counters)["keys"];
    cell->fill_present = (*counters)["fill"];
  }
};

}  // namespace

const RecoverySystem& TarantoolRecoverySystem() {
  static const TarantoolSide kSide;
  return kSide;
}

}  // namespace memstand
