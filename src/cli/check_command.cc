// `memstand check FILE [--target URL] [--json OUT] [--checks LIST] [--time-limit DUR]`:
// a history's checks (history/, docs/history.md). The only I/O here is the final read of
// every written key for the lost-writes check, through the control client of the
// target's kind; the checks themselves are pure functions of the records.
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "client/redis_client.h"
#include "core/tls.h"
#include "history/check_report.h"
#include "history/history_reader.h"
#include "history/linearizable.h"
#include "history/lost_writes.h"
#include "history/revisions.h"
#include "history/sessions.h"
#include "history/value_tag.h"
#include "load/proto_control.h"
#include "load/target.h"
#include "proto/etcd/etcd.h"
#include "proto/iproto/value.h"
#include "proto/memcache/memcache.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/terminal_text.h"

namespace memstand::cli {
namespace {

using history::CheckResult;
using history::History;

// docs/exit-codes.md: the system broke a property the history was checked for.
constexpr int kExitViolated = 4;
// Keys read after the run per pipelined batch of GETs.
constexpr size_t kFinalReadBatch = 512;
constexpr size_t kForeignPreviewBytes = 40;
// etcd: the bound of the connect and of each range (ProtoControl).
constexpr int kFinalReadTimeoutMs = 5000;

struct CheckFlags {
  std::string file;
  std::string target;
  std::string json;
  std::string checks = "lost-writes,linearizable,monotonic-reads,read-your-writes,revisions";
  std::string time_limit = "60s";
};

struct CheckPlan {
  std::set<std::string> checks;
  std::unique_ptr<RedisTarget> target;  // null: none given
  int64_t time_limit_ns = 0;
};

// The flags, before the file is read. InvalidArgument saying which flag.
Result<CheckPlan> PlanChecks(const CheckFlags& f) {
  CheckPlan plan;
  auto names = ParseWordList(f.checks, "--checks",
                             {"lost-writes", "linearizable", "monotonic-reads", "read-your-writes", "revisions"});
  if (!names.ok()) return names.status();
  plan.checks.insert(names->begin(), names->end());
  auto seconds = ParseDurationSeconds(f.time_limit);
  if (!seconds.ok()) return seconds.status().WithContext("--time-limit");
  if (*seconds <= 0 || *seconds > 86400) {
    return Status::InvalidArgument("--time-limit: '" + f.time_limit + "' is not within (0, 24h]");
  }
  plan.time_limit_ns = static_cast<int64_t>(*seconds * 1e9);
  if (!f.target.empty()) {
    auto t = ParseTargetUrl(f.target);
    if (!t.ok()) return t.status().WithContext("--target");
    if (t->sentinel()) {
      return Status::InvalidArgument("--target: " + t->Display() +
                                     " is a Sentinel target; check reads the keys back from one node: give the "
                                     "primary's redis://host:port");
    }
    plan.target = std::make_unique<RedisTarget>(*t);
  } else if (plan.checks.count("lost-writes") > 0) {
    return Status::InvalidArgument(
        "lost-writes reads every written key from the target after the run: give --target URL, or leave "
        "lost-writes out of --checks");
  }
  return plan;
}

// The history's target kind against --target's scheme.
Status CheckSameKind(const History& h, const RedisTarget& t, const std::string& file) {
  const std::string kind = history::TargetKindName(h.header.target_kind);
  if (kind == t.scheme) return Status::OK();
  return Status::InvalidArgument(fmt::format("{} was written against {} ({}); --target's kind is {}", file,
                                             h.header.target, kind, t.scheme));
}

// What a value read back says of the key: this run's write (its tag), or other bytes.
history::FinalValue FinalOfValue(const History& h, const std::string& value) {
  history::FinalValue v;
  if (const auto id = history::ReadValueTag(h.header.run_tag, value)) {
    v.seen = history::Seen::kOurs;
    v.value = *id;
  } else {
    v.seen = history::Seen::kForeign;
    v.preview = value.substr(0, kForeignPreviewBytes);
  }
  return v;
}

// What a GET's reply says of the key.
Result<history::FinalValue> FinalOf(const History& h, uint64_t key, const resp::Reply& reply) {
  history::FinalValue v;
  if (reply.is_null) return v;  // kAbsent
  if (reply.is_error()) {
    return Status::Server(fmt::format("GET {}: the server answered {}", h.KeyName(key), reply.str));
  }
  if (reply.type != resp::Type::kBulkString) {
    return Status::Protocol(fmt::format("GET {}: a reply that is not a string", h.KeyName(key)));
  }
  return FinalOfValue(h, reply.str);
}

// A TLS target's context, its certificate checked against the system's CAs; null for a
// plaintext one.
Result<std::shared_ptr<const TlsContext>> TargetTls(const RedisTarget& t) {
  if (!t.tls) return std::shared_ptr<const TlsContext>();
  TlsOptions options;
  options.enabled = true;
  return TlsContext::Create(options);
}

// Every written key read once from a RESP target, in batches of pipelined GETs.
Result<std::map<uint64_t, history::FinalValue>> ReadFinalValues(const History& h, const RedisTarget& t) {
  RedisClientOptions o;
  o.host = t.host;
  o.port = t.port;
  o.unix_path = t.unix_path;
  o.user = t.user;
  o.password = t.password;
  o.db = t.db;
  auto tls = TargetTls(t);
  if (!tls.ok()) return tls.status();
  o.tls = *tls;
  auto client = RedisClient::Connect(o);
  if (!client.ok()) return client.status();
  const std::vector<uint64_t> keys = history::WrittenKeys(h);
  std::map<uint64_t, history::FinalValue> finals;
  for (size_t at = 0; at < keys.size(); at += kFinalReadBatch) {
    std::vector<std::vector<std::string>> gets;
    for (size_t i = at; i < keys.size() && i < at + kFinalReadBatch; ++i) gets.push_back({"GET", h.KeyName(keys[i])});
    auto replies = (*client)->Pipeline(gets);
    if (!replies.ok()) return replies.status();
    for (size_t i = 0; i < replies->size(); ++i) {
      auto v = FinalOf(h, keys[at + i], (*replies)[i]);
      if (!v.ok()) return v.status();
      finals[keys[at + i]] = std::move(*v);
    }
  }
  return finals;
}

// Every written key read once through a control connection to the target, one request
// a key: `read` asks for one key and says what it holds.
using ReadOneKey = std::function<Result<history::FinalValue>(ProtoControl&, uint64_t key)>;
Result<std::map<uint64_t, history::FinalValue>> ReadEachKey(const History& h, const RedisTarget& t, Protocol p,
                                                            const ReadOneKey& read) {
  auto tls = TargetTls(t);
  if (!tls.ok()) return tls.status();
  auto control = ProtoControl::Connect(p, t, kFinalReadTimeoutMs, *tls);
  if (!control.ok()) return control.status();
  std::map<uint64_t, history::FinalValue> finals;
  for (uint64_t key : history::WrittenKeys(h)) {
    auto v = read(**control, key);
    if (!v.ok()) return v.status();
    finals[key] = std::move(*v);
  }
  return finals;
}

// etcd: a range of the one key.
Result<history::FinalValue> ReadEtcdKey(const History& h, ProtoControl& control, uint64_t key) {
  const std::string name = h.KeyName(key);
  auto sum = control.EtcdRequest([&](Buffer* out, const etcd::Target& et) { etcd::AppendRange(out, et, name); },
                                 /*want_kvs=*/true);
  if (!sum.ok()) return sum.status();
  if (!sum->ok) return Status::Server(fmt::format("range {}: etcd answered {}", name, sum->error));
  return sum->kv_list.empty() ? history::FinalValue{} : FinalOfValue(h, sum->kv_list[0].value);
}

// What a Tarantool select's tuples say of the key: none, absent; else the first tuple's
// value field.
history::FinalValue FinalOfTuples(const History& h, const iproto::Value& tuples) {
  if (tuples.type() != iproto::Value::Type::kArray || tuples.items().empty()) return {};
  const iproto::Value& tuple = tuples.items()[0];
  const size_t field = h.header.value_field;
  if (tuple.type() == iproto::Value::Type::kArray && field < tuple.items().size() &&
      tuple.items()[field].type() == iproto::Value::Type::kString) {
    return FinalOfValue(h, tuple.items()[field].str());
  }
  history::FinalValue v;  // a tuple without a string where values go: not a value of ours
  v.seen = history::Seen::kForeign;
  v.preview = iproto::ToString(tuple).substr(0, kForeignPreviewBytes);
  return v;
}

// Tarantool: a select of the one key on the history's space and its primary index.
Result<history::FinalValue> ReadIprotoKey(const History& h, ProtoControl& control, uint64_t key) {
  const iproto::Value k = h.header.key_numbers ? iproto::Value::Uint(key) : iproto::Value::String(h.KeyName(key));
  auto tuples = control.Select(h.header.space, 0, iproto::Value::Array({k}));
  if (!tuples.ok()) {
    return tuples.status().WithContext(fmt::format("select {} from space {}", h.KeyName(key), h.header.space));
  }
  return FinalOfTuples(h, *tuples);
}

// memcached: a get of the one key.
Result<history::FinalValue> ReadMemcacheKey(const History& h, ProtoControl& control, uint64_t key) {
  const std::string name = h.KeyName(key);
  auto reply = control.MemcacheGet(name);
  if (!reply.ok()) return reply.status();
  if (reply->kind != memcache::Kind::kValues) {
    return Status::Server(fmt::format("get {}: memcached answered {} {}", name, memcache::KindName(reply->kind),
                                      reply->text));
  }
  return reply->values.empty() ? history::FinalValue{} : FinalOfValue(h, reply->values[0].data);
}

CheckResult LostWrites(const History& h, const RedisTarget& t) {
  Result<std::map<uint64_t, history::FinalValue>> finals = Status::Failed("no final reads");
  switch (h.header.target_kind) {
    case history::TargetKind::kResp: finals = ReadFinalValues(h, t); break;
    case history::TargetKind::kEtcd:
      finals = ReadEachKey(h, t, Protocol::kEtcd, [&](ProtoControl& c, uint64_t k) { return ReadEtcdKey(h, c, k); });
      break;
    case history::TargetKind::kIproto:
      finals =
          ReadEachKey(h, t, Protocol::kIproto, [&](ProtoControl& c, uint64_t k) { return ReadIprotoKey(h, c, k); });
      break;
    case history::TargetKind::kMemcache:
      finals = ReadEachKey(h, t, Protocol::kMemcache,
                           [&](ProtoControl& c, uint64_t k) { return ReadMemcacheKey(h, c, k); });
      break;
  }
  if (!finals.ok()) {
    return history::LostWritesNotRun("not checked: reading the written keys from " + t.Display() +
                                     " failed: " + finals.status().message());
  }
  return history::CheckLostWrites(h, *finals);
}

std::vector<CheckResult> RunChecks(const History& h, const CheckPlan& plan) {
  std::vector<CheckResult> results;
  if (plan.checks.count("lost-writes") > 0) results.push_back(LostWrites(h, *plan.target));
  if (plan.checks.count("linearizable") > 0) {
    history::LinearizabilityLimits limits;
    limits.time_limit_ns = plan.time_limit_ns;
    results.push_back(history::CheckLinearizable(h, limits));
  }
  if (plan.checks.count("monotonic-reads") > 0) results.push_back(history::CheckMonotonicReads(h));
  if (plan.checks.count("read-your-writes") > 0) results.push_back(history::CheckReadYourWrites(h));
  if (plan.checks.count("revisions") > 0) results.push_back(history::CheckRevisions(h));
  return results;
}

std::string Heading(const History& h, const std::string& file) {
  std::set<uint32_t> clients;
  std::set<uint64_t> keys;
  for (const history::Record& r : h.records) {
    clients.insert(r.client);
    keys.insert(r.key);
  }
  return fmt::format("{}: {} operation(s) of {} client(s) on {} key(s); target {} ({}), written by {}\n\n", file,
                     h.records.size(), clients.size(), keys.size(), h.header.target,
                     history::TargetKindName(h.header.target_kind), h.header.writer);
}

int ExitOf(history::Verdict v) {
  switch (v) {
    case history::Verdict::kPass:
    case history::Verdict::kNotApplicable: return kExitOk;
    case history::Verdict::kViolated: return kExitViolated;
    case history::Verdict::kGaveUp:
    case history::Verdict::kCouldNotRun: return kExitFailed;
  }
  return kExitFailed;
}

int CheckBody(const CLI::App& app, const CheckFlags& f) {
  Status s = RefuseEmptyPaths(app, {{"--json", &f.json}});
  if (s.ok()) s = CheckOutputsSpareInputs({{"--json", f.json}}, {f.file});
  auto plan = s.ok() ? PlanChecks(f) : Result<CheckPlan>(s);
  if (!plan.ok()) return FailWith("check", plan.status().message(), kExitUsage);
  std::unique_ptr<OutputFile> json;
  if (!f.json.empty()) {
    auto opened = OutputFile::Open("--json", f.json);
    if (!opened.ok()) return FailWith("check", opened.status().message(), kExitUsage);
    json = std::move(*opened);
  }
  auto h = history::ReadHistoryFile(f.file);
  if (!h.ok()) return FailWith("check", h.status().message(), kExitUsage);
  if (plan->target != nullptr) {
    if (Status kind = CheckSameKind(*h, *plan->target, f.file); !kind.ok()) {
      return FailWith("check", kind.message(), kExitUsage);
    }
  }
  const std::vector<CheckResult> results = RunChecks(*h, *plan);
  const std::string text = Heading(*h, f.file) + history::CheckReportText(*h, results);
  fmt::print("{}", TerminalSafe(text));
  std::fflush(stdout);
  if (json != nullptr) {
    const std::string doc = history::CheckReportJson(*h, results)
                                .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    s = json->Write(doc + "\n");
    if (s.ok()) s = json->Commit();
    if (!s.ok()) return FailWith("check", s.message(), kExitFailed);
  }
  return ExitOf(history::OverallVerdict(results));
}

}  // namespace

SubcommandBody SetupCheck(CLI::App* app) {
  auto f = std::make_shared<CheckFlags>();
  app->add_option("file", f->file, "The history file (docs/history.md)")->required();
  app->add_option("--target", f->target,
                  "The system the history was written against, read once per written key after the run "
                  "(lost-writes)");
  app->add_option("--json", f->json, "Write the verdicts and their evidence (schema memstand.check)");
  app->add_option("--checks", f->checks,
                  "Which checks, comma-separated: lost-writes, linearizable, monotonic-reads, read-your-writes, "
                  "revisions");
  app->add_option("--time-limit", f->time_limit,
                  "How long the linearizability search may take over all keys; keys not decided by then are "
                  "given up on (exit 1)");
  return [app, f]() { return CheckBody(*app, *f); };
}

}  // namespace memstand::cli
