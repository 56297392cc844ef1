#include "proto/etcd/http.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/feed_util.h"

namespace memstand::http {
namespace {

using codec_test::Bytewise;
using codec_test::ExpectSplitInvariant;
using codec_test::FeedChunks;
using codec_test::Outcome;
using codec_test::RandomChunks;
using Event = ResponseReader::Event;

std::string Dump(ResponseReader* r) {
  const Response& resp = r->response();
  return std::to_string(resp.status) + (resp.keep_alive ? " keep-alive" : " close") +
         (resp.chunked ? " chunked" : "") + " bytes=" + std::to_string(resp.wire_bytes) + " body='" +
         resp.body + "'";
}

Outcome Parse(const std::vector<std::string>& chunks, ResponseReader::Limits limits = {}) {
  ResponseReader reader(limits);
  return FeedChunks(&reader, chunks, Dump);
}

// Captured from etcd 3.4.23's gateway (Date header shortened).
const std::string kEtcdPut =
    "HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: application/json\r\n"
    "Grpc-Metadata-Content-Type: application/grpc\r\nDate: Mon, 30 Nov 2026 02:33:41 GMT\r\n"
    "Content-Length: 114\r\n\r\n"
    R"({"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"2","raft_term":"2"}})";
const std::string kEtcdChunkedError =
    "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
    "Trailer: Grpc-Trailer-Content-Type\r\nTransfer-Encoding: chunked\r\n\r\n"
    "93\r\n"
    R"({"error":"etcdserver: mvcc: required revision is a future revision","message":"etcdserver: mvcc: required revision is a future revision","code":11})"
    "\r\n0\r\nGrpc-Trailer-Content-Type: application/grpc\r\n\r\n";
const std::string kNotFound =
    "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 19\r\n\r\n404 page not found\n";

TEST(HttpReaderTest, EtcdReplies) {
  Outcome o = Parse({kEtcdPut + kEtcdChunkedError + kNotFound});
  ASSERT_FALSE(o.failed) << o.error;
  ASSERT_EQ(o.replies.size(), 3u);
  EXPECT_EQ(o.replies[0].substr(0, 24), "200 keep-alive bytes=" + std::to_string(kEtcdPut.size()));
  EXPECT_EQ(o.replies[1].substr(0, 46),
            "400 keep-alive chunked bytes=" + std::to_string(kEtcdChunkedError.size()) +
                " body='{\"error");
  EXPECT_EQ(o.replies[2], "404 keep-alive bytes=" + std::to_string(kNotFound.size()) +
                              " body='404 page not found\n'");
}

TEST(HttpReaderTest, ConnectionAndVersions) {
  EXPECT_EQ(Parse({"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx"}).replies[0],
            "200 close bytes=58 body='x'");
  EXPECT_EQ(Parse({"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"}).replies[0],
            "200 close bytes=38 body=''");
  EXPECT_EQ(Parse({"HTTP/1.0 200 OK\r\nconnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n"}).replies[0],
            "200 keep-alive bytes=62 body=''");
  EXPECT_EQ(Parse({"HTTP/1.1 204 No Content\r\n\r\n"}).replies[0], "204 keep-alive bytes=27 body=''");
  EXPECT_EQ(Parse({"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok"}).replies[0],
            "200 keep-alive bytes=37 body='ok'");
}

TEST(HttpReaderTest, InterimResponsesAreSkipped) {
  const std::string in = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
  Outcome o = Parse({in});
  ASSERT_EQ(o.replies.size(), 1u) << o.error;
  EXPECT_EQ(o.replies[0], "200 keep-alive bytes=" + std::to_string(in.size()) + " body='x'");
}

TEST(HttpReaderTest, ChunkExtensionsAndManyChunks) {
  const std::string in =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;name=v\r\nabc\r\nA\r\n0123456789\r\n1\r\n\n\r\n0\r\n\r\n";
  Outcome o = Parse({in});
  ASSERT_EQ(o.replies.size(), 1u) << o.error;
  EXPECT_EQ(o.replies[0], "200 keep-alive chunked bytes=" + std::to_string(in.size()) +
                              " body='abc0123456789\n'");
}

TEST(HttpReaderTest, EverySplitGivesTheSameResult) {
  for (const std::string& in :
       {kEtcdPut, kEtcdChunkedError, kNotFound + kEtcdPut,
        std::string("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")}) {
    Outcome whole = ExpectSplitInvariant(in, [] { return ResponseReader(); }, Dump);
    EXPECT_FALSE(whole.failed) << whole.error;
    EXPECT_EQ(whole.consumed, in.size());
  }
}

