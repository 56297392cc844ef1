// `memstand check` against a real redis-server started here: a history written with the
// library (history/) of writes that really went to the server, checked after one of its
// keys was deleted (lost), one overwritten by hand (unexpected), and untouched (pass);
// a malformed file is exit 2. `memstand history export` writes an invoke and a
// completion per operation; a nemesis event is counted by the check, exported as the
// nemesis's two lines, and refused (exit 2) when malformed.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "history/history_format.h"
#include "history/history_writer.h"
#include "history/record.h"
#include "history/value_tag.h"

namespace memstand::e2e {
namespace {

constexpr uint32_t kCheckRunTag = 0x5eed2900;
constexpr uint64_t kCheckKeys = 5;

// Writes key i (1..5) by client i with its tagged value, then reads it back by client
// 10+i, each for real against `redis`, and records both; the file goes to `path`.
void WriteCheckHistory(const LocalRedis& redis, const std::string& path) {
  history::RunHeader header;
  header.target_kind = history::TargetKind::kResp;
  header.keys_fresh = true;
  header.run_tag = kCheckRunTag;
  header.key_prefix = "hist:";
  header.target = Url(redis);
  header.writer = "check_e2e_test";
  // Version 1, as a memstand before 2026-12-05 wrote: `memstand check` reads it still.
  auto writer = history::HistoryFileWriter::Open("--history", path, header, 1);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  const uint16_t node = *(*writer)->Intern("127.0.0.1:" + std::to_string(redis.port()));
  auto client = Connect(redis);
  ASSERT_NE(client, nullptr);
  std::vector<history::Record> records;
  for (uint64_t i = 1; i <= kCheckKeys; ++i) {
    const auto client_id = static_cast<uint32_t>(i);
    const std::string value = *history::TaggedValue(kCheckRunTag, client_id, 1, 64);
    auto set = client->Command({"SET", "hist:" + std::to_string(i), value});
    ASSERT_TRUE(set.ok() && !set->is_error()) << set.status().message();
    const auto t = static_cast<int64_t>(i * 1000);
    records.push_back({.op_id = i, .client = client_id, .seq = 1, .invoke_ns = t, .complete_ns = t + 100, .key = i,
                       .node = node, .f = history::Op::kWrite});
    auto get = client->Command({"GET", "hist:" + std::to_string(i)});
    ASSERT_TRUE(get.ok() && get->str == value);
    records.push_back({.op_id = 100 + i, .client = 10 + client_id, .seq = 1, .invoke_ns = t + 200,
                       .complete_ns = t + 300, .key = i, .value = history::ValueId(client_id, 1), .node = node,
                       .f = history::Op::kRead, .seen = history::Seen::kOurs});
  }
  ASSERT_TRUE((*writer)->Add(records).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
}

TEST(CheckE2E, ALostWriteIsFoundAgainstARealRedisAndAnUntouchedOnePasses) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string file = dir + "/run.hist";
  WriteCheckHistory(*redis, file);

  Outcome pass = RunMemstand({"check", file, "--target", Url(*redis), "--json", dir + "/pass.json"});
  EXPECT_EQ(pass.exit_code, 0) << pass.output;
  EXPECT_NE(pass.output.find("10 operation(s) of 10 client(s) on 5 key(s)"), std::string::npos) << pass.output;
  EXPECT_NE(pass.output.find("5 written key(s) read after the run: 5 hold an acknowledged write's value; 0 lost"),
            std::string::npos)
      << pass.output;
  EXPECT_NE(pass.output.find("verdict: pass"), std::string::npos) << pass.output;
  EXPECT_EQ(ReadJson(dir + "/pass.json")["verdict"], "pass");

  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Command({"DEL", "hist:3"}).ok());
  Outcome lost = RunMemstand({"check", file, "--target", Url(*redis), "--json", dir + "/lost.json"});
  EXPECT_EQ(lost.exit_code, 4) << lost.output;
  EXPECT_NE(lost.output.find("lost: hist:3: 1 acknowledged write(s) are gone: the key holds nothing (absent)"),
            std::string::npos)
      << lost.output;
  EXPECT_NE(lost.output.find("op 3 (client 3, write 3:1, ok, 0.000003000s to 0.000003100s) on hist:3"),
            std::string::npos)
      << lost.output;
  EXPECT_NE(lost.output.find("verdict: violated"), std::string::npos) << lost.output;
  const auto j = ReadJson(dir + "/lost.json");
  EXPECT_EQ(j["verdict"], "violated");
  ASSERT_EQ(j["checks"][0]["check"], "lost-writes");
  EXPECT_EQ(j["checks"][0]["violations"], 1);
  EXPECT_EQ(j["checks"][0]["findings"][0]["key"], "hist:3");
  EXPECT_EQ(j["checks"][0]["findings"][0]["ops"][0]["op_id"], 3);
  EXPECT_EQ(j["checks"][1]["verdict"], "pass");  // the history itself is linearizable

