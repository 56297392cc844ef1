// A latency relay: TCP links that forward every chunk (one read) a set delay after it
// was read, in order, and measure how far each chunk's actual leave time fell from its
// intended one (docs/relay.md). One event-loop thread owns every socket; the timer is a
// timerfd at the earliest due chunk's absolute time (an hrtimer without slack), not a
// sleep per chunk.
//
// Ownership: Relay owns its listeners, its connections and its thread. Start() binds
// every link before it returns, so a client may connect at once. Snapshot() and
// listen_port() may be called from any thread; Stop() from the owner's.
#pragma once

#include <memory>

#include "relay/relay_options.h"
#include "relay/relay_stats.h"
#include "util/status.h"

namespace memstand {

class Relay {
 public:
  /// Binds every link (IoError naming it if one cannot) and starts the loop thread.
  /// InvalidArgument for options out of range (no link, negative delay, cap 0).
  static Result<std::unique_ptr<Relay>> Start(const RelayOptions& options);
  /// Calls Stop().
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  /// The port link i listens on (the kernel's pick for a listen port of 0).
  int listen_port(size_t link) const;
  /// A copy of the counters so far (taken between two wake-ups of the loop).
  RelayStats Snapshot() const;

  /// Faults on a link, for partitions (docs/relay.md, Faults), applied by the loop at its
  /// next wake-up (this call wakes it) and kept until changed:
  ///   kForward:   as configured (the default; "heal").
  ///   kCut:       every connection of the link is reset (RST to both sides) and every new
  ///               client is accepted and reset at once: a peer that is refused.
  ///   kBlackhole: nothing is read or sent on the link's connections, old or new (new
  ///               clients are accepted and connected); what the relay held stays held
  ///               and leaves once the link forwards again, as TCP delivers after a
  ///               partition heals: a peer that does not answer.
  /// InvalidArgument for a link past the options'. Any thread.
  enum class LinkMode { kForward, kCut, kBlackhole };
  Status SetLinkMode(size_t link, LinkMode mode);
  /// Stops the loop, closes every socket (held bytes are dropped) and joins the thread.
  /// Idempotent.
  void Stop();

 private:
  class Loop;  // the event loop and its sockets (relay.cc)
  explicit Relay(std::unique_ptr<Loop> loop);
  std::unique_ptr<Loop> loop_;
};

}  // namespace memstand
