// `memstand scenario run replication-cost` on the real binary, with short steps: both
// systems' tables, the ratios, the client-bottleneck flags, the replication invariants,
// the evidence CSV; and bad flags.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "e2e/chromium_util.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const json* FindCell(const json& doc, const std::string& system, const std::string& path, int concurrency) {
  for (const json& c : doc["cells"]) {
    if (c["system"] == system && c["path"] == path && c["concurrency"] == concurrency) return &c;
  }
  return nullptr;
}

TEST(ReplicationCostE2E, ShortStepsPrintBothSystemsRatiosFlagsAndInvariants) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "replication-cost", "--concurrency", "1,4", "--step-duration", "0.5s",
                             "--json", dir + "/rc.json", "--evidence", dir + "/ev", "-q"},
                            90);
  ASSERT_FALSE(out.timed_out) << out.output;
  SCOPED_TRACE("the report:\n" + out.output);  // on any failure below
  // Tarantool 2.6.0 (Debian 12) lets a synchronous write's quorum time out here, rolls it
  // back and leaves the replicas with tuples the master rolled back: the replicas
  // diverged, a finding about the system (exit 4) with the counts as its evidence; or
  // the cell stalls or loses its connection (exit 1). Only the sync-write cells may.
  json doc = ReadJson(dir + "/rc.json");
  ASSERT_TRUE(doc.is_object()) << out.output;
  if (out.exit_code != 0) {
    ASSERT_TRUE(out.exit_code == 1 || out.exit_code == 4) << out.output;
    for (const json& why : doc["verdict_reasons"]) {
      EXPECT_NE(why.get<std::string>().find("tarantool sync-write"), std::string::npos) << why;
    }
  }
  EXPECT_EQ(out.exit_code == 4, !doc["anomalies"].empty()) << out.output;
  for (const json& a : doc["anomalies"]) {
    EXPECT_NE(a["configuration"].get<std::string>().find("tarantool sync-write"), std::string::npos) << a;
    EXPECT_EQ(a["kind"], "tuples on replicas that the master does not have");
    EXPECT_GT(a["count"].get<uint64_t>(), 0u);
    EXPECT_FALSE(a["examples"].empty());
  }
  EXPECT_NE(out.output.find("Tarantool replica set (1 master, 3 replicas)"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("Redis primary + 2 replicas"), std::string::npos);
  EXPECT_NE(out.output.find("box.cfg read back on the master: replication_synchro_quorum = 3"), std::string::npos);
  EXPECT_NE(out.output.find("CLIENT    SERVERS (core share)"), std::string::npos);

  ASSERT_EQ(doc["cells"].size(), 16u);  // 5 Tarantool (sync-write and sync-write-all) + 3 Redis paths at 2 levels
  for (const json& c : doc["cells"]) {
    const std::string name = c["system"].get<std::string>() + " " + c["path"].get<std::string>();
    EXPECT_EQ(c["client_bottleneck"].get<bool>(), c["client_core_share"].get<double>() > 0.9) << name;
    EXPECT_EQ(c["servers"].size(), c["system"] == "tarantool" ? 4u : 3u) << name;
    for (const json& s : c["servers"]) EXPECT_GT(s["pid"].get<int>(), 1) << name;
    if (c["path"] == "sync-write") continue;  // see above
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    EXPECT_GT(c["ops"].get<uint64_t>(), 0u) << name;
    EXPECT_EQ(c["errors"], 0) << name;
    if (!c["write"].get<bool>()) {
      EXPECT_GT(c["hits"].get<uint64_t>(), 0u) << name;
      continue;
    }
    const json& r = c["replication"];
    EXPECT_TRUE(r["settled"].get<bool>()) << name;
    EXPECT_GT(r["master_count"].get<int64_t>(), 0) << name;
    EXPECT_EQ(r["replica_counts"].size(), c["system"] == "tarantool" ? 3u : 2u) << name;
    for (const auto& [node, count] : r["replica_counts"].items()) EXPECT_EQ(count, r["master_count"]) << name << node;
  }
  // Each cell that measured, judged; the page shows them in a table.
  size_t measured = 0;
  for (const json& c : doc["cells"]) measured += c["measured_s"].get<double>() > 0 ? 1 : 0;
  EXPECT_GE(doc["validity"]["runs"].size(), measured) << doc["validity"].dump();
  EXPECT_NE(out.output.find("] Validity of the load runs' statistics\n"), std::string::npos);
  EXPECT_NE(out.output.find("run 1 redis set at concurrency 4  "), std::string::npos);
  // A WAIT path: two commands, SET then WAIT, the path's ops are the WAITs answered.
  const json* wait2 = FindCell(doc, "redis", "set+wait2", 4);
  ASSERT_NE(wait2, nullptr);
  ASSERT_EQ((*wait2)["commands"].size(), 2u);
  EXPECT_EQ((*wait2)["commands"][0]["label"], "SET");
  EXPECT_EQ((*wait2)["commands"][1]["label"], "WAIT");
  EXPECT_EQ((*wait2)["ops"], (*wait2)["commands"][1]["ops"]);

  // Ratios at equal concurrency, both levels, for the pairs whose cells held.
  int ratios = 0;
  for (const json& r : doc["ratios"]) {
    if (r["a"] == "sync-write") continue;
    ++ratios;
    EXPECT_GT(r["throughput_ratio"].get<double>(), 0) << r.dump();
  }
  // sync-write-all/async-write, read-replicas/read-master, set+wait1/set, set+wait2/set at 1 and 4: the
  // quorum of every member held in every run here, where the majority's did not.
  EXPECT_EQ(ratios, 8);
  EXPECT_NE(out.output.find("redis set+wait1 / set (SET + WAIT 1 against SET alone):"), std::string::npos);
  EXPECT_NE(out.output.find("no knee within the range: 2 step(s), a knee needs 3"), std::string::npos);
  EXPECT_EQ(doc["knees"].size(), 8u);
  EXPECT_EQ(doc["tarantool_sync_quorums"], json::array({"majority", "all"}));

  const std::string csv = ReadText(dir + "/ev/cells.csv");
  EXPECT_NE(csv.find("client_core_share,client_bottleneck,servers_core_share"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 17) << csv;
  EXPECT_TRUE(std::filesystem::exists(dir + "/ev/invariants.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/ev/ratios.csv"));
  const std::string master = ReadText(dir + "/ev/servers/tarantool-master.conf");
  EXPECT_NE(master.find("replication_synchro_quorum = 3,"), std::string::npos) << master;
  EXPECT_NE(ReadText(dir + "/ev/servers/tarantool-replica-3.conf").find("read_only = true"), std::string::npos);
  EXPECT_NE(ReadText(dir + "/ev/logs/tarantool-master-run1.log").find("memstand: replication ready"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/ev/logs/redis-replica-2-run1.log"));

  // The report page: per system throughput, p99 and ratios against concurrency, all six
  // drawn by Chromium from this run's evidence.
  const std::string page = dir + "/r.html";
  Outcome rep = RunMemstand({"report", dir + "/ev", "-o", page}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  EXPECT_NE(ReadText(page).find("Validity of the load runs' statistics"), std::string::npos);
  ASSERT_TRUE(testutil::HaveProgram("chromium")) << "the report's browser check needs scripts/deps.sh --test";
  const testutil::CommandResult dom = Chromium(page, "--dump-dom", dir + "/profile");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(Attribute(dom.output, "data-done"), "1");
  EXPECT_EQ(Attribute(dom.output, "data-drawn"), "6");
  EXPECT_EQ(Errors(dom.output), "");
}

TEST(ReplicationCostE2E, BadFlagsExitTwoAndTheListNamesIt) {
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--concurrency", "4,1"}, "--concurrency: "},
           {{"--concurrency", "1,4096"}, "--concurrency: 4096 is above 1024 connections"},
           {{"--step-duration", "0"}, "--step-duration must be 0.1 s .. 1 h"},
           {{"--only", "etcd"}, "--only: no system 'etcd'; known: tarantool, redis"},
           {{"--sync-quorum", "most"}, "--sync-quorum: unknown 'most'; known: majority, all"}}) {
    std::vector<std::string> full = {"scenario", "run", "replication-cost"};
    full.insert(full.end(), args.begin(), args.end());
    Outcome out = RunMemstand(full, 30);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(message), std::string::npos) << out.output;
  }
  Outcome list = RunMemstand({"scenario", "list"}, 30);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("replication-cost\n  How much write throughput"), std::string::npos) << list.output;
}

}  // namespace
}  // namespace memstand::e2e
