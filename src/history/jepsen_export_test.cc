// The Jepsen export: an invoke and a completion per operation, in time order, in EDN and
// JSON, for Knossos's cas-register and Elle's rw-register.
#include "history/jepsen_export.h"

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "history/history_test_util.h"

namespace memstand::history {
namespace {

std::vector<std::string> Lines(const History& h, JepsenSyntax syntax, JepsenModel model) {
  std::string out;
  Status s = ExportJepsen(h, syntax, model, [&](std::string_view piece) {
    out += piece;
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t CountHolding(const std::vector<std::string>& lines, const std::string& needle) {
  size_t n = 0;
  for (const std::string& l : lines) n += l.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

HistoryBuilder Sample() {
  HistoryBuilder b;
  const Record w = b.Write(1, 5, 100, 200);
  b.ReadOf(2, w, 150, 250);
  b.Read(3, 6, 300, 400, Seen::kAbsent);
  b.Write(4, 5, 300, 900, Outcome::kUnknown);
  b.Write(5, 5, 500, 600, Outcome::kFail);
  b.Cas(6, 5, 700, 800, Seen::kOurs, w.written());
  return b;
}

TEST(JepsenExport, AnInvokeAndACompletionPerOperationInTimeOrder) {
  const HistoryBuilder b = Sample();
  const auto lines = Lines(b.h, JepsenSyntax::kEdn, JepsenModel::kCasRegister);
  ASSERT_EQ(lines.size(), 2 * b.h.records.size());
  EXPECT_EQ(CountHolding(lines, ":type :invoke"), b.h.records.size());
  EXPECT_EQ(CountHolding(lines, ":type :ok") + CountHolding(lines, ":type :fail") +
                CountHolding(lines, ":type :info"),
            b.h.records.size());
  EXPECT_EQ(CountHolding(lines, ":type :info"), 1u);
  EXPECT_EQ(CountHolding(lines, ":type :fail"), 1u);
  EXPECT_EQ(lines[0], "{:index 0, :time 100, :type :invoke, :process 1, :f :write, :value [5 4294967297]}");
  EXPECT_EQ(lines[1], "{:index 1, :time 150, :type :invoke, :process 2, :f :read, :value [5 nil]}");
  EXPECT_EQ(lines[2],
            "{:index 2, :time 200, :type :ok, :process 1, :f :write, :value [5 4294967297], :node \"127.0.0.1:6379\"}");
  EXPECT_EQ(lines[3],
            "{:index 3, :time 250, :type :ok, :process 2, :f :read, :value [5 4294967297], :node \"127.0.0.1:6379\"}");
  EXPECT_NE(CountHolding(lines, ":f :cas, :value [5 [4294967297 25769803777]]"), 0u);
  EXPECT_NE(CountHolding(lines, ":type :info, :process 4, :f :write, :value [5 17179869185], :node \"127.0.0.1:6379\", "
                                ":error \"timeout\"}"),
            0u);
  EXPECT_NE(CountHolding(lines, ":type :ok, :process 3, :f :read, :value [6 nil]"), 0u);
}

TEST(JepsenExport, JsonLinesParseAndCountTheSame) {
  const HistoryBuilder b = Sample();
  const auto lines = Lines(b.h, JepsenSyntax::kJson, JepsenModel::kCasRegister);
  ASSERT_EQ(lines.size(), 2 * b.h.records.size());
  size_t invokes = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["index"], i);
    invokes += j["type"] == "invoke" ? 1 : 0;
  }
  EXPECT_EQ(invokes, b.h.records.size());
  const auto read = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(read["f"], "read");
  EXPECT_EQ(read["value"], nlohmann::json::parse("[5, 4294967297]"));
}

TEST(JepsenExport, ElleRwRegisterWithoutCas) {
  HistoryBuilder b = Sample();
  Status refused = ExportJepsen(b.h, JepsenSyntax::kEdn, JepsenModel::kRwRegister,
                                [](std::string_view) { return Status::OK(); });
  EXPECT_NE(refused.message().find("is a cas, which Elle's rw-register cannot say"), std::string::npos);
  b.h.records.pop_back();  // the cas
  const auto lines = Lines(b.h, JepsenSyntax::kEdn, JepsenModel::kRwRegister);
  ASSERT_EQ(lines.size(), 2 * b.h.records.size());
  EXPECT_EQ(lines[0], "{:index 0, :time 100, :type :invoke, :process 1, :f :txn, :value [[:w 5 4294967297]]}");
  EXPECT_EQ(lines[1], "{:index 1, :time 150, :type :invoke, :process 2, :f :txn, :value [[:r 5 nil]]}");
}

TEST(JepsenExport, ASinkErrorEndsTheExport) {
  const HistoryBuilder b = Sample();
  Status s = ExportJepsen(b.h, JepsenSyntax::kEdn, JepsenModel::kCasRegister,
                          [](std::string_view) { return Status::IoError("disk full"); });
  EXPECT_EQ(s.message(), "disk full");
}

// A nemesis event is two :info lines of :process :nemesis among the operations' (at equal
// times an operation's first), its detail on the second; no target is nil.
TEST(JepsenExport, NemesisEventsAreTwoInfoLinesOfTheNemesis) {
  HistoryBuilder b = Sample();
  b.h.events = {{.start_ns = 150, .end_ns = 260, .action = "kill", .target = "primary", .detail = "pid 7"},
                {.start_ns = 1000, .end_ns = 1000, .action = "heal"}};
  for (JepsenModel model : {JepsenModel::kCasRegister, JepsenModel::kRwRegister}) {
    if (model == JepsenModel::kRwRegister) b.h.records.pop_back();  // the cas
    const auto lines = Lines(b.h, JepsenSyntax::kEdn, model);
    ASSERT_EQ(lines.size(), 2 * (b.h.records.size() + b.h.events.size()));
    EXPECT_EQ(lines[2], "{:index 2, :time 150, :type :info, :process :nemesis, :f :kill, :value \"primary\"}");
    EXPECT_EQ(lines[5],
              "{:index 5, :time 260, :type :info, :process :nemesis, :f :kill, :value \"primary\", :detail \"pid 7\"}");
    const size_t n = lines.size();
    EXPECT_EQ(lines[n - 2], fmt::format("{{:index {}, :time 1000, :type :info, :process :nemesis, :f :heal, :value nil}}", n - 2));
    EXPECT_EQ(lines[n - 1], fmt::format("{{:index {}, :time 1000, :type :info, :process :nemesis, :f :heal, :value nil}}", n - 1));
    EXPECT_EQ(CountHolding(lines, ":process :nemesis"), 4u);
  }
  const auto json = Lines(b.h, JepsenSyntax::kJson, JepsenModel::kCasRegister);
  const auto kill = nlohmann::json::parse(json[5]);
  EXPECT_EQ(kill, nlohmann::json::parse(R"({"index": 5, "time": 260, "type": "info", "process": "nemesis", "f": "kill",
                                            "value": "primary", "detail": "pid 7"})"));
  EXPECT_TRUE(nlohmann::json::parse(json.back())["value"].is_null());
}

TEST(JepsenExport, StringsAreEscaped) {
  HistoryBuilder b;
  b.h.strings[2] = "a\"b\\c\n";
  b.Write(1, 5, 100, 200, Outcome::kUnknown);
  const auto edn = Lines(b.h, JepsenSyntax::kEdn, JepsenModel::kCasRegister);
  EXPECT_NE(edn[1].find(":error \"a\\\"b\\\\c\\u000a\""), std::string::npos) << edn[1];
  const auto json = Lines(b.h, JepsenSyntax::kJson, JepsenModel::kCasRegister);
  EXPECT_EQ(nlohmann::json::parse(json[1])["error"], "a\"b\\c\n");
}

}  // namespace
}  // namespace memstand::history
