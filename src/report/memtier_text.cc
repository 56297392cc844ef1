// The layout follows memtier_benchmark 2.x's run_stats::print (output_table, a column
// per field, each cell printf-formatted and followed by a space); docs/memtier.md.
#include "report/memtier_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "report/memtier_json.h"

namespace memstand {

namespace {

// One row of the table: a command type, "Waits" (memstand sends no WAIT) or "Totals".
struct Row {
  std::string type;
  std::string histogram_name;  // "SET", "GET", "WAIT", a command type
  const CommandStats* stats;   // null: no command of this type (Waits; Gets with --ratio N:0)
  bool hits_column;            // Gets and Totals: hits and misses; else "---"
};

// A column: its width (memtier's column_size), title and a cell per row.
struct Column {
  int width;
  std::string title;
  std::vector<std::string> cells;
};

std::string Number(int width, int decimals, double v) {
  return fmt::format("{:{}.{}f} ", v, width, decimals);
}

std::string Dash(int width) { return fmt::format("{:>{}} ", "---", width); }

class Table {
 public:
  Table(const RunReport& rep, const MemtierTextOptions& o) : rep_(rep), o_(o) {
    for (const MemtierGroup& g : MemtierGroups(rep)) groups_.push_back(g);
    totals_ = rep.result->AllCommands();
    if (o.arbitrary_commands) {
      for (const MemtierGroup& g : groups_) rows_.push_back({g.name, g.command, &g.stats, false});
    } else {
      rows_.push_back({"Sets", "SET", Find("Sets"), false});
      rows_.push_back({"Gets", "GET", Find("Gets"), true});
      rows_.push_back({"Waits", "WAIT", nullptr, false});
    }
    rows_.push_back({"Totals", "", &totals_, true});
  }

  void Print(std::FILE* out, const std::string& title) const {
    std::vector<Column> cols = Columns();
    std::string rule;
    for (const Column& c : cols) rule += std::string(static_cast<size_t>(c.width) + 1, '=');
    fmt::print(out, "\n\n{}\n{}\n", title, rule);
    std::string head, dashes;
    for (size_t i = 0; i < cols.size(); ++i) {
      const Column& c = cols[i];
      head += i == 0 ? fmt::format("{:<{}} ", c.title, c.width) : fmt::format("{:>{}} ", c.title, c.width);
      dashes += std::string(static_cast<size_t>(c.width) + 1, '-');
    }
    fmt::print(out, "{}\n{}\n", head, dashes);
    for (size_t r = 0; r < rows_.size(); ++r) {
      std::string line;
      for (const Column& c : cols) line += c.cells[r];
      fmt::print(out, "{}\n", line);
    }
  }

  void PrintHistogram(std::FILE* out) const {
    fmt::print(out, "\n\nRequest Latency Distribution\n{:<6} {:>12} {:>12}\n{}\n", "Type", "<= msec   ",
               "Percent", std::string(72, '-'));
    const size_t n = rows_.size() - 1;  // not Totals
    for (size_t r = 0; r < n; ++r) {
      const Row& row = rows_[r];
      if (row.stats != nullptr) {
        for (const auto& [msec, percent] : MemtierDistribution(row.stats->latency_ns)) {
          fmt::print(out, "{:<6} {:8.3f} {:12.3f}\n", row.histogram_name, msec, percent);
        }
      }
      // memtier separates the types by "---", with none after the last of Sets/Gets/Waits.
      if (o_.arbitrary_commands || r + 1 < n) fmt::print(out, "---\n");
    }
  }

 private:
  const CommandStats* Find(const std::string& name) const {
    for (const MemtierGroup& g : groups_) {
      if (g.name == name) return &g.stats;
    }
    return nullptr;
  }

  double secs() const { return rep_.result->measured_s; }

