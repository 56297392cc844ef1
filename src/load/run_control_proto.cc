// memcached's, etcd's and Tarantool's control side of a run (load/run_control.h): a
// ProtoControl per pool member; memcached `stats`, etcd's revision and Tarantool's
// box.stat() before and after the load, cross-checked with what memstand sent.
#include <set>

#include "load/proto_control.h"
#include "load/run_control.h"

namespace memstand {

namespace {

using Controls = std::vector<std::unique_ptr<ProtoControl>>;

int64_t CountOf(const std::map<std::string, int64_t>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

class ProtoRunControl final : public RunControl {
 public:
  explicit ProtoRunControl(const LoadOptions& opt) : opt_(opt) {}

  ControlSnapshot Snapshot() override;
  Counts FleetCounts() override {
    std::vector<Counts> each;
    return SumCounters(&each);
  }
  std::map<std::string, int64_t> LoadCounts(const std::vector<std::string>& stats,
                                            const ThreadStats& totals) const override;
  void Compare(const std::map<std::string, int64_t>& sent, const ControlSnapshot& before,
               const ControlSnapshot& after, CrossCheck* cc) const override;
  std::string tls_description() const override { return controls_.front()->tls_description(); }
  Result<uint32_t> SpaceId(const std::string& name) override;

  Controls controls_;  // one per pool member, each checking what its server speaks

 private:
  /// The counters of every member, and their sum (the first failure if one fails).
  Counts SumCounters(std::vector<Counts>* each);

  const LoadOptions& opt_;
};

// Members that share one store (endpoints of one etcd cluster) count it once.
Counts ProtoRunControl::SumCounters(std::vector<Counts>* each) {
  std::map<std::string, int64_t> sum;
  std::set<uint64_t> stores;
  Status failed;
  for (const auto& c : controls_) {
    each->push_back(c->Counters());
    if (!each->back().ok()) {
      if (failed.ok()) failed = each->back().status();
      continue;
    }
    const uint64_t store = c->shared_store_id();
    if (store != 0 && !stores.insert(store).second) continue;
    for (const auto& [name, n] : *each->back()) sum[name] += n;
  }
  if (!failed.ok()) return failed;
  return sum;
}

ControlSnapshot ProtoRunControl::Snapshot() {
  ControlSnapshot s;
  for (const auto& c : controls_) {
    for (const auto& [name, n] : c->sent()) s.control_sent[name] += n;
  }
  s.counts = SumCounters(&s.each);
  s.fleet = s.counts;
  s.version = controls_.front()->version();
  return s;
}

// A Tarantool space's id, the same on every member of a pool (else the requests,
// encoded once for all connections, would write to different spaces).
Result<uint32_t> ProtoRunControl::SpaceId(const std::string& name) {
  auto first = controls_.front()->SpaceId(name);
  if (!first.ok() && controls_.size() > 1) return first.status().WithContext(opt_.pool_target(0).Display());
  for (size_t i = 1; i < controls_.size(); ++i) {
    auto id = controls_[i]->SpaceId(name);
    if (!id.ok()) return id.status().WithContext(opt_.pool_target(static_cast<int>(i)).Display());
    if (*id != *first) {
      return Status::Failed("space '" + name + "' has id " + std::to_string(*first) + " on " +
                            opt_.target.Display() + " but " + std::to_string(*id) + " on " +
                            opt_.pool_target(static_cast<int>(i)).Display() +
                            ": a pool's members must define their spaces alike");
    }
  }
  return first;
}

// What memstand did, in the server's counter names (see ProtoControl::Counters).
std::map<std::string, int64_t> ProtoRunControl::LoadCounts(const std::vector<std::string>& stats,
                                                           const ThreadStats& t) const {
  std::map<std::string, int64_t> sent;
  if (opt_.protocol == Protocol::kEtcd) {
    sent["revision"] = static_cast<int64_t>(t.writes_applied);
    return sent;
  }
  for (size_t i = 0; i < stats.size(); ++i) {
    const std::string& name = stats[i];
    if (name.empty()) continue;
    sent[name] += static_cast<int64_t>(t.sent_by_command[i]);
    if (name == "incr" || name == "decr") {  // memcached counts a CLIENT_ERROR in neither
      sent[name] -= static_cast<int64_t>(t.error_replies_all[i]);
    }
  }
  if (opt_.protocol == Protocol::kMemcache && sent.count("cmd_get")) {
    sent["get_hits"] = static_cast<int64_t>(t.get_hits_all);
    sent["get_misses"] = static_cast<int64_t>(t.get_misses_all);
  }
  if (auto it = t.setup_commands.find("auth"); it != t.setup_commands.end()) {
    sent["AUTH"] += static_cast<int64_t>(it->second);
  }
  return sent;
}

void ProtoRunControl::Compare(const std::map<std::string, int64_t>& sent, const ControlSnapshot& before,
                              const ControlSnapshot& after, CrossCheck* cc) const {
  // Server counters that a request of memstand's could move, compared even at 0 sent.
  std::set<std::string> names;
  for (const auto& [name, n] : sent) names.insert(name);
  if (opt_.protocol == Protocol::kMemcache) names.insert({"cmd_get", "cmd_set"});
  if (opt_.protocol == Protocol::kIproto) {
    names.insert({"SELECT", "INSERT", "REPLACE", "DELETE", "UPDATE", "UPSERT", "CALL", "EVAL", "AUTH"});
  }
  // IPROTO: Lua that the load calls (call, eval) moves box.stat()'s DML counters by
  // whatever it does; a DML kind the load did not send itself is then not compared.
  bool runs_lua = false;
  if (opt_.protocol == Protocol::kIproto) {
    for (const CommandSpec& c : opt_.commands) runs_lua |= c.runs_lua();
  }
  for (const std::string& name : names) {
    CrossCheckRow row{name, CountOf(sent, name), CountOf(*after.counts, name) - CountOf(*before.counts, name)};
    if (row.memstand == 0 && row.server == 0) continue;
    if (runs_lua && row.memstand == 0 && name != "CALL" && name != "EVAL" && name != "AUTH") continue;
    if (row.memstand != row.server) cc->mismatch = true;
    cc->rows.push_back(row);
  }
}

}  // namespace

Result<std::unique_ptr<RunControl>> ConnectProtoControl(const LoadOptions& opt,
                                                        const std::shared_ptr<const TlsContext>& tls,
                                                        std::optional<SlotMap>*, RunResult*) {
  auto control = std::make_unique<ProtoRunControl>(opt);
  for (int i = 0; i < opt.pool_size(); ++i) {
    auto c = ProtoControl::Connect(opt.protocol, opt.pool_target(i), opt.connect_timeout_ms, tls);
    if (!c.ok()) return c.status();
    control->controls_.push_back(std::move(*c));
  }
  return std::unique_ptr<RunControl>(std::move(control));
}

}  // namespace memstand
