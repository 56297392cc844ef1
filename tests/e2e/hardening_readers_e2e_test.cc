// Issue #25, the readers of files memstand wrote (`merge`, `compare`, `report`): a
// field of the wrong type, nesting tens of thousands deep, a file too large, an output
// naming an input, one run given twice, shards of different targets or windows, and
// control characters in an input's strings. Each is exit 2 with the file and the field
// named, or a warning, never a crash; real run JSONs from real local redis-servers.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace hardening_readers {

using nlohmann::json;
using nlohmann::ordered_json;

// `memstand run` against `redis` (a shard K/N when n > 0), its JSON at `path`.
void RunTo(const LocalRedis& redis, const std::string& path, int k = 0, int n = 0) {
  std::vector<std::string> args = {"run", "--target", Url(redis), "--command=SET __key__ __data__",
                                   "--key-pattern=S", "--key-minimum=1", "--key-maximum=2000",
                                   "--requests=2000", "--threads=1", "--clients=2", "--json", path, "-q"};
  if (n > 0) args.push_back(fmt::format("--shard={}/{}", k, n));
  Outcome run = RunMemstand(args, 60);
  ASSERT_EQ(run.exit_code, 0) << run.output;
}

ordered_json ReadOrdered(const std::string& path) {
  std::ifstream in(path);
  return ordered_json::parse(in, nullptr, false);
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void ExpectRefused(const std::vector<std::string>& args, const std::string& says) {
  SCOPED_TRACE(fmt::format("{}", fmt::join(args, " ")));
  Outcome out = RunMemstand(args);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find(says), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("terminate called"), std::string::npos) << out.output;
}

// `levels` arrays, one inside the other.
std::string Nested(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

class HardeningReadersE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    redis_ = StartRedis();
    ASSERT_NE(redis_, nullptr);
  }
  // Two shards of one fleet, s0.json and s1.json.
  void TwoShards() {
    RunTo(*redis_, dir_ + "/s0.json", 0, 2);
    RunTo(*redis_, dir_ + "/s1.json", 1, 2);
  }
  std::string dir_;
  std::unique_ptr<LocalRedis> redis_;
};

// Row 1: a field of another type aborted merge (nlohmann type_error, std::stod).
TEST_F(HardeningReadersE2E, MergeNamesTheFileAndTheFieldOfAWrongType) {
  TwoShards();
  const ordered_json s1 = ReadOrdered(dir_ + "/s1.json");
  struct Mutation {
    const char* name;
    std::function<void(ordered_json&)> apply;
    std::string says;
  };
  const std::vector<Mutation> mutations = {
      {"schema", [](ordered_json& d) { d["schema"] = ordered_json::object(); }, "not a memstand.run document"},
      {"started_at", [](ordered_json& d) { d["started_at"] = 5; }, "field started_at: a whole number, expected a string"},
      {"shard", [](ordered_json& d) { d["shard"] = nullptr; }, "field shard: null, expected an object"},
      {"percentile", [](ordered_json& d) { d["totals"]["latency"]["percentiles_us"]["p99"] = 1; },
       "field totals.latency.percentiles_us: key \"p99\" is not a number"},
      {"threads", [](ordered_json& d) { d["options"]["threads"] = "4"; }, "field options.threads: a string"},
      {"ops", [](ordered_json& d) { d["commands"][0]["ops"] = -1; }, "field commands[0].ops: a negative number"},
      {"series", [](ordered_json& d) { d["series"]["Total"] = 1; }, "field series.Total: a whole number, expected an array"},
  };
  for (const Mutation& m : mutations) {
    ordered_json d = s1;
    m.apply(d);
    const std::string bad = dir_ + "/bad-" + m.name + ".json";
    WriteText(bad, d.dump());
    ExpectRefused({"merge", dir_ + "/s0.json", bad}, bad + ": " + m.says);
  }
}

