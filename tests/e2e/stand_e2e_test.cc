// `memstand up`, `ps` and `down` end to end: the real binary starts real servers that
// outlive it, lists them, and stops them (checked by pid); planted state files and run
// roots are refused and their victims live; a killed run's temporary folder is removed
// by the next run.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "core/cpu_set.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "load/proto_control.h"
#include "stand/process.h"
#include "stand/stand_state.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

class StandE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = TempDir(); }
  void TearDown() override {
    RunMemstand({"down", "--run-dir", root_}, 30);  // whatever a failed test left running
    fs::remove_all(root_);
  }
  Outcome Memstand(std::vector<std::string> args) {
    args.push_back("--run-dir");
    args.push_back(root_);
    return RunMemstand(args, 60);
  }
  TopologyRecord Record(const std::string& name) {
    auto r = ReadTopologyRecord(root_ + "/" + name + "/state.json");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : TopologyRecord{};
  }
  std::string root_;
};

TEST_F(StandE2eTest, UpLeavesServersRunningPsListsThemDownStopsThem) {
  Outcome up = Memstand({"up", "redis-replica", "--name", "pair", "--set", "maxmemory=16mb"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("memstand up: redis-replica 'pair' is up: 2 process(es), run folder " +
                           root_ + "/pair"),
            std::string::npos)
      << up.output;
  TopologyRecord pair = Record("pair");
  const std::vector<NodeRecord>& nodes = pair.nodes;
  ASSERT_EQ(nodes.size(), 2u);
  for (const NodeRecord& n : nodes) {
    EXPECT_EQ(NodeOwnership(pair, n).verdict, Ownership::kOurs) << n.name;  // memstand has exited
    EXPECT_NE(up.output.find(n.host + ":" + std::to_string(n.port)), std::string::npos);
    EXPECT_NE(up.output.find(n.log), std::string::npos);
  }

  Outcome ps = Memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("pair (redis-replica, up): 2/2 process(es) alive, detached"),
            std::string::npos)
      << ps.output;
  EXPECT_NE(ps.output.find("primary"), std::string::npos);

  Outcome down = Memstand({"down", "pair"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  for (const NodeRecord& n : nodes) {
    EXPECT_NE(down.output.find(n.name + " (redis-server, pid " + std::to_string(n.process.pid) +
                               "): stopped"),
              std::string::npos)
        << down.output;
    EXPECT_EQ(NodeOwnership(pair, n).verdict, Ownership::kGone) << n.name;
  }
  EXPECT_FALSE(fs::exists(root_ + "/pair"));
  Outcome empty = Memstand({"ps"});
  EXPECT_EQ(empty.output, "no topologies under " + root_ + "\n");
}

TEST_F(StandE2eTest, ServerCpusPinEveryNodeAndPsShowsWhatTheKernelSays) {
  auto online = OnlineCpus();
  ASSERT_TRUE(online.ok()) << online.status().message();
  const std::string cpu = std::to_string(online->back());  // 1 on a two-CPU machine
  Outcome up = Memstand({"up", "redis-replica", "--name", "pinned", "--server-cpus", cpu});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  TopologyRecord pinned = Record("pinned");
  ASSERT_EQ(pinned.nodes.size(), 2u);
  Outcome ps = Memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find(" CPUS "), std::string::npos) << ps.output;
  for (const NodeRecord& n : pinned.nodes) {
    auto cpus = ProcessCpus(n.process.pid);  // /proc/PID/status Cpus_allowed_list
    ASSERT_TRUE(cpus.ok()) << cpus.status().message();
    EXPECT_EQ(CpuListText(*cpus), cpu) << n.name;
    // The node's row: "... PID  alive    CPUS     LOG".
    const std::string row = std::to_string(n.process.pid) + "  alive    " + cpu;
    EXPECT_NE(ps.output.find(row), std::string::npos) << row << "\n" << ps.output;
  }
  ASSERT_EQ(Memstand({"down", "pinned"}).exit_code, 0);
}

TEST_F(StandE2eTest, UpFromATomlFileAndDownWithoutANameStopsAll) {
  std::string file = root_ + "/cache.toml";
  std::ofstream(file) << "kind = \"memcached\"\nname = \"cache\"\n[settings]\nmemory-limit = 32\n";
  Outcome up = Memstand({"up", "--file", file});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  Outcome up2 = Memstand({"up", "redis", "--name", "solo"});
  ASSERT_EQ(up2.exit_code, 0) << up2.output;
  std::vector<TopologyRecord> records = {Record("cache"), Record("solo")};
  ASSERT_EQ(records[0].nodes.size(), 1u);
  EXPECT_NE(JoinCmdline(records[0].nodes[0].process.cmdline).find("--memory-limit=32"),
            std::string::npos);

  Outcome down = Memstand({"down"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  for (const TopologyRecord& r : records) {
    for (const NodeRecord& n : r.nodes) {
      EXPECT_EQ(NodeOwnership(r, n).verdict, Ownership::kGone) << n.name;
    }
  }
  EXPECT_TRUE(ListTopologies(root_)->empty());
}

// A `[relay]` table puts a `memstand relay` in front of the node: its own port answers
// PING through the relay, ps lists it beside the server, down stops both.
TEST_F(StandE2eTest, ARelayFromTheTopologyFileFrontsTheNodeAndGoesWithDown) {
  std::string file = root_ + "/far.toml";
  std::ofstream(file) << "kind = \"redis\"\nname = \"far\"\n[relay]\ndelay = \"2ms\"\n"
                         "mode = \"serializing\"\n";
  Outcome up = Memstand({"up", "--file", file});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  TopologyRecord far = Record("far");
  ASSERT_EQ(far.nodes.size(), 2u) << up.output;
  const NodeRecord& server = far.nodes[0];
  const NodeRecord& relay = far.nodes[1];
  EXPECT_EQ(relay.role, "relay");
  EXPECT_EQ(relay.fronts, "redis");
  EXPECT_NE(relay.port, server.port);
  EXPECT_EQ(NodeOwnership(far, relay).verdict, Ownership::kOurs);
  const std::string cmdline = JoinCmdline(relay.process.cmdline);
  EXPECT_NE(cmdline.find("relay --link 127.0.0.1:" + std::to_string(relay.port) + "=127.0.0.1:" +
                         std::to_string(server.port) + " --delay 2ms --mode serializing"),
            std::string::npos)
      << cmdline;

  auto fd = ConnectTcp("127.0.0.1", relay.port, 5000, true);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  ASSERT_TRUE(SetIoTimeout(*fd, 5000).ok());
  ASSERT_TRUE(WriteAll(*fd, "PING\r\n", 6).ok());
  std::string reply;
  char buf[16];
  while (reply.size() < 7) {
    auto n = ReadSome(*fd, buf, sizeof(buf));
    if (!n.ok() || *n == 0) break;
    reply.append(buf, *n);
  }
  close(*fd);
  EXPECT_EQ(reply, "+PONG\r\n");

  Outcome ps = Memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("far (redis, up): 2/2 process(es) alive"), std::string::npos)
      << ps.output;
  EXPECT_NE(ps.output.find("127.0.0.1:" + std::to_string(relay.port)), std::string::npos);

  Outcome down = Memstand({"down", "far"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  EXPECT_NE(down.output.find("relay ("), std::string::npos) << down.output;
  for (const NodeRecord& n : far.nodes) {
    EXPECT_EQ(NodeOwnership(far, n).verdict, Ownership::kGone) << n.name;
  }
  EXPECT_TRUE(ListTopologies(root_)->empty());
}

TEST_F(StandE2eTest, ARelayInFrontOfAnUnknownNodeIsRefusedBeforeAnythingStarts) {
  std::string file = root_ + "/bad.toml";
  std::ofstream(file) << "kind = \"redis\"\nname = \"bad\"\n[relay]\nnode = \"primary\"\n";
  Outcome up = Memstand({"up", "--file", file});
  EXPECT_EQ(up.exit_code, 2) << up.output;
  EXPECT_NE(up.output.find("relay.node 'primary': no such node in 'bad' (its nodes: redis)"),
            std::string::npos)
      << up.output;
  EXPECT_TRUE(ListTopologies(root_)->empty());
}

// One EVAL on a replica set member; "" on any failure (the test then fails on it).
std::string EvalText(const NodeRecord& n, const std::string& lua) {
  RedisTarget target;
  target.scheme = "tarantool";
  target.host = n.host;
  target.port = n.port;
  auto c = ProtoControl::Connect(Protocol::kIproto, target, 5000);
  if (!c.ok()) return "connect: " + c.status().message();
  auto r = (*c)->Eval(lua, iproto::Value::Array({}));
  if (!r.ok()) return "error: " + r.status().message();
  return r->size() == 1 && r->items()[0].type() == iproto::Value::Type::kString ? r->items()[0].str()
                                                                                : iproto::ToString(*r);
}

TEST_F(StandE2eTest, TarantoolReplicaSetFromAFileReplicatesAWriteToEveryReplica) {
  std::string file = root_ + "/set.toml";
  std::ofstream(file) << "kind = \"tarantool-replicaset\"\nname = \"set\"\nreplicas = 2\n"
                         "[settings]\nmemtx_memory = \"64m\"\n";
  Outcome up = Memstand({"up", "--file", file});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("memstand up: tarantool-replicaset 'set' is up: 3 process(es)"), std::string::npos)
      << up.output;
  TopologyRecord set = Record("set");
  ASSERT_EQ(set.nodes.size(), 3u);
  Outcome ps = Memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("set (tarantool-replicaset, up): 3/3 process(es) alive, detached"), std::string::npos)
      << ps.output;
  EXPECT_NE(ps.output.find("  master   master "), std::string::npos) << ps.output;
  EXPECT_NE(ps.output.find("  replica  replica-2 "), std::string::npos) << ps.output;

  const NodeRecord& master = set.nodes[0];
  EXPECT_EQ(EvalText(master, "return tostring(box.info.ro) .. ' ' .. box.cfg.memtx_memory"), "false 67108864");
  EXPECT_EQ(EvalText(master, "box.schema.space.create('stand', {if_not_exists = true})"
                             ":create_index('pk', {if_not_exists = true}) "
                             "box.space.stand:replace{1, 'on the master'} return 'ok'"),
            "ok");
  for (size_t i = 1; i < set.nodes.size(); ++i) {
    const NodeRecord& replica = set.nodes[i];
    // Replication is asynchronous: poll the replica (bounded) until the tuple is there.
    std::string got;
    for (int tries = 0; tries < 500 && got != "on the master"; ++tries) {
      got = EvalText(replica, "local t = box.space.stand and box.space.stand:get{1} return t and t[2] or ''");
      if (got != "on the master") std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(got, "on the master") << replica.name;
    EXPECT_EQ(EvalText(replica, "return tostring(box.info.ro)"), "true") << replica.name;
    EXPECT_NE(EvalText(replica, "box.space.stand:replace{2, 'on a replica'}").find("read-only"), std::string::npos)
        << replica.name;
    // The master and the other replica, both following.
    EXPECT_EQ(EvalText(replica, "local n = 0 for id, r in pairs(box.info.replication) do "
                                "if r.upstream and r.upstream.status == 'follow' then n = n + 1 end end "
                                "return tostring(n)"),
              "2")
        << replica.name;
  }

  Outcome down = Memstand({"down", "set"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  size_t replica_line = down.output.find("replica-1 (tarantool, pid");
  size_t master_line = down.output.find("master (tarantool, pid");
  EXPECT_NE(replica_line, std::string::npos) << down.output;
  EXPECT_LT(replica_line, master_line) << down.output;  // replicas first
  for (const NodeRecord& n : set.nodes) EXPECT_EQ(NodeOwnership(set, n).verdict, Ownership::kGone) << n.name;
  EXPECT_FALSE(fs::exists(root_ + "/set"));
}

TEST_F(StandE2eTest, BadOptionsExitTwoWithAClearMessageAndStartNothing) {
  auto busy = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(busy.ok());
  std::string busy_port = std::to_string(*LocalPort(*busy));
  std::string bad_toml = root_ + "/bad.toml";
  std::ofstream(bad_toml) << "kind = \"redis\"\nmaxmemory = \"1gb\"\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"up", "redis-sentry"}, "memstand up: unknown topology 'redis-sentry'; known: redis,"},
      {{"up", "redis-cluster", "--masters", "0"},
       "memstand up: --masters 0: a cluster needs at least 1 master"},
      {{"up", "redis-replica", "--replicas", "0"},
       "memstand up: --replicas 0: redis-replica needs at least 1 replica"},
      {{"up", "redis", "--port", busy_port},
       "memstand up: redis: port " + busy_port + " on 127.0.0.1 is already in use"},
      {{"up", "memcached", "--binary", "memstand-missing-memcached"},
       "memstand up: memstand-missing-memcached not found in PATH; install it with: apt-get "
       "install memcached"},
      {{"up", "--file", bad_toml}, "memstand up: " + bad_toml + ": unknown key 'maxmemory'"},
      {{"up"}, "memstand up: name a TOPOLOGY (redis, redis-replica"},
      {{"up", "redis", "--set", "maxmemory"}, "memstand up: --set 'maxmemory': expected KEY=VALUE"},
      {{"up", "redis", "--set", "maxmemory-policy=sometimes"}, "FATAL CONFIG FILE ERROR"},
      {{"up", "redis", "--set", "requirepass=s3cret"}, "with '-NOAUTH Authentication required.'"},
      {{"down", "nothing-here"}, "memstand down: no topology 'nothing-here' under " + root_},
      {{"up", "redis", "--name", ""}, "memstand up: --name: an empty name"},
      {{"up", "redis", "--server-cpus", "1-0"}, "memstand up: --server-cpus: bad CPU list '1-0': range '1-0' ends"},
      {{"up", "redis", "--server-cpus", ""}, "memstand up: --server-cpus: bad CPU list '': empty"},
      {{"up", "redis", "--server-cpus", "1023"},
       "memstand up: --server-cpus 1023: CPU 1023 is not online on this machine (online: "},
  };
  for (const auto& [args, message] : cases) {
    Outcome o = Memstand(args);
    EXPECT_EQ(o.exit_code, 2) << args[0] << " " << (args.size() > 1 ? args[1] : "") << "\n" << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << o.output;
  }
  close(*busy);
  EXPECT_TRUE(ListTopologies(root_)->empty());
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename(), "bad.toml");  // no run folder was left
  }
}

// --- planted state files: `down` must refuse them and the victim must live ----------------

constexpr uid_t kNobody = 65534;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A process of ours that memstand did not start: `sleep 30` in a group of its own.
std::unique_ptr<Process> Victim() {
  auto p = Process::Spawn(SpawnOptions{{"sleep", "30"}, "", ""});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : nullptr;
}

// What an attacker would write: a well-formed record under root/name naming `victim`
// (its identity copied from /proc), with a token file of its own in place.
TopologyRecord Plant(const std::string& root, const std::string& name,
                     const ProcessIdentity& victim) {
  TopologyRecord r;
  r.name = name;
  r.kind = "redis";
  r.status = "up";
  r.dir = root + "/" + name;
  r.detached = true;
  r.token = "00112233445566778899aabbccddeeff";
  NodeRecord n;
  n.name = "redis";
  n.role = "server";
  n.host = "127.0.0.1";
  n.port = 6379;
  n.binary = "redis-server";
  n.process = victim;
  r.nodes = {n};
  EXPECT_TRUE(EnsurePrivateDir(root, "run root").ok());
  EXPECT_TRUE(EnsurePrivateDir(r.dir, "run folder").ok());
  EXPECT_TRUE(WritePrivateFile(r.dir + "/" + kOwnerTokenFile, r.token).ok());
  EXPECT_TRUE(WriteTopologyRecord(r.dir + "/" + kStateFileName, r).ok());
  return r;
}

// The victim's identity once exec has finished: right after Spawn returns, /proc/PID/
// cmdline can still be empty (the exec closed the report pipe before it set up the new
// argument area), and a copy taken then is not the identity `down` would see.
ProcessIdentity IdentityOf(const Process& p) {
  Result<ProcessIdentity> id = Status::NotFound("not read");
  for (int i = 0; i < 500; ++i) {  // at most 5 s
    id = ReadProcessIdentity(p.pid());
    if (id.ok() && !id->cmdline.empty() && id->cmdline[0] == "sleep") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(id.ok() && !id->cmdline.empty() && id->cmdline[0] == "sleep")
      << (id.ok() ? JoinCmdline(id->cmdline) : id.status().message());
  return id.ok() ? *id : ProcessIdentity{};
}

TEST_F(StandE2eTest, ACopiedIdentityWithoutTheTokenIsNotSignalled) {
  auto victim = Victim();
  ASSERT_NE(victim, nullptr);
  Plant(root_, "copy", IdentityOf(*victim));
  Outcome ps = Memstand({"ps"});
  EXPECT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("0/1 process(es) alive"), std::string::npos) << ps.output;
  EXPECT_NE(ps.output.find("not proven ours (it does not hold the topology's token file"),
            std::string::npos)
      << ps.output;
  Outcome down = Memstand({"down", "copy"});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("redis (redis-server, pid " + std::to_string(victim->pid()) +
                             "): left alone, not proven to be the process memstand started: it "
                             "does not hold the topology's token file"),
            std::string::npos)
      << down.output;
  EXPECT_TRUE(victim->Alive());
  EXPECT_TRUE(fs::exists(root_ + "/copy/state.json"));  // kept: a process may be running
}

TEST_F(StandE2eTest, AStateFileWithALooseModeOrAnotherOwnerIsRefused) {
  auto victim = Victim();
  ASSERT_NE(victim, nullptr);
  Plant(root_, "loose", IdentityOf(*victim));
  std::string state = root_ + "/loose/state.json";
  ASSERT_EQ(chmod(state.c_str(), 0666), 0);
  Outcome down = Memstand({"down", "loose"});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("state file " + state + ": refused: mode 0666 lets group or others in"),
            std::string::npos)
      << down.output;
  Outcome up = Memstand({"up", "redis", "--name", "loose"});  // nor replaced by up
  EXPECT_EQ(up.exit_code, 1) << up.output;
  EXPECT_NE(up.output.find("state file " + state + ": refused"), std::string::npos) << up.output;
  EXPECT_TRUE(fs::exists(state));
  EXPECT_TRUE(victim->Alive());
  if (geteuid() != 0) GTEST_SKIP() << "chown to another user needs root";
  ASSERT_EQ(chmod(state.c_str(), 0600), 0);
  ASSERT_EQ(chown(state.c_str(), kNobody, kNobody), 0);
  down = Memstand({"down"});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("state file " + state + ": refused: owned by uid 65534, not by you"),
            std::string::npos)
      << down.output;
  EXPECT_TRUE(victim->Alive());
  ASSERT_EQ(chown(state.c_str(), 0, 0), 0);  // so TearDown's down can read it
}

