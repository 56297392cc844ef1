#include "report/run_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "load/command_spec.h"
#include "util/rng.h"

namespace memstand {
namespace {

// A RESP command as `memstand run --command` makes it, labelled `label`.
CommandSpec Command(const std::string& text, const std::string& label) {
  auto c = MakeCommandSpec(Protocol::kResp, text, "memtier-", {}, 1, CommandLimits{});
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return CommandSpec{};
  c->label = label;
  return *c;
}

// SET: two lognormal modes (70% near 50 us, 30% near 400 us); GET: one mode.
struct Fake {
  LoadOptions options;
  RunResult result;
  RunReport report;

  Fake() {
    options.commands = {Command("SET __key__ __data__", "SET"), Command("GET __key__", "GET")};
    options.requests = 20000;
    result.totals = ThreadStats(2);
    result.measured_s = 1;
    Rng rng(7);
    for (int i = 0; i < 10000; ++i) {
      double median = rng.NextDouble() < 0.7 ? 50e3 : 400e3;
      result.totals.commands[0].latency_ns.Record(
          std::llround(median * std::exp(0.2 * rng.NextGaussian())));
      result.totals.commands[1].latency_ns.Record(
          std::llround(80e3 * std::exp(0.3 * rng.NextGaussian())));
    }
    result.totals.commands[0].ops = result.totals.commands[1].ops = 10000;
    report.options = &options;
    report.result = &result;
    report.verdict = "OK";
  }
};

std::string Text(const RunReport& r, bool quiet) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  PrintTextReport(f, r, quiet);
  std::fclose(f);
  std::string text(data, size);
  std::free(data);
  return text;
}

TEST(RunReportNotes, MultimodalCommandIsNotedUnderTheTable) {
  Fake fake;
  std::string text = Text(fake.report, false);
  size_t note = text.find("SET latency looks multimodal: 2 modes at ");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_LT(note, text.find("[5]")) << "the note belongs to block [4]";
  EXPECT_GT(note, text.find("Total "));
  EXPECT_EQ(text.find("GET latency looks multimodal"), std::string::npos) << text;
  EXPECT_EQ(text.find("raw samples"), std::string::npos) << "no --samples, no line";
  EXPECT_EQ(Text(fake.report, true).find("multimodal"), std::string::npos) << "-q: the table only";
}

TEST(RunReportNotes, SamplesLineSaysAllOrReservoir) {
  Fake fake;
  fake.report.samples_path = "s.csv";
  fake.result.samples.resize(3);
  fake.result.samples_seen = 10;
  EXPECT_NE(Text(fake.report, false)
                .find("raw samples: 3 of 10 measured requests in s.csv (a uniform "
                      "reservoir"),
            std::string::npos);
  fake.result.samples_seen = 3;
  EXPECT_NE(
      Text(fake.report, false).find("raw samples: 3 of 3 measured requests in s.csv (all of them)"),
      std::string::npos);
}

TEST(RunReportJson, ModalityPerCommandAndSamples) {
  Fake fake;
  auto j = RunReportJson(fake.report);
  const auto& set = j["commands"][0]["modality"];
  EXPECT_EQ(set["multimodal"], true);
  EXPECT_EQ(set["modes"], 2);
  ASSERT_EQ(set["mode_values_us"].size(), 2u);
  // A lognormal's mode is median * exp(-sigma^2): 48 and 385 us.
  EXPECT_NEAR(set["mode_values_us"][0].get<double>(), 48, 48 * 0.25);
  EXPECT_NEAR(set["mode_values_us"][1].get<double>(), 385, 385 * 0.25);
  EXPECT_GE(set["valley_depth"].get<double>(), 0.5);
  EXPECT_EQ(set["samples"], 10000);
  EXPECT_TRUE(set["method"].is_string());
  EXPECT_EQ(j["commands"][1]["modality"]["multimodal"], false);
  EXPECT_EQ(j["commands"][1]["modality"]["modes"], 1);
  EXPECT_FALSE(j.contains("samples"));
  fake.report.samples_path = "s.csv";
  fake.result.samples.resize(3);
  fake.result.samples_seen = 10;
  fake.options.samples_cap = 3;
  j = RunReportJson(fake.report);
  EXPECT_EQ(j["samples"]["written"], 3);
  EXPECT_EQ(j["samples"]["seen"], 10);
  EXPECT_EQ(j["samples"]["cap"], 3);
  EXPECT_EQ(j["samples"]["reservoir"], true);
  EXPECT_EQ(j["samples"]["path"], "s.csv");
}

}  // namespace
}  // namespace memstand