// `report` of a run and of a sweep whose fields report reads have another type: exit 2
// with the file and the field named, not a chart quietly left empty.
TEST_F(HardeningReadersE2E, ReportNamesTheFileAndTheFieldOfAWrongType) {
  RunTo(*redis_, dir_ + "/run.json");
  const ordered_json run = ReadOrdered(dir_ + "/run.json");
  ordered_json sweep = ReadOrdered(testutil::SourceDir() + "/fuzz/corpus/report_input/sweep_real");
  ASSERT_TRUE(sweep.is_object());
  struct Mutation {
    const char* name;
    const ordered_json* doc;
    std::function<void(ordered_json&)> apply;
    std::string says;
  };
  const std::vector<Mutation> mutations = {
      {"ops", &run, [](ordered_json& d) { d["commands"][0]["ops"] = "x"; },
       "field commands[0].ops: a string, expected a number"},
      {"second", &run, [](ordered_json& d) { d["series"]["Total"][0]["second"] = "1"; },
       "field series.Total[0].second: a string, expected a number"},
      {"percentiles", &run, [](ordered_json& d) { d["totals"]["latency"]["percentiles_us"] = ordered_json::array(); },
       "field totals.latency.percentiles_us: an array, expected an object of numbers keyed by numbers"},
      {"p99", &sweep, [](ordered_json& d) { d["steps"][0]["p99_us"] = "slow"; },
       "field steps[0].p99_us: a string, expected a number"},
  };
  for (const Mutation& m : mutations) {
    ordered_json d = *m.doc;
    m.apply(d);
    const std::string bad = dir_ + "/bad-" + m.name + ".json";
    WriteText(bad, d.dump());
    ExpectRefused({"report", bad, "-o", dir_ + "/r.html"}, "'" + bad + "': " + m.says);
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.html"));
  }
  Outcome ok = RunMemstand({"report", dir_ + "/run.json", "-o", dir_ + "/r.html"});  // unchanged: a page
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// Row 3: nesting ~50,000 deep in a field the reader reads overflowed the stack (SIGSEGV).
TEST_F(HardeningReadersE2E, DeepNestingIsRefusedByEveryReader) {
  RunTo(*redis_, dir_ + "/a.json");
  std::string text = ReadFile(dir_ + "/a.json");
  const size_t at = text.find("\"totals\":");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"deep\": " + Nested(50000) + ", ");
  WriteText(dir_ + "/deep.json", text);
  const std::string says = "nested deeper than 64 levels (at deep[0][0]";
  ExpectRefused({"compare", dir_ + "/a.json", dir_ + "/deep.json"}, dir_ + "/deep.json: " + says);
  ExpectRefused({"merge", dir_ + "/a.json", dir_ + "/deep.json"}, dir_ + "/deep.json: " + says);
  ExpectRefused({"report", dir_ + "/deep.json", "-o", dir_ + "/r.html"}, "deep.json': " + says);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.html"));
}

// Row 31: 1 GiB was accepted, ~4.5 GB of memory; now 256 MiB (a sparse file here).
TEST_F(HardeningReadersE2E, AFileAbove256MiBIsRefusedBeforeItIsRead) {
  RunTo(*redis_, dir_ + "/a.json");
  const std::string big = dir_ + "/big.json";
  WriteText(big, "{}");
  ASSERT_EQ(truncate(big.c_str(), (off_t{256} << 20) + 1), 0);
  ExpectRefused({"compare", dir_ + "/a.json", big}, big + ": larger than 256 MiB");
  ExpectRefused({"merge", dir_ + "/a.json", big}, big + ": larger than 256 MiB");
  ExpectRefused({"report", big, "-o", dir_ + "/r.html"}, "larger than 256 MiB");
}

// Row 31 for merge, which holds every input parsed at once: the inputs together get the
// bound one file has (were 1 GiB together, ~4.5 GB of memory). Two sparse files of
// 200 MiB, each under 256 MiB, are refused before either is read.
TEST_F(HardeningReadersE2E, MergeInputsAbove256MiBTogetherAreRefusedBeforeTheyAreRead) {
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json";
  for (const std::string& f : {a, b}) {
    WriteText(f, "{}");
    ASSERT_EQ(truncate(f.c_str(), off_t{200} << 20), 0);
  }
  ExpectRefused({"merge", a, b}, "the inputs hold 400 MiB together, above 256 MiB");
  ExpectRefused({"merge", a, b, "-o", dir_ + "/m.json"}, "above 256 MiB");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/m.json"));
}

// Row 6: an output naming an input overwrote it; two outputs on one file lost one.
TEST_F(HardeningReadersE2E, AnOutputNamingAnInputIsRefusedAndTheInputKept) {
  TwoShards();
  const std::string s0 = dir_ + "/s0.json", s1 = dir_ + "/s1.json";
  const std::string before0 = ReadFile(s0), before1 = ReadFile(s1);
  std::filesystem::create_symlink(s1, dir_ + "/link.json");
  std::filesystem::create_hard_link(s0, dir_ + "/hard.json");
  std::filesystem::create_directory(dir_ + "/sub");
  ExpectRefused({"merge", s0, s1, "-o", s0}, "-o '" + s0 + "' names the input '" + s0 + "'");
  ExpectRefused({"merge", s0, s1, "--hdr-log", s1}, "--hdr-log '" + s1 + "' names the input");
  ExpectRefused({"merge", s0, s1, "-o", dir_ + "/link.json"}, "names the input '" + s1 + "'");
  ExpectRefused({"merge", s0, s1, "-o", dir_ + "/hard.json"}, "names the input '" + s0 + "'");
  ExpectRefused({"merge", s0, s1, "-o", dir_ + "/sub/../s1.json"}, "names the input '" + s1 + "'");
  ExpectRefused({"merge", s0, s1, "-o", dir_ + "/x.json", "--hdr-log", dir_ + "/./x.json"},
                "name the same file");
  ExpectRefused({"compare", s0, s1, "--json", s0}, "--json '" + s0 + "' names the input");
  ExpectRefused({"report", s0, "-o", dir_ + "/./s0.json"}, "-o '" + dir_ + "/./s0.json' names the input");
  EXPECT_EQ(ReadFile(s0), before0);
  EXPECT_EQ(ReadFile(s1), before1);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/x.json"));
}

