#include "report/merge_check.h"

#include <iterator>
#include <set>
#include <string>

#include <fmt/format.h>

#include "report/json_check.h"

namespace memstand::merge_internal {

namespace {

using Json = nlohmann::ordered_json;

Status Refuse(const MergeInput& in, const std::string& why) {
  return Status::InvalidArgument(in.path + ": " + why);
}

// The first key whose values differ, or "" when a == b.
std::string FirstDifference(const Json& a, const Json& b) {
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key)) return key;
    if (b[key] != value) return key;
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) return key;
  }
  return "";
}

// Every field merge reads, with its type (docs/json-format.md): checked before it reads
// any, so that a hand-edited or damaged file is an error naming the field, not a crash.
constexpr double kMaxCount = 1e6;       // threads, clients per thread, pipeline
constexpr double kMaxUnixS = 1e11;      // a wall-clock time (year ~5100)
constexpr double kMaxSecond = 1e8;      // a series' second (3 years)
const JsonRule kRunRules[] = {
    {"options", JsonType::kObject, true},
    {"options.threads", JsonType::kUint, false, kMaxCount},
    {"options.clients_per_thread", JsonType::kUint, false, kMaxCount},
    {"options.pipeline", JsonType::kUint, false, kMaxCount},
    {"options.resp", JsonType::kUint, false, 3},
    {"options.rate_per_s", JsonType::kNumber},
    {"options.requests", JsonType::kUint},
    {"options.duration_s", JsonType::kNumber},
    {"options.warmup_s", JsonType::kNumber},
    {"options.key_prefix", JsonType::kString},
    {"options.key_min", JsonType::kUint},
    {"options.key_max", JsonType::kUint},
    {"options.seed", JsonType::kUint},
    {"options.value_min_size", JsonType::kUint},
    {"options.value_max_size", JsonType::kUint},
    {"options.value_content", JsonType::kString},
    {"options.compress_ratio", JsonType::kNumber},
    {"options.cluster", JsonType::kBool},
    {"options.commands", JsonType::kArray, true},
    {"options.commands[]", JsonType::kObject},
    {"options.commands[].label", JsonType::kString},
    {"options.commands[].name", JsonType::kString},
    {"options.commands[].weight", JsonType::kUint},
    {"options.commands[].key_pattern", JsonType::kString},
    {"commands", JsonType::kArray, true},
    {"commands[]", JsonType::kObject},
    {"commands[].ops", JsonType::kUint},
    {"commands[].errors", JsonType::kUint},
    {"commands[].hits", JsonType::kUint},
    {"commands[].misses", JsonType::kUint},
    {"commands[].bytes_out", JsonType::kUint},
    {"commands[].bytes_in", JsonType::kUint},
    {"commands[].zero_latency", JsonType::kUint},
    {"commands[].outcomes", JsonType::kObject},
    {"commands[].outcomes.ok", JsonType::kUint},
    {"commands[].outcomes.fail", JsonType::kUint},
    {"commands[].outcomes.unknown", JsonType::kUint},
    {"commands[].outcomes.lost", JsonType::kUint},
    {"commands[].errors_by_kind", JsonType::kObject},
    {"commands[].errors_by_kind{}", JsonType::kObject},
    {"commands[].errors_by_kind{}.example", JsonType::kString},
    {"commands[].errors_by_kind{}.count", JsonType::kUint},
    {"commands[].latency", JsonType::kObject, true},
    {"commands[].latency.histogram", JsonType::kObject, true},
    {"commands[].service_time", JsonType::kObject},
    {"commands[].service_time.histogram", JsonType::kObject, true},
    {"commands[].send_lag", JsonType::kObject},
    {"commands[].send_lag.histogram", JsonType::kObject, true},
    {"totals", JsonType::kObject, true},
    {"totals.ops", JsonType::kUint},
    {"totals.ops_per_sec", JsonType::kNumber},
    {"totals.latency", JsonType::kObject, true},
    {"totals.latency.histogram", JsonType::kObject, true},
    {"totals.latency.percentiles_us", JsonType::kNumeric, true},
    {"server", JsonType::kObject, true},
    {"server.version", JsonType::kString},
    {"server.protocol", JsonType::kString},
    {"server.url", JsonType::kString},
    {"client", JsonType::kObject, true},
    {"client.cpu_user_s", JsonType::kNumber},
    {"client.cpu_sys_s", JsonType::kNumber},
    {"client.process_cpu_s", JsonType::kNumber},
    {"client.read_calls", JsonType::kUint},
    {"client.write_calls", JsonType::kUint},
    {"client.wait_calls", JsonType::kUint},
    {"client.socket_bytes_read", JsonType::kUint},
    {"client.socket_bytes_written", JsonType::kUint},
    {"client.threads", JsonType::kArray},
    {"client.threads[]", JsonType::kObject},
    {"client.threads[].cpu_user_s", JsonType::kNumber},
    {"client.threads[].cpu_sys_s", JsonType::kNumber},
    {"client.threads[].core_share", JsonType::kNumber},
    {"series", JsonType::kObject, true},
    {"series{}", JsonType::kArray},
    {"series{}[]", JsonType::kObject},
    {"series{}[].second", JsonType::kInt, false, kMaxSecond},
    {"series{}[].ops", JsonType::kUint},
    {"series{}[].errors", JsonType::kUint},
    {"series{}[].ok", JsonType::kUint},
    {"series{}[].fail", JsonType::kUint},
    {"series{}[].unknown", JsonType::kUint},
    {"series{}[].max_us", JsonType::kNumber},
    {"series{}[].histogram", JsonType::kObject},
    {"series_start_unix_s", JsonType::kNumber, false, kMaxUnixS},
    {"measured_s", JsonType::kNumber, false, kMaxUnixS},
    {"start_at", JsonType::kObject},
    {"start_at.measured_start_unix_s", JsonType::kNumber, false, kMaxUnixS},
    {"start_at.late_s", JsonType::kNumber},
    {"start_at.missed_the_second", JsonType::kBool},
    {"schedule", JsonType::kObject},
    {"schedule.measured_sent", JsonType::kUint},
    {"schedule.unsent_intended", JsonType::kUint},
    {"schedule.send_span_s", JsonType::kNumber},
    {"unanswered", JsonType::kUint},
    {"connection_errors", JsonType::kUint},
    {"protocol_errors", JsonType::kUint},
    {"interrupted", JsonType::kBool},
    {"started_at", JsonType::kString},
    {"verdict", JsonType::kString},
    {"latency_from", JsonType::kString},
    {"shard", JsonType::kObject},
    {"shard.index", JsonType::kInt},
    {"shard.count", JsonType::kUint},
    {"shard.whole_key_min", JsonType::kUint},
    {"shard.whole_key_max", JsonType::kUint},
    {"shard.whole_seed", JsonType::kUint},
    {"platform", JsonType::kObject},
    {"platform.hostname", JsonType::kString},
    {"platform.kernel", JsonType::kString},
    {"platform.arch", JsonType::kString},
    {"platform.cpu_model", JsonType::kString},
    {"platform.cpus", JsonType::kInt, false, kMaxCount},
    {"platform.hypervisor", JsonType::kBool},
    {"platform.memory_bytes", JsonType::kInt},
    {"platform.clock_resolution_ns", JsonType::kInt},
    {"fleet_check", JsonType::kObject},
    {"fleet_check.recorded", JsonType::kBool},
    {"fleet_check.reason", JsonType::kString},
    {"fleet_check.exclusive", JsonType::kBool},
    {"fleet_check.before", JsonType::kObject},
    {"fleet_check.before{}", JsonType::kInt},
    {"fleet_check.after", JsonType::kObject},
    {"fleet_check.after{}", JsonType::kInt},
    {"cross_check", JsonType::kObject},
    {"cross_check.commands", JsonType::kArray},
    {"cross_check.commands[]", JsonType::kObject},
    {"cross_check.commands[].command", JsonType::kString},
    {"cross_check.commands[].memstand", JsonType::kInt},
    {"availability", JsonType::kObject},
    {"availability.connections_lost", JsonType::kUint},
    {"availability.reconnects", JsonType::kUint},
    {"availability.reconnect_failures", JsonType::kUint},
    {"availability.first_loss", JsonType::kString},
    {"availability.commands", JsonType::kObject},
    {"availability.commands{}", JsonType::kObject},
    {"availability.commands{}.outages", JsonType::kUint},
    {"availability.commands{}.unavailable_s", JsonType::kNumber, false, kMaxSecond},
    {"availability.commands{}.exact", JsonType::kBool},
    {"availability.commands{}.longest", JsonType::kArray},
    {"availability.commands{}.longest[]", JsonType::kObject},
    {"availability.commands{}.longest[].start_s", JsonType::kNumber, false, kMaxSecond},
    {"availability.commands{}.longest[].length_s", JsonType::kNumber, false, kMaxSecond},
    {"availability.commands{}.longest[].recovered", JsonType::kBool},
    {"availability.commands{}.longest[].fail", JsonType::kUint},
    {"availability.commands{}.longest[].unknown", JsonType::kUint},
};

