// memstand run against a Sentinel target (redis+sentinel://, issue #30): the stand's
// redis-sentinel topology (a primary, 2 replicas, 3 Sentinels) started as a library, its
// primary killed once the run's SETs reach it, or switched over with it alive; the run
// asks the Sentinels again and goes on against the promoted replica. Those two go over
// epoll and io_uring (IoModeTest). Then: a run with no failover cross-checks, an unknown
// master name fails at the start, and misused or malformed URLs are refused.
#include <signal.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/clock.h"
#include "e2e/e2e_util.h"
#include "stand/topology.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;
using testutil::Within;

// The stand's redis-sentinel topology in nodes() order: primary, replica-1, replica-2,
// sentinel-1..3; its Sentinels fail over half a second after the primary stops answering.
class SentinelStand {
 public:
  static constexpr size_t kReplicas[] = {1, 2};

  void Start() {
    TopologySpec spec;
    spec.kind = TopologyKind::kRedisSentinel;
    spec.replicas = 2;
    spec.settings = {{"sentinel.down-after-milliseconds", "500"}, {"sentinel.failover-timeout", "2000"}};
    TopologyOptions o;
    o.run_root = TempDir() + "/stand";
    auto t = Topology::Start(spec, o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    topology_ = std::move(*t);
    ASSERT_EQ(topology_->nodes().size(), 6u);
    ASSERT_EQ(topology_->nodes()[3].role, "sentinel");
  }
  void Stop() {
    if (topology_ == nullptr) return;
    Status stopped = topology_->Stop();
    EXPECT_TRUE(stopped.ok()) << stopped.message();
  }

  Topology& topology() { return *topology_; }
  std::string Address(size_t i) const {
    return topology_->nodes()[i].host + ":" + std::to_string(topology_->nodes()[i].port);
  }
  /// redis+sentinel://sentinel-1,sentinel-2,sentinel-3/<name>.
  std::string Url(const std::string& name) const {
    std::string url = "redis+sentinel://";
    for (size_t i = 3; i < 6; ++i) url += (i > 3 ? "," : "") + Address(i);
    return url + "/" + name;
  }
  /// `command`'s calls in node i's INFO commandstats (-1: no answer).
  int64_t Calls(size_t i, const std::string& command) {
    auto info = Ask(i, {"INFO", "commandstats"});
    if (!info.ok()) return -1;
    auto stats = ParseCommandStats(info->str);
    auto it = stats.find(command);
    return it == stats.end() ? 0 : it->second.calls;
  }
  /// The first word of node i's ROLE ("master", "slave"), or "" with no answer.
  std::string Role(size_t i) {
    auto role = Ask(i, {"ROLE"});
    return role.ok() && !role->elements.empty() ? role->elements[0].str : "";
  }
  /// The replica that is a master now (0 while none is).
  size_t Promoted() {
    for (size_t i : kReplicas) {
      if (Role(i) == "master") return i;
    }
    return 0;
  }
  /// Sentinel's own periods, 1 s between INFOs to every node (10 s by default to a
  /// replica) and 0.5 s between hellos (2 s), so that a node that says it is a primary
  /// while the Sentinels list it as a replica is made one ~2 s after it is seen, not
  /// ~8 s after a 10 s INFO period: the same steps, sooner (SENTINEL DEBUG, Redis 7).
  void QuickenSentinels() {
    for (size_t i = 3; i < 6; ++i) {
      auto r = Ask(i, {"SENTINEL", "DEBUG", "info-period", "1000", "publish-period", "500"});
      ASSERT_TRUE(r.ok()) << r.status().message();
      ASSERT_EQ(r->str, "OK") << r->str;
    }
  }
  /// The connections of node i whose last command was a SET or a GET: the run's (the
  /// Sentinels name theirs and send neither; a replica's link runs no command).
  int LoadConnections(size_t i) {
    auto list = Ask(i, {"CLIENT", "LIST"});
    if (!list.ok()) return -1;
    int n = 0;
    std::istringstream lines(list->str);
    for (std::string line; std::getline(lines, line);) {
      n += line.find(" name= ") != std::string::npos &&
           (line.find(" cmd=set ") != std::string::npos || line.find(" cmd=get ") != std::string::npos);
    }
    return n;
  }
  /// One command on node i over a connection of its own.
  Result<resp::Reply> Ask(size_t i, const std::vector<std::string>& args) {
    auto c = RedisClient::Connect(topology_->nodes()[i].host, topology_->nodes()[i].port, 2000);
    if (!c.ok()) return c.status();
    return (*c)->Command(args);
  }

 private:
  std::unique_ptr<Topology> topology_;
};

class SentinelE2E : public IoModeTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(stand_.Start()); }
  void TearDown() override { stand_.Stop(); }

  // `memstand run --reconnect` on the Sentinel target for `duration`, its JSON in
  // json_path_, started once its SETs reach the primary.
  void StartLoad(const std::string& duration) {
    json_path_ = TempDir() + "/run.json";
    run_ = Running::Start({"run", "--target", stand_.Url("mymaster"), "--io", Io(), "--reconnect",
                           "--reconnect-min", "20ms", "--reconnect-max", "200ms", "--duration", duration, "-c",
                           "4", "--json", json_path_});
    ASSERT_NE(run_, nullptr);
    ASSERT_TRUE(Within(20, [&] { return stand_.Calls(0, "set") >= 1000; })) << run_->OutputSoFar();
  }

  SentinelStand stand_;
  std::unique_ptr<Running> run_;
  std::string json_path_;
};

