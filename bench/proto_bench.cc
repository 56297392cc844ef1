// memcache, IPROTO and etcd codec hot paths: the load engine's summary readers over a
// buffer of replies, request encoders, and the etcd JSON decode.
#include <benchmark/benchmark.h>

#include <string>

#include "proto/iproto/request_template.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"
#include "proto/iproto/iproto.h"
#include "proto/iproto/value.h"
#include "proto/memcache/memcache.h"

namespace memstand {
namespace {

constexpr int kRepliesPerBuffer = 1000;

std::string Repeat(const std::string& reply, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += reply;
  return out;
}

// Feeds a buffer of kRepliesPerBuffer copies of `reply` to a fresh-per-run reader.
template <typename Reader>
void ParseBuffer(benchmark::State& state, Reader* reader, const std::string& reply) {
  const std::string buf = Repeat(reply, kRepliesPerBuffer);
  int64_t replies = 0;
  for (auto _ : state) {
    size_t pos = 0;
    while (pos < buf.size()) {
      size_t used = 0;
      if (reader->Feed(buf.data() + pos, buf.size() - pos, &used) != Reader::Event::kReply) {
        state.SkipWithError("parse failed");
        return;
      }
      pos += used;
      ++replies;
    }
  }
  state.SetItemsProcessed(replies);
}

void BM_MemcacheSummary_Get100(benchmark::State& state) {
  memcache::Reader reader;
  ParseBuffer(state, &reader, "VALUE key:00000001 0 100\r\n" + std::string(100, 'v') + "\r\nEND\r\n");
}
BENCHMARK(BM_MemcacheSummary_Get100);

void BM_MemcacheSummary_Stored(benchmark::State& state) {
  memcache::Reader reader;
  ParseBuffer(state, &reader, "STORED\r\n");
}
BENCHMARK(BM_MemcacheSummary_Stored);

void BM_MemcacheEncode_Set100(benchmark::State& state) {
  Buffer out;
  const std::string value(100, 'v');
  for (auto _ : state) {
    out.Clear();
    memcache::AppendStore(&out, memcache::StoreCommand::kSet, "key:00000001", 0, 0, value);
    benchmark::DoNotOptimize(out.ReadPtr());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MemcacheEncode_Set100);

std::string IprotoSelectResponse() {
  using iproto::Value;
  const std::string body = iproto::Encode(Value::Map(
      {{Value::Uint(iproto::kDataKey),
        Value::Array({Value::Array({Value::Uint(1), Value::String(std::string(100, 'v'))})})}}));
  const std::string header = iproto::Encode(Value::Map({{Value::Uint(0), Value::Uint(0)},
                                                        {Value::Uint(1), Value::Uint(123456)},
                                                        {Value::Uint(5), Value::Uint(80)}}));
  const size_t len = header.size() + body.size();
  std::string out = "\xce";
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((len >> shift) & 0xff);
  return out + header + body;
}

void BM_IprotoSummary_Select100(benchmark::State& state) {
  iproto::Reader reader;
  ParseBuffer(state, &reader, IprotoSelectResponse());
}
BENCHMARK(BM_IprotoSummary_Select100);

void BM_IprotoEncode_Replace100(benchmark::State& state) {
  using iproto::Value;
  const std::string tuple =
      iproto::Encode(Value::Array({Value::Uint(1), Value::String(std::string(100, 'v'))}));
  Buffer out;
  uint64_t sync = 0;
  for (auto _ : state) {
    out.Clear();
    iproto::AppendReplace(&out, ++sync, 512, tuple);
    benchmark::DoNotOptimize(out.ReadPtr());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_IprotoEncode_Replace100);

// A request template per request: "replace 512 [__key__, __data__]" with a 100 B value
// (compare BM_IprotoEncode_Replace100, whose tuple is encoded beforehand).
void BM_IprotoTemplate_ReplaceKeyData100(benchmark::State& state) {
  auto t = iproto::RequestTemplate::Parse("replace 512 [__key__, __data__]");
  const std::string data(100, 'v');
  Buffer out;
  uint64_t sync = 0;
  for (auto _ : state) {
    out.Clear();
    ++sync;
    t->Append(&out, sync, {.key_index = sync % 10000000, .key_prefix = "memtier-", .data = data});
    benchmark::DoNotOptimize(out.ReadPtr());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_IprotoTemplate_ReplaceKeyData100);

// "insert 512 [__seq__, nil, __rand:128__]": 128 random characters per request.
void BM_IprotoTemplate_InsertSeqRand128(benchmark::State& state) {
  auto t = iproto::RequestTemplate::Parse("insert 512 [__seq__, nil, __rand:128__]");
  Rng rng(1);
  Buffer out;
  uint64_t sync = 0;
  for (auto _ : state) {
    out.Clear();
    ++sync;
    t->Append(&out, sync, {.seq = sync, .rng = &rng});
    benchmark::DoNotOptimize(out.ReadPtr());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_IprotoTemplate_InsertSeqRand128);

const std::string kEtcdPutBody =
    R"({"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"2","raft_term":"2"}})";

void BM_HttpResponse_EtcdPut(benchmark::State& state) {
  http::ResponseReader reader;
  ParseBuffer(state, &reader,
              "HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: application/json\r\n"
              "Grpc-Metadata-Content-Type: application/grpc\r\nDate: Mon, 30 Nov 2026 02:33:41 GMT\r\n"
              "Content-Length: " + std::to_string(kEtcdPutBody.size()) + "\r\n\r\n" + kEtcdPutBody);
}
BENCHMARK(BM_HttpResponse_EtcdPut);

void BM_EtcdDecode_Put(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(etcd::DecodeReply(200, kEtcdPutBody));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EtcdDecode_Put);

void BM_EtcdEncode_Put100(benchmark::State& state) {
  const etcd::Target target;
  const std::string value(100, 'v');
  Buffer out;
  for (auto _ : state) {
    out.Clear();
    etcd::AppendPut(&out, target, "key:00000001", value);
    benchmark::DoNotOptimize(out.ReadPtr());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EtcdEncode_Put100);

}  // namespace
}  // namespace memstand