  ASSERT_TRUE(client->Command({"SET", "hist:4", "not a value of this run"}).ok());
  Outcome unexpected = RunMemstand({"check", file, "--target", Url(*redis), "--checks", "lost-writes"});
  EXPECT_EQ(unexpected.exit_code, 4) << unexpected.output;
  EXPECT_NE(unexpected.output.find("unexpected: hist:4 holds bytes this run did not write: 'not a value of this run'"),
            std::string::npos)
      << unexpected.output;
}

TEST(CheckE2E, WhatItCannotCheckOrReadIsSaid) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string file = dir + "/run.hist";
  WriteCheckHistory(*redis, file);
  const std::string bytes = ReadFile(file);
  std::ofstream(dir + "/cut.hist") << bytes.substr(0, bytes.size() - 5);
  std::ofstream(dir + "/text.hist") << "not a history\n";
  ExpectEveryCase(
      {
          {{"check", dir + "/cut.hist", "--target", Url(*redis)}, 2, "the file ends inside an end entry"},
          {{"check", dir + "/text.hist", "--target", Url(*redis)}, 2, "inside its 24-byte header"},
          {{"check", dir + "/missing.hist", "--target", Url(*redis)}, 2, "missing.hist: No such file or directory"},
          {{"check", file}, 2, "give --target URL, or leave lost-writes out of --checks"},
          {{"check", file, "--checks", "linearizable,nosuch"}, 2, "--checks"},
          {{"check", file, "--target", "etcd://127.0.0.1:2379"}, 2, "was written against redis://127.0.0.1:"},
          {{"check", file, "--checks", "linearizable", "--json", file}, 2, "names the input"},
          {{"check", file, "--checks", "linearizable", "--time-limit", "0"}, 2, "--time-limit"},
          {{"history", "export", dir + "/cut.hist"}, 2, "the file ends inside an end entry"},
          {{"history", "nosuch"}, 2, "name a subcommand, export (unknown 'nosuch')"},
      },
      60);
  // Nothing listens: the lost-writes check could not run (exit 1, saying why), while the
  // others still ran and passed.
  redis.reset();
  Outcome down = RunMemstand({"check", file, "--target", "redis://127.0.0.1:1"});
  EXPECT_EQ(down.exit_code, 1) << down.output;
  EXPECT_NE(down.output.find("lost-writes        could not run   not checked: reading the written keys from"),
            std::string::npos)
      << down.output;
  EXPECT_NE(down.output.find("linearizable       pass"), std::string::npos) << down.output;
  Outcome others = RunMemstand({"check", file, "--checks", "linearizable,monotonic-reads,read-your-writes"});
  EXPECT_EQ(others.exit_code, 0) << others.output;
}

TEST(CheckE2E, ATargetThatCannotBeReadSaysSoRatherThanPassing) {
  const std::string file = TempDir() + "/memcache.hist";
  history::RunHeader header;
  header.target_kind = history::TargetKind::kMemcache;
  header.key_prefix = "h:";
  header.target = "memcache://127.0.0.1:11211";
  auto writer = history::HistoryFileWriter::Open("--history", file, header, 1);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  const history::Record w{.op_id = 1, .client = 1, .seq = 1, .invoke_ns = 10, .complete_ns = 20, .key = 1,
                          .f = history::Op::kWrite};
  ASSERT_TRUE((*writer)->Add({&w, 1}).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  Outcome all = RunMemstand({"check", file, "--target", "memcache://127.0.0.1:1"});  // nothing listens
  EXPECT_EQ(all.exit_code, 1) << all.output;
  EXPECT_NE(all.output.find("lost-writes        could not run   not checked: reading the written keys from "
                            "memcache://127.0.0.1:1 failed"),
            std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("revisions          not applicable"), std::string::npos) << all.output;
  Outcome rest = RunMemstand({"check", file, "--checks", "linearizable,monotonic-reads,read-your-writes,revisions"});
  EXPECT_EQ(rest.exit_code, 0) << rest.output;
}

TEST(CheckE2E, ExportHasAnInvokeAndACompletionPerOperation) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  WriteCheckHistory(*redis, dir + "/run.hist");
  Outcome edn = RunMemstand({"history", "export", dir + "/run.hist", "--out", dir + "/run.edn"});
  ASSERT_EQ(edn.exit_code, 0) << edn.output;
  const std::string text = ReadFile(dir + "/run.edn");
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(CountLines(dir + "/run.edn"), 20);
  EXPECT_EQ(count(":type :invoke"), 10u);
  EXPECT_EQ(count(":type :ok"), 10u);
  Outcome json = RunMemstand({"history", "export", dir + "/run.hist", "--format", "jepsen-json",
                              "--model", "rw-register"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"f\": \"txn\", \"value\": [[\"w\", 1, 4294967297]]"), std::string::npos)
      << json.output;
}