TEST_P(SentinelE2E, PrimaryKilledMidRunTheRunGoesOnAgainstThePromotedReplica) {
  // A load that would outlast the wait, interrupted once all 4 of its connections are
  // open again to the promoted replica and it took SETs from them.
  ASSERT_NO_FATAL_FAILURE(StartLoad("120s"));
  const double killed_at = UnixNowS();
  ASSERT_TRUE(stand_.topology().KillNode(0).ok());
  // One replica becomes the primary. Its old primary is dead, so every SET it counts from
  // then on is memstand's.
  size_t promoted = 0;
  ASSERT_TRUE(Within(30, [&] { return (promoted = stand_.Promoted()) != 0; })) << run_->OutputSoFar();
  const int64_t sets_at_promotion = stand_.Calls(promoted, "set");
  ASSERT_TRUE(Within(30, [&] { return stand_.LoadConnections(promoted) >= 4; })) << run_->OutputSoFar();
  ASSERT_TRUE(Within(30, [&] { return stand_.Calls(promoted, "set") > sets_at_promotion; }))
      << "the promoted replica served no SET once it was the primary: " << run_->OutputSoFar();
  kill(run_->pid(), SIGINT);
  Outcome out = run_->Wait(60);
  ASSERT_EQ(out.exit_code, 130) << out.output;  // a failed run says 1 even when interrupted

  const json rep = ReadJson(json_path_);
  EXPECT_TRUE(rep["interrupted"].get<bool>());
  const json& s = rep["sentinel"];
  EXPECT_EQ(s["master_name"], "mymaster");
  EXPECT_EQ(s["sentinels"], json::array({stand_.Address(3), stand_.Address(4), stand_.Address(5)}));
  EXPECT_EQ(s["primary_at_start"], stand_.Address(0));
  ASSERT_EQ(s["changes"].size(), 1u) << s.dump();
  EXPECT_EQ(s["changes"][0]["primary"], stand_.Address(promoted)) << s.dump();
  EXPECT_GE(s["changes"][0]["unix_s"].get<double>(), killed_at) << s.dump();
  EXPECT_GE(s["queries"].get<uint64_t>(), 2u) << s.dump();  // the start's, and after the loss
  EXPECT_NE(out.output.find("sentinel: primary of 'mymaster' at the start " + stand_.Address(0)), std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("moved to " + stand_.Address(promoted)), std::string::npos) << out.output;

  // Every connection was lost with the primary and opened again to the promoted replica.
  EXPECT_GE(rep["availability"]["connections_lost"].get<int>(), 4) << rep["availability"].dump();
  EXPECT_GE(rep["availability"]["reconnects"].get<int>(), 4) << rep["availability"].dump();

  // The outcomes add up: every operation that did not end ok is an error reply or one
  // that got no reply, and the per-second series hold the same counts.
  uint64_t ok = 0, not_ok = 0;
  for (const char* label : {"SET", "GET"}) {
    const json* c = FindCommand(rep, label);
    ASSERT_NE(c, nullptr) << label;
    const json& o = (*c)["outcomes"];
    EXPECT_GT(o["ok"].get<uint64_t>(), 0u) << label;
    EXPECT_EQ(o["fail"].get<uint64_t>() + o["unknown"].get<uint64_t>(),
              (*c)["errors"].get<uint64_t>() + o["lost"].get<uint64_t>())
        << c->dump();
    ok += o["ok"].get<uint64_t>();
    not_ok += o["fail"].get<uint64_t>() + o["unknown"].get<uint64_t>();
  }
  EXPECT_EQ(SeriesSum(rep, "ok"), ok);
  EXPECT_EQ(SeriesSum(rep, "fail") + SeriesSum(rep, "unknown"), not_ok);

  // The counters of two servers do not cover the run: no cross-check, and it says why.
  EXPECT_FALSE(rep["cross_check"]["available"].get<bool>());
  EXPECT_NE(rep["cross_check"]["reason"].get<std::string>().find("the primary moved"), std::string::npos)
      << rep["cross_check"].dump();
}