TEST(HttpReaderTest, MalformedInputsAreProtocolErrors) {
  struct Bad {
    std::string in;
    std::string error;
  };
  const std::vector<Bad> bad = {
      {"-ERR unknown command 'POST'\r\n", "bad HTTP status line '-ERR unknown command 'POST'' at byte 0"},
      {"\xce\x01\x02\x03\x04\x05\x06", "line longer than 4 bytes at byte 0"},  // only with a tiny limit, see below
      {"HTTP/2 200\r\n", "bad HTTP status line 'HTTP/2 200'"},
      {"HTTP/1.1 2000 OK\r\n", "bad HTTP status line"},
      {"HTTP/1.1 20x OK\r\n", "bad HTTP status line"},
      {"HTTP/1.1 099 Odd\r\n", "bad HTTP status line"},
      {"HTTP/1.1 200 OK\n", "line not terminated by CRLF at byte 15"},
      {"HTTP/1.1 200 OK\r\nNoColon\r\n", "bad header line 'NoColon' at byte 17"},
      {"HTTP/1.1 200 OK\r\n folded\r\n", "bad header line"},
      {"HTTP/1.1 200 OK\r\n: x\r\n", "bad header line"},
      {"HTTP/1.1 200 OK\r\nContent-Length: x\r\n", "bad Content-Length 'x'"},
      {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n", "bad Content-Length '-1'"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n", "bad Content-Length '2'"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n", "unsupported Transfer-Encoding 'gzip'"},
      {"HTTP/1.1 200 OK\r\n\r\n", "response without Content-Length or chunked encoding at byte 17"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "body of 99999999999 bytes over the limit"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size 'zz' at byte 47"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", "bad chunk size ''"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", "bad chunk size"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffff\r\n", "body over the limit"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n", "chunk not followed by CRLF"},
  };
  for (const Bad& b : bad) {
    ResponseReader::Limits limits;
    if (b.in[0] == '\xce') limits.max_line = 4;
    Outcome whole = Parse({b.in}, limits);
    EXPECT_TRUE(whole.failed) << b.in;
    EXPECT_NE(whole.error.find(b.error), std::string::npos) << b.in << " -> " << whole.error;
    EXPECT_EQ(Parse(Bytewise(b.in), limits), whole) << b.in;
  }
}

TEST(HttpReaderTest, Limits) {
  ResponseReader::Limits limits;
  limits.max_headers = 2;
  limits.max_body = 3;
  EXPECT_TRUE(Parse({"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 3\r\n\r\nabc"}, limits).failed);
  EXPECT_EQ(Parse({"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n"}, limits).error,
            "more than 2 header lines at byte 29 of the HTTP response");
  EXPECT_FALSE(Parse({"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"}, limits).failed);
  EXPECT_TRUE(Parse({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\n"}, limits).failed);
}

TEST(HttpReaderTest, StaysFailedUntilReset) {
  ResponseReader reader;
  size_t used = 0;
  ASSERT_EQ(reader.Feed("x\r\n", 3, &used), Event::kProtocolError);
  EXPECT_EQ(reader.Feed(kNotFound.data(), kNotFound.size(), &used), Event::kProtocolError);
  reader.Reset();
  ASSERT_EQ(reader.Feed(kNotFound.data(), 30, &used), Event::kNeedMore);
  reader.Reset();
  ASSERT_EQ(reader.Feed(kNotFound.data(), kNotFound.size(), &used), Event::kReply);
  EXPECT_EQ(reader.response().status, 404);
  EXPECT_EQ(reader.response().wire_bytes, kNotFound.size());
}

TEST(HttpReaderTest, MutationsAreSplitInvariant) {
  std::mt19937 rng(7);
  const std::vector<std::string> corpus = {kEtcdPut, kEtcdChunkedError, kNotFound};
  const std::string alphabet = "HTP/1. 0\r\n:;aAfF9";
  for (int iter = 0; iter < 5000; ++iter) {
    std::string in = corpus[rng() % corpus.size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      in[rng() % in.size()] = rng() % 2 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    }
    const Outcome whole = Parse({in});
    ASSERT_EQ(Parse(RandomChunks(in, 13, &rng)), whole) << "iteration " << iter;
  }
}

TEST(HttpEncoderTest, Post) {
  Buffer b(4);
  AppendPost(&b, "127.0.0.1:2379", "/v3/kv/range", R"({"key":"Zm9v"})");
  EXPECT_EQ(b.View(),
            "POST /v3/kv/range HTTP/1.1\r\nHost: 127.0.0.1:2379\r\n"
            "Content-Type: application/json\r\nContent-Length: 14\r\n\r\n"
            R"({"key":"Zm9v"})");
}

}  // namespace
}  // namespace memstand::http