// Row 7: one unsharded run given twice was merged into twice its ops.
TEST_F(HardeningReadersE2E, OneRunGivenTwiceIsRefused) {
  RunTo(*redis_, dir_ + "/a.json");
  std::filesystem::copy_file(dir_ + "/a.json", dir_ + "/copy.json");
  ExpectRefused({"merge", dir_ + "/a.json", dir_ + "/a.json"}, "given twice");
  ExpectRefused({"merge", dir_ + "/a.json", dir_ + "/copy.json"},
                dir_ + "/copy.json: the same run as " + dir_ + "/a.json");
}

// Row 8: shards against different servers were reported as "shared by the 3 merged runs".
TEST_F(HardeningReadersE2E, ShardsOfDifferentTargetsAreWarnedAbout) {
  auto other = StartRedis();
  ASSERT_NE(other, nullptr);
  RunTo(*redis_, dir_ + "/s0.json", 0, 2);
  RunTo(*other, dir_ + "/s1.json", 1, 2);
  Outcome out = RunMemstand({"merge", dir_ + "/s0.json", dir_ + "/s1.json"});
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("the runs named 2 different targets ("), std::string::npos) << out.output;
  EXPECT_NE(out.output.find(Url(*redis_) + " (" + dir_ + "/s0.json)"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find(Url(*other) + " (" + dir_ + "/s1.json)"), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("shared by the 2 merged runs"), std::string::npos) << out.output;
}

// Row 29: shards 23 minutes apart merged "OK" with a meaningless fleet ops/s. The shards
// here ran one after the other; s1's window is moved onto s0's (the same), then 23
// minutes later (exit 0 both times: a warning).
TEST_F(HardeningReadersE2E, ShardsWhoseWindowsDoNotOverlapAreWarnedAbout) {
  TwoShards();
  const ordered_json s0 = ReadOrdered(dir_ + "/s0.json");
  ordered_json d = ReadOrdered(dir_ + "/s1.json");
  ASSERT_FALSE(d.contains("start_at"));
  d["series_start_unix_s"] = s0["series_start_unix_s"];
  d["measured_s"] = s0["measured_s"];
  WriteText(dir_ + "/same.json", d.dump(2));
  Outcome together = RunMemstand({"merge", dir_ + "/s0.json", dir_ + "/same.json"});
  EXPECT_EQ(together.exit_code, 0) << together.output;
  EXPECT_EQ(together.output.find("measured windows"), std::string::npos) << together.output;
  d["series_start_unix_s"] = s0["series_start_unix_s"].get<double>() + 1380;
  WriteText(dir_ + "/later.json", d.dump(2));
  Outcome out = RunMemstand({"merge", dir_ + "/s0.json", dir_ + "/later.json"});
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("the runs' measured windows do not overlap"), std::string::npos) << out.output;
}

// Row 21: ESC sequences in an input's strings reached the terminal raw.
TEST_F(HardeningReadersE2E, ControlCharactersFromInputsAreEscaped) {
  TwoShards();
  for (const char* name : {"s0", "s1"}) {
    ordered_json d = ReadOrdered(dir_ + "/" + name + ".json");
    d["platform"]["hostname"] = "host\x1b]0;TITLE\x07";
    d["server"]["version"] = "\x1b[31m7.0";
    d["verdict"] = std::string(name) == "s1" ? "FAILED: \x1b[2J" : "OK";
    WriteText(dir_ + "/esc-" + name + ".json", d.dump());
  }
  ordered_json a = ReadOrdered(dir_ + "/s0.json");
  a["options"]["key_prefix"] = "k\x1b[31m";
  WriteText(dir_ + "/esc-a.json", a.dump());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"merge", dir_ + "/esc-s0.json", dir_ + "/esc-s1.json"},
        std::vector<std::string>{"compare", dir_ + "/esc-s0.json", dir_ + "/esc-a.json"}}) {
    Outcome out = RunMemstand(args);
    SCOPED_TRACE(args[0]);
    EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    EXPECT_EQ(out.output.find('\x1b'), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find('\x07'), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("\\x1b"), std::string::npos) << out.output;
  }
  ordered_json bad = ReadOrdered(dir_ + "/s1.json");
  bad["options"]["pipeline\x1b[31m"] = 1;  // in a refusal's message
  WriteText(dir_ + "/esc-key.json", bad.dump());
  Outcome out = RunMemstand({"merge", dir_ + "/s0.json", dir_ + "/esc-key.json"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_EQ(out.output.find('\x1b'), std::string::npos) << out.output;
}

}  // namespace hardening_readers
}  // namespace memstand::e2e
