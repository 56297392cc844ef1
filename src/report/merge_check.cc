#include "report/merge_check.h"

#include <set>
#include <string>

#include <fmt/format.h>

#include "report/run_report.h"

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

Status CheckDocument(const MergeInput& in) {
  const Json& d = in.doc;
  if (!d.is_object() || d.value("schema", "") != "memstand.run") {
    return Refuse(in, "not a memstand.run document (schema)");
  }
  if (!d.contains("version") || !d["version"].is_number_integer() ||
      d["version"].get<int>() != kRunJsonVersion) {
    return Refuse(in, fmt::format("version {}: this memstand merges version {}",
                                  d.contains("version") ? d["version"].dump() : "missing",
                                  kRunJsonVersion));
  }
  for (const char* key : {"options", "commands", "totals", "server", "client", "series"}) {
    if (!d.contains(key)) return Refuse(in, std::string("no \"") + key + "\"");
  }
  if (!d["totals"].contains("latency") || !d["totals"]["latency"].contains("histogram")) {
    return Refuse(in, "no histograms (written by a memstand before the run JSON carried them)");
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
  return CheckShards(inputs);
}

}  // namespace memstand::merge_internal