  std::vector<Column> Columns() const {
    size_t longest = 6;
    if (o_.arbitrary_commands) {
      for (const CommandSpec& c : rep_.options->commands) longest = std::max(longest, c.tmpl.name.size());
    }
    std::vector<Column> cols;
    Column type{static_cast<int>(longest) + 1, "Type", {}};
    for (const Row& r : rows_) type.cells.push_back(fmt::format("{:<{}} ", r.type, type.width));
    cols.push_back(type);
    cols.push_back(RateColumn("Ops/sec", [](const CommandStats& s) { return s.ops; }, false));
    if (!o_.arbitrary_commands) {
      cols.push_back(RateColumn("Hits/sec", [](const CommandStats& s) { return s.hits; }, true));
      cols.push_back(RateColumn("Misses/sec", [](const CommandStats& s) { return s.misses; }, true));
    }
    if (o_.cluster_mode) {
      cols.push_back(RedirectColumn("MOVED/sec", rep_.result->totals.cluster_moved));
      cols.push_back(RedirectColumn("ASK/sec", rep_.result->totals.cluster_ask));
    }
    cols.push_back(LatencyColumn("Avg. Latency", std::nullopt));
    for (double p : rep_.options->percentiles) cols.push_back(LatencyColumn(MemtierPercentileTitle(p), p));
    Column kb{12, "KB/sec", {}};
    for (const Row& r : rows_) {
      const double bytes = r.stats == nullptr ? 0.0 : static_cast<double>(r.stats->bytes_in + r.stats->bytes_out);
      kb.cells.push_back(r.type == "Waits" ? Dash(12) : Number(12, 2, MemtierPerSecond(bytes, secs()) / 1024));
    }
    cols.push_back(kb);
    return cols;
  }

  template <typename Count>
  Column RateColumn(const char* title, Count count, bool hits) const {
    Column c{12, title, {}};
    for (const Row& r : rows_) {
      const bool dash = hits && !r.hits_column;
      const double n = r.stats == nullptr ? 0.0 : static_cast<double>(count(*r.stats));
      c.cells.push_back(dash ? Dash(12) : Number(12, 2, MemtierPerSecond(n, secs())));
    }
    return c;
  }

  // memstand counts redirections per run, not per command: the Totals row only.
  Column RedirectColumn(const char* title, uint64_t total) const {
    Column c{12, title, {}};
    for (size_t i = 0; i + 1 < rows_.size(); ++i) c.cells.push_back(Dash(12));
    c.cells.push_back(Number(12, 2, MemtierPerSecond(static_cast<double>(total), secs())));
    return c;
  }

  Column LatencyColumn(const std::string& title, std::optional<double> percentile) const {
    Column c{15, title, {}};
    for (const Row& r : rows_) {
      if (r.stats == nullptr || r.stats->latency_ns.total_count() == 0) {
        c.cells.push_back(Dash(15));
        continue;
      }
      const HdrHistogram& h = r.stats->latency_ns;
      const double ns = percentile ? static_cast<double>(h.ValueAtPercentile(*percentile)) : h.mean();
      c.cells.push_back(Number(15, 5, ns / kMemtierNsPerMs));
    }
    return c;
  }

  const RunReport& rep_;
  const MemtierTextOptions& o_;
  std::vector<MemtierGroup> groups_;
  CommandStats totals_;
  std::vector<Row> rows_;
};

}  // namespace

std::string MemtierPercentileTitle(double percentile) {
  // memtier: as many decimals (at most 3) as the fraction needs.
  int decimals = 0;
  double frac = std::fabs(percentile) - std::floor(std::fabs(percentile));
  while (std::fabs(frac) > 0.001 && decimals < 3) {
    frac = frac * 10;
    ++decimals;
    frac -= std::floor(frac);
  }
  return fmt::format("p{:.{}f} Latency", percentile, decimals);
}

void PrintMemtierRunInformation(std::FILE* out, const LoadOptions& o) {
  fmt::print(out, "{:<9} Threads\n{:<9} Connections per thread\n", o.threads, o.clients);
  if (o.requests > 0) {
    const uint64_t conns = static_cast<uint64_t>(std::max(o.connections(), 1));
    fmt::print(out, "{:<9} Requests per client\n", (o.requests + conns - 1) / conns);
  } else {
    fmt::print(out, "{:<9} Seconds\n", static_cast<uint64_t>(std::llround(o.duration_s)));
  }
}

void PrintMemtierStats(std::FILE* out, const RunReport& rep, const std::string& title,
                       const MemtierTextOptions& o) {
  Table table(rep, o);
  table.Print(out, title);
  if (!o.hide_histogram) table.PrintHistogram(out);
}

}  // namespace memstand
