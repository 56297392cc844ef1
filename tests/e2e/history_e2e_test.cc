// `memstand run --history` against real redis-servers (issue #29), read back with the
// history library and checked by `memstand check`: a redis-server without persistence
// killed and restarted mid-run loses exactly the writes acknowledged before the kill
// (exit 4); with appendfsync always it loses none (exit 0); a run without faults over a
// few hot keys passes every check; a mix that is not reads and writes of registers, or
// values too short for a tag, is refused (exit 2).
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "codec/server_util.h"
#include "core/clock.h"
#include "e2e/e2e_util.h"
#include "history/history_reader.h"
#include "history/record.h"
#include "npm_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

void Pause(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

const json* CheckNamed(const json& result, const std::string& name) {
  for (const json& c : result["checks"]) {
    if (c["check"] == name) return &c;
  }
  return nullptr;
}

// Nanoseconds since the history's time 0 of a wall-clock instant.
int64_t SinceStart(const history::History& h, double unix_s) {
  return static_cast<int64_t>(unix_s * 1e9) - h.header.start_unix_ns;
}

struct KillRun {
  history::History history;
  double kill_from = 0, kill_to = 0;  // the wall clock around the kill
  double restarted = 0;               // the wall clock once the new server answers
  std::string output;
};

// Writes only, each to a key of its own (S: striped, no wrap in the range), under
// --reconnect --history; the server killed after a second of load and restarted 1.5 s
// later on its port.
void RunAndKill(LocalRedis& redis, const std::string& dir, const std::string& io, KillRun* out) {
  const std::string hist = dir + "/run.hist";
  auto run = Running::Start({"run", "--target", Url(redis), "--io", io, "--reconnect", "--reconnect-min", "20ms",
                             "--reconnect-max", "200ms", "--duration", "5s", "-c", "4", "--ratio", "1:0",
                             "--key-pattern", "S:S", "--key-minimum", "1", "--key-maximum", "50000000",
                             "--history", hist});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(redis, "set", 1000)) << run->OutputSoFar();
  Pause(1.0);
  out->kill_from = UnixNowS();
  ASSERT_TRUE(redis.node().Kill().ok());
  out->kill_to = UnixNowS();
  Pause(1.5);
  ASSERT_TRUE(redis.node().Restart().ok()) << redis.LogTail(20);
  out->restarted = UnixNowS();
  Outcome done = run->Wait(60);
  out->output = done.output;
  ASSERT_EQ(done.exit_code, 0) << done.output;
  EXPECT_NE(done.output.find("history: "), std::string::npos) << done.output;
  auto h = history::ReadHistoryFile(hist);
  ASSERT_TRUE(h.ok()) << h.status().message();
  out->history = std::move(*h);
}

class HistoryE2E : public IoModeTest {};