TEST_F(StandE2eTest, ARunRootWithALooseModeAnotherOwnerOrASymlinkIsRefused) {
  auto victim = Victim();
  ASSERT_NE(victim, nullptr);
  // The record would be trusted if the root were private: the refusal is the root's.
  std::string root = root_ + "/shared";
  Plant(root, "planted", IdentityOf(*victim));
  ASSERT_EQ(chmod(root.c_str(), 0777), 0);
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);  // the environment gets the same checks
  Outcome down = RunMemstand({"down"});
  unsetenv("MEMSTAND_RUN_DIR");
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("memstand down: run root " + root +
                             ": refused: mode 0777 lets group or others in (want 0700); nothing "
                             "was signalled"),
            std::string::npos)
      << down.output;
  Outcome ps = RunMemstand({"ps", "--run-dir", root});
  EXPECT_EQ(ps.exit_code, 1) << ps.output;
  EXPECT_NE(ps.output.find("memstand ps: run root " + root + ": refused"), std::string::npos)
      << ps.output;
  Outcome up = RunMemstand({"up", "redis", "--run-dir", root});
  EXPECT_EQ(up.exit_code, 1) << up.output;
  EXPECT_NE(up.output.find("run root " + root + ": refused"), std::string::npos) << up.output;
  std::string link = root_ + "/link";
  ASSERT_EQ(chmod(root.c_str(), 0700), 0);
  fs::create_directory_symlink(root, link);
  down = RunMemstand({"down", "--run-dir", link});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("run root " + link + ": refused: a symlink"), std::string::npos)
      << down.output;
  EXPECT_TRUE(victim->Alive());
  if (geteuid() != 0) GTEST_SKIP() << "chown to another user needs root";
  ASSERT_EQ(chown(root.c_str(), kNobody, kNobody), 0);
  down = RunMemstand({"down", "--run-dir", root});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("run root " + root + ": refused: owned by uid 65534, not by you"),
            std::string::npos)
      << down.output;
  EXPECT_TRUE(victim->Alive());
}

