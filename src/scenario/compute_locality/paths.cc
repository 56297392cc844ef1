#include "scenario/compute_locality/paths.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workload/products.h"

namespace memstand {
namespace {

using iproto::Value;

// The schema, and the stored functions of the local paths. Tuples are field-wise:
// [id, sku, title, category, price_cents, views]. by_views holds id as its last part,
// so the index is unique; a descending walk gives equal views in id-descending order,
// so the walk reads on through the tie at the n-th row and sorts what it read.
constexpr char kLocalityLua[] = R"lua(-- Written by memstand scenario compute-locality.
box.schema.user.grant('guest', 'super', nil, nil, {if_not_exists = true})
local s = box.schema.space.create('products', {if_not_exists = true, format = {
  {name = 'id', type = 'unsigned'}, {name = 'sku', type = 'string'},
  {name = 'title', type = 'string'}, {name = 'category', type = 'string'},
  {name = 'price_cents', type = 'unsigned'}, {name = 'views', type = 'unsigned'}}})
s:create_index('primary', {type = 'tree', parts = {'id'}, if_not_exists = true})
s:create_index('by_views', {type = 'tree', parts = {'category', 'views', 'id'}, if_not_exists = true})
s:create_index('by_category', {type = 'tree', parts = {'category', 'id'}, if_not_exists = true})

local function short(t) return {t[1], t[3], t[6]} end
-- views descending, then id ascending: the one rule of every path
local function before(a, b)
  if a[6] ~= b[6] then return a[6] > b[6] end
  return a[1] < b[1]
end
local function first(rows, n, full)
  local out = {}
  for i = 1, math.min(n, #rows) do out[i] = full and rows[i] or short(rows[i]) end
  return out
end

-- local: walk by_views descending from the category's end; n rows and the rest of a tie.
function memstand_top_walk(category, n, full)
  local rows, boundary = {}, nil
  for _, t in box.space.products.index.by_views:pairs({category}, {iterator = 'LE'}) do
    if t[4] ~= category then break end
    if boundary ~= nil and t[6] < boundary then break end
    rows[#rows + 1] = t
    if #rows == n then boundary = t[6] end
  end
  table.sort(rows, before)
  return first(rows, n, full)
end

-- local-scan: every record of the category (in id order), sorted in Lua.
function memstand_top_scan(category, n)
  local rows = box.space.products.index.by_category:select({category})
  table.sort(rows, before)
  return first(rows, n, false)
end

-- naive-short: every record of the category as (id, title, views), unsorted.
function memstand_category_short(category)
  local out = {}
  for _, t in box.space.products.index.by_category:pairs({category}) do out[#out + 1] = short(t) end
  return out
end
)lua";

constexpr char kTarantoolBatchLua[] =
    "local rows = ...\nlocal s = box.space.products\nbox.begin()\n"
    "for i = 1, #rows do s:replace(rows[i]) end\nbox.commit()\nreturn #rows";

constexpr uint32_t kByCategory = 2;  // the index id: primary 0, by_views 1

// Redis keys: the records, their (id, title, views) form, and the per-category sets.
std::string ShortKey(uint32_t id) { return "short:" + std::to_string(id); }
std::string CategoryKey(const std::string& category) { return "cat:" + category; }

// The (id, title, views) form, in the records' own serialization (compact JSON).
std::string ShortJson(const Product& p) {
  return nlohmann::json{{"id", p.id}, {"title", p.title}, {"views", p.views}}.dump();
}

// The sorted set's score: views, then the id's complement, so that ZREVRANGE (score
// descending) gives id ascending among equal views. Exact in a double (< 2^34).
constexpr int64_t kIdSpan = 1 << 18;  // > kProductCount
std::string Score(const Product& p) { return std::to_string(p.views * kIdSpan + (kIdSpan - 1 - p.id)); }

// id and views of one JSON line (a record or its short form): the keys are known.
Result<ViewsRow> ParseRow(const std::string& line) {
  const size_t id = line.find("\"id\":"), views = line.rfind("\"views\":");
  if (id == std::string::npos || views == std::string::npos) {
    return Status::Protocol("not a products record: " + line.substr(0, 80));
  }
  return ViewsRow{static_cast<uint32_t>(std::strtoul(line.c_str() + id + 5, nullptr, 10)),
                  std::strtoll(line.c_str() + views + 8, nullptr, 10)};
}

Value TupleOf(const Product& p) {
  return Value::Array({Value::Uint(p.id), Value::String(p.sku), Value::String(p.title),
                       Value::String(p.category), Value::Uint(static_cast<uint64_t>(p.price_cents)),
                       Value::Uint(static_cast<uint64_t>(p.views))});
}

uint64_t UintOf(const Value& v) {
  return v.type() == Value::Type::kUint ? v.uint_value() : static_cast<uint64_t>(v.int_value());
}

// Rows of tuples or of (id, title, views) arrays: id first, views at `views_at`.
Result<std::vector<ViewsRow>> RowsOf(const Value& rows, size_t views_at) {
  std::vector<ViewsRow> out;
  out.reserve(rows.items().size());
  for (const Value& t : rows.items()) {
    if (t.type() != Value::Type::kArray || t.items().size() <= views_at) {
      return Status::Protocol("not a row: " + ToString(t).substr(0, 80));
    }
    out.push_back({static_cast<uint32_t>(UintOf(t.items()[0])), static_cast<int64_t>(UintOf(t.items()[views_at]))});
  }
  return out;
}

// A CALL's reply: one returned value, the array of rows.
Result<PathCall> CallRows(ProtoControl* c, const std::string& function, const Value& args, size_t views_at,
                          size_t n, bool client_sorts) {
  auto data = c->Call(function, args);
  if (!data.ok()) return data.status();
  if (data->items().size() != 1 || data->items()[0].type() != Value::Type::kArray) {
    return Status::Protocol(function + " returned " + ToString(*data).substr(0, 80));
  }
  auto rows = RowsOf(data->items()[0], views_at);
  if (!rows.ok()) return rows.status();
  PathCall out;
  out.objects = static_cast<int64_t>(rows->size());
  if (client_sorts) {
    out.ids = TopIds(std::move(*rows), n);
  } else {
    for (const ViewsRow& r : *rows) out.ids.push_back(r.id);
  }
  return out;
}

Result<std::vector<LocalityPath>> TarantoolPaths(ProtoControl* c, const std::string& category, int n) {
  auto space_id = c->SpaceId("products");
  if (!space_id.ok()) return space_id.status();
  const uint32_t space = *space_id;
  const size_t top = static_cast<size_t>(n);
  const Value cat = Value::String(category);
  const Value walk_short = Value::Array({cat, Value::Uint(top), Value::Bool(false)});
  const Value walk_full = Value::Array({cat, Value::Uint(top), Value::Bool(true)});
  const Value scan = Value::Array({cat, Value::Uint(top)});
  std::vector<LocalityPath> p(5);
  p[0] = {"tarantool", "naive", fmt::format("SELECT products.by_category EQ ['{}'] (IPROTO select, all fields)", category),
          "full record", "client (sorts every row it received)", 1,
          [c, cat, top, space]() -> Result<PathCall> {
            auto data = c->Select(space, kByCategory, Value::Array({cat}));
            if (!data.ok()) return data.status();
            auto rows = RowsOf(*data, 5);
            if (!rows.ok()) return rows.status();
            PathCall out;
            out.objects = static_cast<int64_t>(rows->size());
            out.ids = TopIds(std::move(*rows), top);
            return out;
          }, {}, {}, {}, {}};
  p[1] = {"tarantool", "local", fmt::format("CALL memstand_top_walk('{}', {}, false)", category, n),
          "(id, title, views)", "server (walks by_views descending)", 1,
          [=]() { return CallRows(c, "memstand_top_walk", walk_short, 2, top, false); }, {}, {}, {}, {}};
  p[2] = {"tarantool", "naive-short", fmt::format("CALL memstand_category_short('{}')", category),
          "(id, title, views)", "client (sorts every row it received)", 1,
          [=]() { return CallRows(c, "memstand_category_short", Value::Array({cat}), 2, top, true); }, {}, {}, {}, {}};
  p[3] = {"tarantool", "local-full", fmt::format("CALL memstand_top_walk('{}', {}, true)", category, n),
          "full record", "server (walks by_views descending)", 1,
          [=]() { return CallRows(c, "memstand_top_walk", walk_full, 5, top, false); }, {}, {}, {}, {}};
  p[4] = {"tarantool", "local-scan", fmt::format("CALL memstand_top_scan('{}', {})", category, n),
          "(id, title, views)", "server (scans the category, table.sort in Lua)", 1,
          [=]() { return CallRows(c, "memstand_top_scan", scan, 2, top, false); }, {}, {}, {}, {}};
  for (LocalityPath& path : p) {
    path.app_bytes = [c]() { return c->bytes(); };
    path.kernel_bytes = [c]() { return c->KernelBytes(); };
  }
  return p;
}

Result<resp::Reply> Checked(RedisClient* c, const std::vector<std::string>& args) {
  auto r = c->Command(args);
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server(args[0] + ": " + r->str);
  return r;
}

// naive: the records of every member of the category's set, fetched by the server in
// one command (SORT ... BY nosort GET: no sorting, a multi-get keyed by the members).
Result<PathCall> RedisFetchAll(RedisClient* c, const std::string& category, const std::string& prefix, size_t n) {
  auto r = Checked(c, {"SORT", CategoryKey(category), "BY", "nosort", "GET", prefix + "*"});
  if (!r.ok()) return r.status();
  std::vector<ViewsRow> rows;
  rows.reserve(r->elements.size());
  for (const resp::Reply& e : r->elements) {
    auto row = ParseRow(e.str);
    if (!row.ok()) return row.status();
    rows.push_back(*row);
  }
  PathCall out;
  out.objects = static_cast<int64_t>(rows.size());
  out.ids = TopIds(std::move(rows), n);
  return out;
}

// local: the top n members of the sorted set, then their n records (two round trips).
Result<PathCall> RedisTop(RedisClient* c, const std::string& category, const std::string& prefix, int n) {
  auto top = Checked(c, {"ZREVRANGE", CategoryKey(category), "0", std::to_string(n - 1)});
  if (!top.ok()) return top.status();
  std::vector<std::string> mget = {"MGET"};
  for (const resp::Reply& e : top->elements) mget.push_back(prefix + e.str);
  PathCall out;
  if (mget.size() == 1) return out;
  auto records = Checked(c, mget);
  if (!records.ok()) return records.status();
  for (const resp::Reply& e : records->elements) {
    auto row = ParseRow(e.str);
    if (!row.ok()) return row.status();
    out.ids.push_back(row->id);
  }
  out.objects = static_cast<int64_t>(records->elements.size());
  return out;
}

std::vector<LocalityPath> RedisPaths(RedisClient* c, const std::string& category, int n) {
  const size_t top = static_cast<size_t>(n);
  const std::string set = CategoryKey(category);
  std::vector<LocalityPath> p(4);
  p[0] = {"redis", "naive", fmt::format("SORT {} BY nosort GET product:* (one command)", set), "full record",
          "client (sorts every record it received)", 1,
          [=]() { return RedisFetchAll(c, category, "product:", top); }, {}, {}, {}, {}};
  p[1] = {"redis", "local", fmt::format("ZREVRANGE {} 0 {}, then MGET of those product:<id>", set, n - 1),
          "full record", "server (sorted set by views, ties by id in the score)", 2,
          [=]() { return RedisTop(c, category, "product:", n); }, {}, {}, {}, {}};
  p[2] = {"redis", "naive-short", fmt::format("SORT {} BY nosort GET short:* (one command)", set),
          "(id, title, views)", "client (sorts every row it received)", 1,
          [=]() { return RedisFetchAll(c, category, "short:", top); }, {}, {}, {}, {}};
  p[3] = {"redis", "local-short", fmt::format("ZREVRANGE {} 0 {}, then MGET of those short:<id>", set, n - 1),
          "(id, title, views)", "server (sorted set by views, ties by id in the score)", 2,
          [=]() { return RedisTop(c, category, "short:", n); }, {}, {}, {}, {}};
  for (LocalityPath& path : p) {
    path.app_bytes = [c]() { return c->bytes(); };
    path.kernel_bytes = [c]() { return c->KernelBytes(); };
  }
  return p;
}

Status LoadTarantool(ProtoControl* c, uint64_t seed, uint32_t count, uint32_t batch) {
  for (uint32_t low = 1; low <= count; low += batch) {
    const uint32_t high = std::min(count, low + batch - 1);
    std::vector<Value> rows;
    rows.reserve(high - low + 1);
    for (uint32_t id = low; id <= high; ++id) rows.push_back(TupleOf(MakeProduct(seed, id)));
    auto r = c->Eval(kTarantoolBatchLua, Value::Array({Value::Array(std::move(rows))}));
    if (!r.ok()) return r.status().WithContext(fmt::format("loading records {}..{}", low, high));
  }
  return Status::OK();
}

Status LoadRedis(RedisClient* c, uint64_t seed, uint32_t count, uint32_t batch) {
  for (uint32_t low = 1; low <= count; low += batch) {
    const uint32_t high = std::min(count, low + batch - 1);
    std::vector<std::string> records = {"MSET"}, shorts = {"MSET"};
    std::map<std::string, std::vector<std::string>> sets;
    for (uint32_t id = low; id <= high; ++id) {
      const Product p = MakeProduct(seed, id);
      records.insert(records.end(), {ProductKey(id), ProductJson(p)});
      shorts.insert(shorts.end(), {ShortKey(id), ShortJson(p)});
      auto& zadd = sets[p.category];
      if (zadd.empty()) zadd = {"ZADD", CategoryKey(p.category)};
      zadd.insert(zadd.end(), {Score(p), std::to_string(id)});
    }
    for (const auto* args : {&records, &shorts}) {
      auto r = Checked(c, *args);
      if (!r.ok()) return r.status().WithContext(fmt::format("loading records {}..{}", low, high));
    }
    for (const auto& [category, zadd] : sets) {
      auto r = Checked(c, zadd);
      if (!r.ok()) return r.status().WithContext(fmt::format("loading records {}..{}", low, high));
    }
  }
  return Status::OK();
}

}  // namespace

bool ViewsBefore(const ViewsRow& a, const ViewsRow& b) {
  return a.views != b.views ? a.views > b.views : a.id < b.id;
}

std::vector<uint32_t> TopIds(std::vector<ViewsRow> rows, size_t n,
                             bool (*before)(const ViewsRow&, const ViewsRow&)) {
  const size_t k = std::min(n, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(k), rows.end(), before);
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < k; ++i) ids.push_back(rows[i].id);
  return ids;
}

std::vector<uint32_t> DatasetTopIds(uint64_t seed, const std::string& category, size_t n) {
  std::vector<ViewsRow> rows;
  for (uint32_t id = 1; id <= kProductCount; ++id) {
    const Product p = MakeProduct(seed, id);
    if (p.category == category) rows.push_back({p.id, p.views});
  }
  return TopIds(std::move(rows), n);
}

ServerConfig LocalityTarantoolConfig() {
  ServerConfig c;
  c.name = "tarantool";
  c.system = SystemKind::kTarantool;
  return c;
}

Result<std::unique_ptr<ServerUnderTest>> StartLocalityServer(const ServerConfig& config,
                                                             const std::atomic<bool>* cancel) {
  return ServerUnderTest::Start(config, cancel, config.system == SystemKind::kTarantool ? kLocalityLua : "");
}

ServerConfig LocalityRedisConfig() {
  ServerConfig c;
  c.name = "redis";
  c.system = SystemKind::kRedis;
  return c;
}

Status LoadLocalityRecords(ServerUnderTest* server, uint64_t seed, uint32_t count, uint32_t batch) {
  Status s = server->redis() != nullptr ? LoadRedis(server->redis(), seed, count, batch)
                                        : LoadTarantool(server->control(), seed, count, batch);
  if (!s.ok()) return s;
  auto counters = server->Read();
  if (!counters.ok()) return counters.status().WithContext("counting the records loaded");
  // Redis: a record key and a short key per record, and one set per category.
  const int64_t want = server->redis() != nullptr
                           ? int64_t{2} * count + static_cast<int64_t>(ProductCategories().size())
                           : int64_t{count};
  if (counters->present != want) {
    return Status::Failed(fmt::format("{} holds {} keys or tuples after the load, not {}",
                                      server->config().name, counters->present, want));
  }
  return Status::OK();
}

Result<std::vector<LocalityPath>> LocalityPaths(ServerUnderTest* server, const std::string& category, int n) {
  if (server->redis() != nullptr) return RedisPaths(server->redis(), category, n);
  return TarantoolPaths(server->control(), category, n);
}

}  // namespace memstand