// Key 3 deleted behind the run's back with `del` (the protocol's delete of __key__): the
// check of lost writes finds its acknowledged writes lost (exit 4), saying `lost`.
void ExpectKeyThreeLostOnceDeleted(const std::string& url, const std::string& hist, const std::string& del,
                                   const std::string& lost) {
  Outcome deleted = RunMemstand({"run", "--target", url, "-n", "1", "-c", "1", "--command", del, "--key-minimum",
                                 "3", "--key-maximum", "3", "-q"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  Outcome check = RunMemstand({"check", hist, "--target", url, "--checks", "lost-writes"}, 120);
  EXPECT_EQ(check.exit_code, 4) << check.output;
  EXPECT_NE(check.output.find(lost), std::string::npos) << check.output;
}

TEST_P(HistoryE2E, WithoutPersistenceTheWritesAcknowledgedBeforeAKillAreLostAndNoneAfter) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  KillRun k;
  RunAndKill(*redis, dir, Io(), &k);
  if (HasFatalFailure()) return;
  const history::History& h = k.history;
  const int64_t kill_from = SinceStart(h, k.kill_from), kill_to = SinceStart(h, k.kill_to);
  const int64_t restarted = SinceStart(h, k.restarted);
  uint64_t acked_before = 0, acked_sent_by_kill = 0, acked_after = 0, unknown = 0;
  for (const history::Record& r : h.records) {
    ASSERT_EQ(r.f, history::Op::kWrite);
    if (r.outcome == history::Outcome::kUnknown) ++unknown;
    if (r.outcome != history::Outcome::kOk) continue;
    if (r.complete_ns < kill_from) ++acked_before;
    // Sent before the server was gone: only these can the killed server have
    // acknowledged (a reply read after the kill may have come before it).
    if (r.invoke_ns <= kill_to) ++acked_sent_by_kill;
    if (r.invoke_ns > restarted) ++acked_after;
  }
  EXPECT_GT(acked_before, 1000u);
  EXPECT_GT(acked_after, 1000u);
  EXPECT_GE(unknown, 1u) << "the writes in flight at the kill end unknown";

  const std::string result = dir + "/check.json";
  Outcome check = RunMemstand({"check", dir + "/run.hist", "--target", Url(*redis), "--json", result}, 120);
  ASSERT_EQ(check.exit_code, 4) << check.output;
  EXPECT_NE(check.output.find("verdict: violated"), std::string::npos) << check.output;
  const json j = ReadJson(result);
  const json* lost = CheckNamed(j, "lost-writes");
  ASSERT_NE(lost, nullptr) << j.dump();
  // One write per key: a violation per lost write. Every write acknowledged before the
  // kill is lost, and at most those sent before it (the kill's own instant blurs the
  // last few), none made after it.
  const uint64_t violations = (*lost)["violations"].get<uint64_t>();
  EXPECT_GE(violations, acked_before) << (*lost)["summary"];
  EXPECT_LE(violations, acked_sent_by_kill) << (*lost)["summary"];
  for (const json& f : (*lost)["findings"]) {
    if (f["kind"] != "lost") continue;
    for (const json& op : f["ops"]) EXPECT_LE(op["invoke_ns"].get<int64_t>(), kill_to) << f.dump();
  }
  for (const char* other : {"linearizable", "monotonic-reads", "read-your-writes"}) {
    const json* c = CheckNamed(j, other);
    ASSERT_NE(c, nullptr) << other;
    EXPECT_NE((*c)["verdict"], "violated") << c->dump();
  }
}

TEST_P(HistoryE2E, WithAppendfsyncAlwaysNoAcknowledgedWriteIsLost) {
  auto redis = StartRedis({{"appendonly", "yes"}, {"appendfsync", "always"}});
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  KillRun k;
  RunAndKill(*redis, dir, Io(), &k);
  if (HasFatalFailure()) return;
  uint64_t acked_before = 0;  // what the kill would have taken without the AOF
  for (const history::Record& r : k.history.records) {
    acked_before += r.outcome == history::Outcome::kOk && r.complete_ns < SinceStart(k.history, k.kill_from);
  }
  EXPECT_GT(acked_before, 1000u);
  Outcome check = RunMemstand({"check", dir + "/run.hist", "--target", Url(*redis), "--json", dir + "/c.json"}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  const json result = ReadJson(dir + "/c.json");
  const json* lost = CheckNamed(result, "lost-writes");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ((*lost)["verdict"], "pass") << (*lost)["summary"];
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, HistoryE2E, ::testing::Values("epoll", "uring"));

// scripts/history-kill-demo.sh, the same kill by hand with a server of its own: without
// persistence it finds the writes acknowledged by the kill lost and none sent after the
// restart (exit 4), with appendfsync always none (exit 0); its export holds every
// operation (it checks that itself, and exits 1 when not).
TEST(HistoryRunE2E, TheKillDemoScriptFindsTheLostWritesAndNoneWithAppendfsyncAlways) {
  const std::string script = testutil::SourceDir() + "/scripts/history-kill-demo.sh";
  const auto off = testutil::RunShell("timeout 300 bash " + testutil::ShellQuote(script) + " off " +
                                      testutil::ShellQuote(testutil::MemstandBinary()) + " 2>&1");
  EXPECT_EQ(off.exit_code, 4) << off.output;
  EXPECT_EQ(off.output.find("MISMATCH"), std::string::npos) << off.output;
  EXPECT_NE(off.output.find("sent before the kill, 0 after the restart"), std::string::npos) << off.output;
  const auto always = testutil::RunShell("timeout 300 bash " + testutil::ShellQuote(script) + " always " +
                                         testutil::ShellQuote(testutil::MemstandBinary()) + " 2>&1");
  EXPECT_EQ(always.exit_code, 0) << always.output;
  EXPECT_NE(always.output.find("lost: 0 acknowledged write(s)"), std::string::npos) << always.output;
}

// No fault, reads and writes over ten keys from eight clients at pipeline 4: every
// operation recorded (the run's own counts), values read back as this run's, every
// check passes.
TEST(HistoryRunE2E, AFaultlessRunOverHotKeysPassesEveryCheck) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string hist = dir + "/run.hist";
  const json run = RunOk({"--target", Url(*redis), "--requests", "20000", "-c", "8", "--pipeline", "4",
                          "--ratio", "1:3", "--key-minimum", "1", "--key-maximum", "10", "--warmup", "0s",
                          "--history", hist});
  ASSERT_TRUE(run.contains("history")) << run.dump();
  auto h = history::ReadHistoryFile(hist);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(run["history"]["records"].get<uint64_t>(), h->records.size());
  EXPECT_EQ(h->records.size(), 20000u);
  uint64_t ours = 0, absent = 0, foreign = 0;
  for (const history::Record& r : h->records) {
    EXPECT_EQ(r.outcome, history::Outcome::kOk);
    EXPECT_LE(r.key, 10u);
    if (r.f != history::Op::kRead) continue;
    ours += r.seen == history::Seen::kOurs;
    absent += r.seen == history::Seen::kAbsent;
    foreign += r.seen == history::Seen::kForeign;
  }
  EXPECT_GT(ours, 10000u);
  EXPECT_EQ(foreign, 0u);
  EXPECT_LE(absent, 20000u - ours);
  Outcome check = RunMemstand({"check", hist, "--target", Url(*redis)}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("linearizable       pass"), std::string::npos) << check.output;
}

// etcd: puts and gets over a few keys; each ok reply's revision recorded; every check
// passes, until a key is deleted behind the run's back (lost-writes: exit 4).
TEST(HistoryRunE2E, AnEtcdRunRecordsRevisionsAndPassesItsChecks) {
  auto etcd = codec_test::StartEtcd();
  ASSERT_TRUE(etcd.ok()) << etcd.status().message();
  const std::string dir = TempDir();
  const std::string hist = dir + "/run.hist";
  const std::string url = "etcd://127.0.0.1:" + std::to_string((*etcd)->port());
  Outcome out = RunMemstand({"run", "--target", url, "-c", "4",
                             "-n", "2000", "--command", "put __key__ __data__", "--command", "get __key__",
                             "--key-minimum", "1", "--key-maximum", "5", "--history", hist, "-q"},
                            120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto h = history::ReadHistoryFile(hist);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header.target_kind, history::TargetKind::kEtcd);
  uint64_t with_revision = 0, ours = 0;
  for (const history::Record& r : h->records) {
    with_revision += r.outcome == history::Outcome::kOk && r.revision > 0;
    ours += r.seen == history::Seen::kOurs;
  }
  EXPECT_EQ(with_revision, h->records.size());
  EXPECT_GT(ours, 500u);
  Outcome check = RunMemstand({"check", hist, "--target", url}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("lost-writes        pass"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("revisions          pass"), std::string::npos) << check.output;
  // A key deleted behind the run's back: its acknowledged writes are lost.
  ExpectKeyThreeLostOnceDeleted(url, hist, "delete __key__", "lost: memtier-3: ");
}

// memcached: sets and gets over a few keys; every check passes, until a key is deleted
// behind the run's back (lost-writes: exit 4).
TEST(HistoryRunE2E, AMemcachedRunRecordsItsRegistersAndPassesItsChecks) {
  auto server = codec_test::StartMemcached();
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string url = "memcache://127.0.0.1:" + std::to_string((*server)->port());
  const std::string hist = TempDir() + "/run.hist";
  Outcome out = RunMemstand({"run", "--target", url, "-c", "4", "--pipeline", "2", "-n", "4000", "--ratio", "1:1",
                             "--key-minimum", "1", "--key-maximum", "5", "--history", hist, "-q"},
                            120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto h = history::ReadHistoryFile(hist);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header.target_kind, history::TargetKind::kMemcache);
  EXPECT_EQ(h->records.size(), 4000u);
  uint64_t ours = 0, foreign = 0;
  for (const history::Record& r : h->records) {
    EXPECT_EQ(r.outcome, history::Outcome::kOk);
    ours += r.seen == history::Seen::kOurs;
    foreign += r.seen == history::Seen::kForeign;
  }
  EXPECT_GT(ours, 1000u);
  EXPECT_EQ(foreign, 0u);
  Outcome check = RunMemstand({"check", hist, "--target", url}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("lost-writes        pass"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("linearizable       pass"), std::string::npos) << check.output;
  ExpectKeyThreeLostOnceDeleted(url, hist, "delete __key__", "lost: memtier-3: ");
}

constexpr const char* kRegistersInit = R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
box.schema.space.create('kv'):create_index('pk', {type = 'hash', parts = {1, 'string'}})
box.schema.space.create('nums'):create_index('pk', {parts = {1, 'unsigned'}})
box.schema.user.grant('guest', 'read,write,execute', 'universe')
box.cfg{listen = '127.0.0.1:{PORT}'}
)";

// Tarantool: replaces and selects over a few keys of a space named in the commands;
// the header says which space (its id) and field; every check passes, until a key is
// deleted behind the run's back (lost-writes: exit 4). Keys as numbers, the value in
// the third field, the same.
TEST(HistoryRunE2E, ATarantoolRunRecordsItsRegistersAndPassesItsChecks) {
  auto server = codec_test::StartTarantool(kRegistersInit);
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string url = "tarantool://127.0.0.1:" + std::to_string((*server)->port());
  const std::string dir = TempDir();
  struct Case {
    std::string write, read, deleted, lost;
    bool key_numbers;
    uint16_t value_field;
  };
  const Case cases[] = {
      {"replace kv [__key__, __data__]", "select kv 0 [__key__]", "delete kv 0 [__key__]", "lost: memtier-3: ",
       false, 1},
      {"replace nums [__keynum__, 7, __data__]", "select nums 0 eq [__keynum__] limit 1",
       "delete nums 0 [__keynum__]", "lost: 3: ", true, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.write);
    const std::string hist = dir + "/" + (c.key_numbers ? "nums" : "kv") + ".hist";
    Outcome out = RunMemstand({"run", "--target", url, "-c", "4", "--pipeline", "2", "-n", "4000", "--command",
                               c.write, "--command", c.read, "--key-minimum", "1", "--key-maximum", "5",
                               "--history", hist, "-q"},
                              120);
    ASSERT_EQ(out.exit_code, 0) << out.output;
    auto h = history::ReadHistoryFile(hist);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->header.target_kind, history::TargetKind::kIproto);
    EXPECT_EQ(h->header.key_numbers, c.key_numbers);
    EXPECT_EQ(h->header.value_field, c.value_field);
    EXPECT_GE(h->header.space, 512u);  // the named space's id, not the 0 it is parsed with
    EXPECT_EQ(h->records.size(), 4000u);
    uint64_t ours = 0, foreign = 0;
    for (const history::Record& r : h->records) {
      EXPECT_EQ(r.outcome, history::Outcome::kOk);
      ours += r.seen == history::Seen::kOurs;
      foreign += r.seen == history::Seen::kForeign;
    }
    EXPECT_GT(ours, 1000u);
    EXPECT_EQ(foreign, 0u);
    Outcome check = RunMemstand({"check", hist, "--target", url}, 120);
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find("lost-writes        pass"), std::string::npos) << check.output;
    EXPECT_NE(check.output.find("linearizable       pass"), std::string::npos) << check.output;
    ExpectKeyThreeLostOnceDeleted(url, hist, c.deleted, c.lost);
  }
}