// options.reconnect: null (no --reconnect) or these (merge writes them for the fleet).
const JsonRule kReconnectRules[] = {
    {"options.reconnect.backoff_min_ms", JsonType::kUint, false, 1e9},
    {"options.reconnect.backoff_max_ms", JsonType::kUint, false, 1e9},
    {"options.reconnect.max_attempts", JsonType::kUint, false, 1e9},
};

// "field F: V is negative, expected a time >= 0" when the number at F is.
Status NotNegative(const Json& v, const std::string& field) {
  if (!v.is_number() || v.get<double>() >= 0) return Status::OK();
  return Status::InvalidArgument(fmt::format("field {}: {} is negative, expected a time >= 0", field, v.dump()));
}

// What the types do not say of the availability section (merge_availability.h reads it):
// a command of the mix, no more outages listed than counted, no negative time.
Status CheckAvailability(const Json& d) {
  if (d["options"].contains("reconnect") && !d["options"]["reconnect"].is_null()) {
    if (!d["options"]["reconnect"].is_object()) {
      return Status::InvalidArgument(fmt::format("field options.reconnect: {}, expected an object or null",
                                                 JsonTypeText(d["options"]["reconnect"])));
    }
    Status s = CheckJsonFields(d, kReconnectRules, std::size(kReconnectRules));
    if (!s.ok()) return s;
  }
  if (!d.contains("availability") || !d["availability"].contains("commands")) return Status::OK();
  std::set<std::string> labels;
  for (const Json& c : d["options"]["commands"]) labels.insert(c.value("label", ""));
  for (const auto& [label, c] : d["availability"]["commands"].items()) {
    const std::string at = "availability.commands." + (label.size() > 40 ? label.substr(0, 37) + "..." : label);
    if (!labels.count(label)) {
      return Status::InvalidArgument("field " + at + ": no command of options.commands has this label");
    }
    const size_t listed = c.contains("longest") ? c["longest"].size() : 0;
    if (c.contains("outages") && c["outages"].get<uint64_t>() < listed) {
      return Status::InvalidArgument(fmt::format("field {}.longest: {} outages listed, more than its outages ({})",
                                                 at, listed, c["outages"].get<uint64_t>()));
    }
    Status s = c.contains("unavailable_s") ? NotNegative(c["unavailable_s"], at + ".unavailable_s") : Status::OK();
    for (size_t i = 0; s.ok() && i < listed; ++i) {
      const Json& x = c["longest"][i];
      const std::string xat = fmt::format("{}.longest[{}]", at, i);
      if (x.contains("start_s")) s = NotNegative(x["start_s"], xat + ".start_s");
      if (s.ok() && x.contains("length_s")) s = NotNegative(x["length_s"], xat + ".length_s");
    }
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status CheckDocument(const MergeInput& in) {
  const Json& d = in.doc;
  if (!d.is_object()) return Refuse(in, "not a memstand.run document (not a JSON object)");
  if (!d.contains("schema") || d["schema"] != "memstand.run") {
    return Refuse(in, "not a memstand.run document (schema)");
  }
  if (!d.contains("version") || !d["version"].is_number_integer() ||
      d["version"].get<int64_t>() != kMergeableVersion) {
    return Refuse(in, fmt::format("version {}: this memstand merges version {}",
                                  d.contains("version") ? d["version"].dump() : "missing",
                                  kMergeableVersion));
  }
  const Json& totals = d.contains("totals") ? d["totals"] : d;
  if (totals.is_object() && totals.contains("latency") && totals["latency"].is_object() &&
      !totals["latency"].contains("histogram")) {
    return Refuse(in, "no histograms (written by a memstand before the run JSON carried them)");
  }
  Status s = CheckJsonFields(d, kRunRules, std::size(kRunRules));
  if (s.ok()) s = CheckAvailability(d);
  if (!s.ok()) return Refuse(in, s.message());
  if (d["commands"].size() != d["options"]["commands"].size()) {
    return Refuse(in, fmt::format("field commands: {} entries, but options.commands has {}",
                                  d["commands"].size(), d["options"]["commands"].size()));
  }
  return Status::OK();
}

// The same run given twice (the same file, or a copy): its counts would count twice.
Status CheckNotTwice(const std::vector<MergeInput>& inputs) {
  for (size_t i = 1; i < inputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (inputs[i].doc == inputs[j].doc) {
        return Refuse(inputs[i], "the same run as " + inputs[j].path +
                                     " (the same document): given twice, its counts would be added twice");
      }
    }
  }
  return Status::OK();
}

Json HistogramSettings(const Json& latency) {
  Json s = latency.value("histogram", Json::object());
  for (const char* key : {"count", "min", "max", "saturated", "data"}) s.erase(key);
  return s;
}

Status CheckSameRun(const MergeInput& first, const MergeInput& in) {
  const std::string w = FirstDifference(WorkloadOf(first.doc), WorkloadOf(in.doc));
  if (!w.empty()) {
    return Refuse(in, "the workload differs from " + first.path + "'s in options." + w);
  }
  if (first.doc["server"].value("protocol", "") != in.doc["server"].value("protocol", "")) {
    return Refuse(in, "the protocol differs from " + first.path + "'s");
  }
  if (HistogramSettings(first.doc["totals"]["latency"]) != HistogramSettings(in.doc["totals"]["latency"])) {
    return Refuse(in, "the histogram settings differ from " + first.path + "'s: " +
                          HistogramSettings(in.doc["totals"]["latency"]).dump() + " vs " +
                          HistogramSettings(first.doc["totals"]["latency"]).dump());
  }
  if (first.doc.value("latency_from", "") != in.doc.value("latency_from", "")) {
    return Refuse(in, "latency is measured from another point (latency_from)");
  }
  return Status::OK();
}

Json ShardFleet(const Json& shard) {
  Json f = shard;
  for (const char* key : {"index", "key_min", "key_max", "seed", "rate", "requests", "members", "key_sliced"}) {
    f.erase(key);
  }
  return f;
}

Status CheckShards(const std::vector<MergeInput>& inputs) {
  const bool sharded = inputs.front().doc.contains("shard");
  std::set<int64_t> seen;
  for (const MergeInput& in : inputs) {
    if (in.doc.contains("shard") != sharded) {
      return Refuse(in, std::string(sharded ? "is not a shard" : "is a shard") + " but " +
                            inputs.front().path + (sharded ? " is" : " is not"));
    }
    if (!sharded) continue;
    const std::string d = FirstDifference(ShardFleet(inputs.front().doc["shard"]), ShardFleet(in.doc["shard"]));
    if (!d.empty()) return Refuse(in, "another fleet than " + inputs.front().path + "'s (shard." + d + ")");
    const int64_t index = in.doc["shard"].value("index", int64_t{-1});
    if (!seen.insert(index).second) return Refuse(in, fmt::format("shard {} is given twice", index));
  }
  return Status::OK();
}

}  // namespace

Json WorkloadOf(const Json& doc) {
  Json o = doc.value("options", Json::object());
  // What a shard takes (ApplyShard); the shard object carries the fleet's values.
  for (const char* key : {"key_min", "key_max", "seed", "rate_per_s", "requests"}) o.erase(key);
  return o;
}

Status CheckMergeable(const std::vector<MergeInput>& inputs) {
  if (inputs.empty()) return Status::InvalidArgument("no input file");
  for (const MergeInput& in : inputs) {
    Status s = CheckDocument(in);
    if (!s.ok()) return s;
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    Status s = CheckSameRun(inputs.front(), inputs[i]);
    if (!s.ok()) return s;
  }
  Status s = CheckNotTwice(inputs);
  return s.ok() ? CheckShards(inputs) : s;
}

}  // namespace memstand::merge_internal