// A switchover (SENTINEL FAILOVER) with the primary alive: the run hears of it only when
// Sentinel turns the old primary into a replica (it sees it still says master within
// its INFO period: 10 s by default, 1 s here, QuickenSentinels) and closes its clients'
// connections, which may come back to it, read-only now, before the engine has heard of
// the new primary. Until then the load goes on to the old primary, as redis-py's would.
// The run follows the new one after.
TEST_P(SentinelE2E, SwitchoverWithThePrimaryAliveIsFollowed) {
  ASSERT_NO_FATAL_FAILURE(stand_.QuickenSentinels());
  // A load that would outlast the wait (a CI run with builds beside it once took more
  // than 30 s to promote), interrupted once the new primary has taken the run's SETs
  // for 3 s: what is asserted is there by then.
  ASSERT_NO_FATAL_FAILURE(StartLoad("150s"));
  auto asked = stand_.Ask(3, {"SENTINEL", "FAILOVER", "mymaster"});
  ASSERT_TRUE(asked.ok()) << asked.status().message();
  ASSERT_EQ(asked->str, "OK") << asked->str;
  size_t promoted = 0;
  ASSERT_TRUE(Within(60, [&] { return (promoted = stand_.Promoted()) != 0; })) << run_->OutputSoFar();
  // Once the old primary replicates from it, every SET the new one counts is a client's.
  ASSERT_TRUE(Within(30, [&] { return stand_.Role(0) == "slave"; })) << run_->OutputSoFar();
  const int64_t sets_then = stand_.Calls(promoted, "set");
  ASSERT_TRUE(Within(30, [&] { return stand_.Calls(promoted, "set") > sets_then; })) << run_->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  kill(run_->pid(), SIGINT);
  Outcome out = run_->Wait(60);
  ASSERT_EQ(out.exit_code, 130) << out.output;  // a failed run says 1 even when interrupted
  const json rep = ReadJson(json_path_);
  EXPECT_TRUE(rep["interrupted"].get<bool>());
  const json& s = rep["sentinel"];
  EXPECT_EQ(s["primary_at_start"], stand_.Address(0));
  ASSERT_EQ(s["changes"].size(), 1u) << s.dump();
  EXPECT_EQ(s["changes"][0]["primary"], stand_.Address(promoted)) << s.dump();
  // The run ended against the new primary: its last whole second (after the old
  // primary's demotion: the old one refuses SETs since) has ok SETs.
  const json& series = rep["series"]["SET"];
  ASSERT_GE(series.size(), 3u);
  EXPECT_GT(series[series.size() - 2]["ok"].get<uint64_t>(), 0u) << series.dump();
  // Sentinel closed every connection to the old primary when it demoted it.
  EXPECT_GE(rep["availability"]["connections_lost"].get<int>(), 4) << rep["availability"].dump();
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, SentinelE2E, ::testing::Values("epoll", "uring"));