TEST(HistoryRunE2E, WhatAHistoryCannotHoldIsRefusedBeforeTheRun) {
  const std::string dir = TempDir();
  Outcome incr = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "--command", "INCR __key__",
                              "--history", dir + "/h"});
  EXPECT_EQ(incr.exit_code, 2) << incr.output;
  EXPECT_NE(incr.output.find("'INCR __key__' is neither"), std::string::npos) << incr.output;
  Outcome small = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "-d", "15", "--history", dir + "/h"});
  EXPECT_EQ(small.exit_code, 2) << small.output;
  EXPECT_NE(small.output.find("cannot carry a write's tag"), std::string::npos) << small.output;
  Outcome runs = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "--runs", "2", "--history", dir + "/h"});
  EXPECT_EQ(runs.exit_code, 2) << runs.output;
  Outcome keys = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "--command", "SET {a}__key__ __data__",
                              "--command", "GET __key__", "--history", dir + "/h"});
  EXPECT_EQ(keys.exit_code, 2) << keys.output;
  EXPECT_NE(keys.output.find("every command must name its keys alike"), std::string::npos) << keys.output;
  Outcome insert = RunMemstand({"run", "--target", "tarantool://127.0.0.1:1", "--command",
                                "insert 512 [__key__, __data__]", "--history", dir + "/h"});
  EXPECT_EQ(insert.exit_code, 2) << insert.output;
  EXPECT_NE(insert.output.find("'insert 512 [__key__, __data__]' is neither"), std::string::npos) << insert.output;
  Outcome spaces = RunMemstand({"run", "--target", "tarantool://127.0.0.1:1", "--command",
                                "replace kv [__key__, __data__]", "--command", "select other 0 [__key__]",
                                "--history", dir + "/h"});
  EXPECT_EQ(spaces.exit_code, 2) << spaces.output;
  EXPECT_NE(spaces.output.find("must read and write the same registers"), std::string::npos) << spaces.output;
  Outcome gets = RunMemstand({"run", "--target", "memcache://127.0.0.1:1", "--command", "gets __key__",
                              "--history", dir + "/h"});
  EXPECT_EQ(gets.exit_code, 2) << gets.output;
  EXPECT_NE(gets.output.find("'gets __key__' is neither 'get __key__' nor 'set __key__ __data__'"),
            std::string::npos)
      << gets.output;
  Outcome empty = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "--history", ""});
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
}

}  // namespace
}  // namespace memstand::e2e
