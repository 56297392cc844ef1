// Test helpers for the load engine's sessions (load/session.h): feed a session chunks
// of a server's bytes and write down what each event said, so that every way of
// splitting the bytes can be compared with feeding them whole (as tests/codec/
// feed_util.h does for the codecs' readers).
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/feed_util.h"
#include "core/buffer.h"
#include "load/session.h"

namespace memstand::codec_test {

/// One event as text, e.g. "reply 3 12B ok pos", "reply 4 9B error [ERR] ERR no",
/// "ready", "failed: AUTH ...", "protocol error: ...".
inline std::string DescribeEvent(SessionEvent ev, const ReplyView& r, const Status& failure) {
  switch (ev) {
    case SessionEvent::kNeedMore: return "need more";
    case SessionEvent::kReady: return "ready";
    case SessionEvent::kFailed: return "failed: " + failure.message();
    case SessionEvent::kProtocolError: return "protocol error: " + failure.message();
    case SessionEvent::kReply: break;
  }
  std::string s = "reply " + std::to_string(r.tag) + " " + std::to_string(r.wire_bytes) + "B";
  s += r.is_error ? " error [" + std::string(r.error_kind) + "] " + std::string(r.error) : " ok";
  if (r.positive && !r.is_error) s += " pos";
  if (r.applied_write) s += " applied";
  if (r.counts_get) s += " get";
  if (r.closes) s += " closes";
  return s;
}

/// Feeds `chunks` in order, with one ReplyView for them all (as the worker does); stops
/// after a failure. `out` takes what the session writes meanwhile (Tarantool's AUTH).
template <class Session>
std::vector<std::string> FeedSession(Session* session, const std::vector<std::string>& chunks,
                                     Buffer* out) {
  std::vector<std::string> events;
  ReplyView r;
  for (const std::string& chunk : chunks) {
    size_t off = 0;
    while (off < chunk.size()) {
      size_t used = 0;
      const SessionEvent ev = session->Feed(chunk.data() + off, chunk.size() - off, &used, out, &r);
      EXPECT_LE(used, chunk.size() - off);
      off += used;
      if (ev == SessionEvent::kNeedMore) {
        EXPECT_EQ(off, chunk.size());
        break;
      }
      events.push_back(DescribeEvent(ev, r, session->failure()));
      if (ev == SessionEvent::kFailed || ev == SessionEvent::kProtocolError) return events;
    }
  }
  return events;
}

/// Feeds `in` whole, one byte at a time, in random chunks and in every two-part split,
/// each to a fresh session from make() (started, its requests appended), and expects
/// the same events every time; returns them.
template <class Make>
std::vector<std::string> ExpectSessionSplitInvariant(const std::string& in, Make make) {
  Buffer out;
  auto whole_session = make();
  const std::vector<std::string> whole = FeedSession(whole_session.get(), {in}, &out);
  auto bytewise = make();
  EXPECT_EQ(FeedSession(bytewise.get(), Bytewise(in), &out), whole) << "bytewise";
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    auto s = make();
    EXPECT_EQ(FeedSession(s.get(), RandomChunks(in, 64, &rng), &out), whole) << "random chunks " << i;
  }
  for (size_t i = 1; i < in.size(); ++i) {
    auto s = make();
    EXPECT_EQ(FeedSession(s.get(), {in.substr(0, i), in.substr(i)}, &out), whole) << "split at " << i;
  }
  return whole;
}

}  // namespace memstand::codec_test