// A master name no Sentinel knows: the run fails before any load (exit 1), naming it.
TEST(SentinelTargetE2E, UnknownMasterNameFailsAtTheStartNamingIt) {
  SentinelStand stand;
  ASSERT_NO_FATAL_FAILURE(stand.Start());
  Outcome out = RunMemstand({"run", "--target", stand.Url("nosuchmaster"), "--duration", "1s"});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("master name 'nosuchmaster'"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find(stand.Address(3) + ": knows no master named 'nosuchmaster'"), std::string::npos)
      << out.output;
  stand.Stop();
}

// Without a failover the cross-check holds, --exclusive too: the rows of what the
// Sentinels send the primary all along are left out.
TEST(SentinelTargetE2E, WithoutAFailoverTheCrossCheckHoldsEvenExclusive) {
  SentinelStand stand;
  ASSERT_NO_FATAL_FAILURE(stand.Start());
  const json rep = RunOk({"--target", stand.Url("mymaster"), "-n", "20000", "--exclusive"});
  ASSERT_TRUE(rep.contains("sentinel")) << rep.dump();
  EXPECT_EQ(rep["sentinel"]["primary_at_start"], stand.Address(0));
  EXPECT_TRUE(rep["sentinel"]["changes"].empty());
  EXPECT_EQ(rep["sentinel"]["queries"], 1);
  EXPECT_TRUE(rep["cross_check"]["available"].get<bool>()) << rep["cross_check"].dump();
  EXPECT_FALSE(rep["cross_check"]["mismatch"].get<bool>()) << rep["cross_check"].dump();
  stand.Stop();
}

// What a Sentinel target cannot be used with, and URLs that do not parse: exit 2, a
// message that says what is wrong, and never the password.
TEST(SentinelInputE2E, MisusedOrMalformedSentinelTargetsAreRefused) {
  const std::string ok_url = "redis+sentinel://127.0.0.1:1/mymaster";
  auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "-n", "1"});
    return args;
  };
  ExpectEveryCase(
      {
          {run({"--target", ok_url, "--cluster"}), 2, "--cluster: not with a Sentinel target"},
          {run({"--target", ok_url, "--target", "redis://127.0.0.1:2"}), 2, "is the whole target, not a pool member"},
          {run({"--target", "redis://127.0.0.1:2", "--target", ok_url}), 2, "is the whole target, not a pool member"},
          {run({"--target", ok_url, "--protocol", "memcache"}), 2, "a Sentinel target"},
          {run({"--target", "redis+sentinel://u:S3cretPW@127.0.0.1:1"}), 2, "missing the master name", "S3cretPW"},
          {run({"--target", "redis+sentinel:///mymaster"}), 2, "no Sentinel"},
          {run({"--target", "redis+sentinel://127.0.0.1:0/mymaster"}), 2, "port must be 1..65535"},
          {run({"--target", "redis+sentinel://127.0.0.1:1,,127.0.0.1:2/m"}), 2, "an empty Sentinel"},
      },
      30);
}

}  // namespace
}  // namespace memstand::e2e