// A history of a write and a read on one key with a kill and a restart between; then
// files whose event the format refuses, each exit 2 naming what is wrong.
TEST(CheckE2E, NemesisEventsAreCountedExportedAndAMalformedOneRefused) {
  const std::string dir = TempDir();
  history::RunHeader header;
  header.keys_fresh = true;
  header.key_prefix = "hist:";
  header.target = "redis://127.0.0.1:1";
  header.writer = "check_e2e_test";
  auto writer = history::HistoryFileWriter::Open("--history", dir + "/events.hist", header, 1);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  const std::vector<history::Record> records = {
      {.op_id = 1, .client = 1, .seq = 1, .invoke_ns = 100, .complete_ns = 200, .key = 1, .f = history::Op::kWrite},
      {.op_id = 2, .client = 2, .seq = 1, .invoke_ns = 900, .complete_ns = 1000, .key = 1,
       .value = history::ValueId(1, 1), .f = history::Op::kRead, .seen = history::Seen::kOurs}};
  ASSERT_TRUE((*writer)->Add(records).ok());
  ASSERT_TRUE((*writer)->AddEvent({.start_ns = 300, .end_ns = 310, .action = "kill", .target = "primary",
                                   .detail = "pid 4242"}).ok());
  ASSERT_TRUE((*writer)->AddEvent({.start_ns = 500, .end_ns = 800, .action = "restart", .target = "primary",
                                   .detail = "pid 4242 -> 4250"}).ok());
  ASSERT_TRUE((*writer)->Finish().ok());

  const std::vector<std::string> checks = {"--checks", "linearizable,monotonic-reads,read-your-writes"};
  std::vector<std::string> check = {"check", dir + "/events.hist"};
  check.insert(check.end(), checks.begin(), checks.end());
  Outcome ok = RunMemstand(check);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("2 operation(s) of 2 client(s) on 1 key(s), 2 nemesis event(s); target"),
            std::string::npos)
      << ok.output;
  Outcome edn = RunMemstand({"history", "export", dir + "/events.hist", "--out", dir + "/events.edn"});
  ASSERT_EQ(edn.exit_code, 0) << edn.output;
  EXPECT_EQ(CountLines(dir + "/events.edn"), 8);
  const std::string text = ReadFile(dir + "/events.edn");
  EXPECT_NE(text.find("{:index 2, :time 300, :type :info, :process :nemesis, :f :kill, :value \"primary\"}\n"
                      "{:index 3, :time 310, :type :info, :process :nemesis, :f :kill, :value \"primary\", "
                      ":detail \"pid 4242\"}\n"),
            std::string::npos)
      << text;

  auto file_with_event = [&](const std::string& name, const history::Event& e) {
    std::string bytes = history::format::FileHeader();
    history::format::PutEntry(history::format::EntryType::kRunHeader, history::format::RunHeaderPayload(header),
                              &bytes);
    history::format::PutEntry(history::format::EntryType::kEvent, history::format::EventPayload(e), &bytes);
    std::string end;
    history::format::PutU64(0, &end);
    history::format::PutEntry(history::format::EntryType::kEnd, end, &bytes);
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  };
  const std::string backwards = file_with_event("backwards.hist", {.start_ns = 100, .end_ns = 99, .action = "kill"});
  const std::string long_action =
      file_with_event("long.hist", {.start_ns = 1, .end_ns = 2, .action = std::string(40, 'k')});
  std::vector<std::string> check_backwards = {"check", backwards};
  check_backwards.insert(check_backwards.end(), checks.begin(), checks.end());
  ExpectEveryCase(
      {
          {check_backwards, 2, "backwards.hist: offset 105: event 'kill' at 100 ns: it ends at 99 ns, before it began"},
          {{"history", "export", backwards}, 2, "it ends at 99 ns, before it began"},
          {{"check", long_action, "--checks", "linearizable"}, 2,
           "long.hist: offset 105: event: a text runs past the entry or above its limit (action 32 bytes"},
      },
      60);
}

}  // namespace
}  // namespace memstand::e2e