// The host pids of `parent`'s children (/proc/PID/task/PID/children).
std::vector<pid_t> Children(pid_t parent) {
  std::ifstream in("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) +
                   "/children");
  std::vector<pid_t> kids;
  for (pid_t pid; in >> pid;) kids.push_back(pid);
  return kids;
}

// Polls (bounded: 20 s) until `ready` holds.
bool WaitFor(const std::function<bool()>& ready) {
  for (int i = 0; i < 2000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The worst case: a record naming pid 1 with pid 1's real identity. The old
// `down` found it "ours", saw it lead its group and called kill(-1): every process.
TEST_F(StandE2eTest, PidOneOfAPrivatePidNamespaceIsNeverSignalled) {
  if (geteuid() != 0 || std::system("unshare --pid --fork --mount-proc true >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "cannot make a private PID namespace here (needs root and unshare from "
                    "util-linux)";
  }
  // pid 1 of the namespace: a shell leading its own session and group, with a
  // bystander in its group that kill(-1) or kill(-1's group) would hit; it runs
  // `memstand down` on the planted record once told to, then waits (bounded). Its exit
  // code is written aside and renamed, so the file the test waits for is whole (it read
  // an empty one once, between the shell's open and its write).
  const std::string r = root_;
  const std::string script =
      "sleep 30 & "
      "i=0; while [ ! -e " +
      r + "/go ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done; " +
      testutil::MemstandBinary() + " down --run-dir " + r + " >" + r + "/down.out 2>&1; echo $? >" +
      r + "/down.rc.part; mv " + r + "/down.rc.part " + r +
      "/down.rc; "
      "i=0; while [ ! -e " +
      r + "/end ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done";
  auto ns = Process::Spawn(SpawnOptions{
      {"unshare", "--pid", "--fork", "--mount-proc", "setsid", "sh", "-c", script}, "", ""});
  ASSERT_TRUE(ns.ok()) << ns.status().message();
  pid_t init = 0;       // the namespace's pid 1, by its host pid
  pid_t bystander = 0;  // its `sleep 30` (beside it, its wait loop's short sleeps come and go)
  ASSERT_TRUE(WaitFor([&] {
    std::vector<pid_t> kids = Children((*ns)->pid());
    if (kids.empty()) return false;
    init = kids[0];
    auto id = ReadProcessIdentity(init);
    if (!id.ok() || id->cmdline.empty() || id->cmdline[0] != "sh") return false;
    for (pid_t kid : Children(init)) {
      auto k = ReadProcessIdentity(kid);
      if (k.ok() && k->cmdline == std::vector<std::string>{"sleep", "30"}) bystander = kid;
    }
    return bystander != 0;
  }));
  ProcessIdentity pid1 = *ReadProcessIdentity(init);
  pid1.pid = 1;  // as the namespace sees it
  Plant(r, "init", pid1);
  std::ofstream(r + "/go") << "";
  ASSERT_TRUE(WaitFor([&] { return fs::exists(r + "/down.rc"); }));
  std::string out = Slurp(r + "/down.out");
  EXPECT_EQ(Slurp(r + "/down.rc"), "1\n") << out;
  EXPECT_NE(out.find("redis (redis-server, pid 1): left alone, not proven to be the process "
                     "memstand started: pid 1: memstand never signals pid 0 or 1"),
            std::string::npos)
      << out;
  auto init_now = ReadProcessIdentity(init);
  ASSERT_TRUE(init_now.ok());
  EXPECT_EQ(init_now->start_ticks, pid1.start_ticks);
  EXPECT_TRUE(ReadProcessIdentity(bystander).ok()) << "the bystander in pid 1's group was killed";
  std::ofstream(r + "/end") << "";
  (*ns)->Terminate();
  // Outside the namespace "pid 1" is the machine's init: TearDown's `down` must never
  // see this record, even from a build whose checks are broken.
  fs::remove_all(r + "/init");
}

// --- the temporary folder of a killed `memstand run` -----------------------------------------

// The folders under dir whose name starts with prefix.
std::vector<std::string> FoldersLike(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with(prefix)) found.push_back(e.path().string());
  }
  return found;
}

TEST_F(StandE2eTest, TheNextRunRemovesTheFolderOfAKilledRun) {
  std::string tmp = root_ + "/tmp";
  fs::create_directory(tmp);
  setenv("TMPDIR", tmp.c_str(), 1);  // inherited by the memstand processes below
  auto killed = Running::Start({"run", "--duration", "60s", "-q"});
  ASSERT_NE(killed, nullptr);
  std::string folder;
  ASSERT_TRUE(WaitFor([&] {
    auto found = FoldersLike(tmp, "memstand-redis-");
    if (found.size() == 1 && fs::exists(found[0] + "/memstand.owner")) folder = found[0];
    return !folder.empty();
  }));
  pid_t pid = killed->pid();
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  killed->Wait(10);
  EXPECT_TRUE(fs::exists(folder));  // SIGKILL leaves it behind
  ExpectNextRunRemoves(folder, pid);
  EXPECT_TRUE(FoldersLike(tmp, "memstand-").empty());  // and the next run's own is gone too
}

}  // namespace
}  // namespace memstand::e2e
