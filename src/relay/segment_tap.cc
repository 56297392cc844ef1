#include "relay/segment_tap.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/clock.h"
#include "core/socket.h"
#include "relay/rx_stamp.h"
#include "util/status.h"

namespace memstand {

namespace {

uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t Be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

void MapV4(const uint8_t* v4, std::array<uint8_t, 16>* out) {
  out->fill(0);
  (*out)[10] = 0xff;
  (*out)[11] = 0xff;
  std::memcpy(out->data() + 12, v4, 4);
}

// The TCP header at `tcp` (caplen_left bytes captured from it on), of a segment whose
// TCP part (header and payload) is tcp_len bytes long per the IP header.
bool ParseTcp(const uint8_t* tcp, size_t caplen_left, size_t tcp_len, TapSegment* out) {
  if (caplen_left < 20 || tcp_len < 20) return false;
  const size_t doff = static_cast<size_t>(tcp[12] >> 4) * 4;
  if (doff < 20 || doff > tcp_len) return false;
  out->tuple.src_port = Be16(tcp);
  out->tuple.dst_port = Be16(tcp + 2);
  out->seq = Be32(tcp + 4);
  out->syn = (tcp[13] & 0x02) != 0;
  out->payload = static_cast<uint32_t>(tcp_len - doff);
  return true;
}

// A classic BPF program with labels resolved by hand: conditional jumps only skip a
// fixed number of instructions, so every far target is a `ret` copied in place.
struct Program {
  std::vector<sock_filter> code;
  void Stmt(uint16_t op, uint32_t k) { code.push_back(BPF_STMT(op, k)); }
  void Jump(uint16_t op, uint32_t k, uint8_t jt, uint8_t jf) { code.push_back(BPF_JUMP(op, k, jt, jf)); }
  // Falls through when the condition holds; returns `ret` otherwise.
  void Require(uint16_t op, uint32_t k, uint32_t ret) {
    Jump(op, k, 1, 0);
    Stmt(BPF_RET | BPF_K, ret);
  }
};

}  // namespace

size_t TcpTupleHash::operator()(const TcpTuple& t) const {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  const auto mix = [&h](const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  };
  mix(t.src.data(), 16);
  mix(t.dst.data(), 16);
  const uint8_t ports[4] = {static_cast<uint8_t>(t.src_port >> 8), static_cast<uint8_t>(t.src_port),
                            static_cast<uint8_t>(t.dst_port >> 8), static_cast<uint8_t>(t.dst_port)};
  mix(ports, 4);
  return static_cast<size_t>(h);
}

namespace {

bool FromSockaddr(const sockaddr_storage& a, std::array<uint8_t, 16>* ip, uint16_t* port) {
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    MapV4(reinterpret_cast<const uint8_t*>(&v4->sin_addr), ip);
    *port = ntohs(v4->sin_port);
    return true;
  }
  if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    std::memcpy(ip->data(), &v6->sin6_addr, 16);
    *port = ntohs(v6->sin6_port);
    return true;
  }
  return false;
}

}  // namespace

Result<TcpTuple> ReceivedTuple(int fd) {
  sockaddr_storage local{}, peer{};
  socklen_t ll = sizeof(local), pl = sizeof(peer);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0) {
    return Status::IoError(ErrnoMessage("getsockname", errno));
  }
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0) {
    return Status::IoError(ErrnoMessage("getpeername", errno));
  }
  TcpTuple t;
  if (!FromSockaddr(peer, &t.src, &t.src_port) || !FromSockaddr(local, &t.dst, &t.dst_port)) {
    return Status::IoError("not an IPv4 or IPv6 socket");
  }
  return t;
}

bool ParseTcpPacket(const uint8_t* p, size_t caplen, TapSegment* out) {
  if (caplen < 1) return false;
  const int version = p[0] >> 4;
  if (version == 4) {
    if (caplen < 20) return false;
    const size_t ihl = static_cast<size_t>(p[0] & 0x0f) * 4;
    const size_t total = Be16(p + 2);
    if (ihl < 20 || ihl > caplen || total < ihl) return false;
    if (p[9] != IPPROTO_TCP) return false;
    if ((Be16(p + 6) & 0x3fff) != 0) return false;  // a fragment (offset or more-fragments)
    MapV4(p + 12, &out->tuple.src);
    MapV4(p + 16, &out->tuple.dst);
    return ParseTcp(p + ihl, caplen - ihl, total - ihl, out);
  }
  if (version == 6) {
    if (caplen < 40) return false;
    if (p[6] != IPPROTO_TCP) return false;  // extension headers: not followed
    std::memcpy(out->tuple.src.data(), p + 8, 16);
    std::memcpy(out->tuple.dst.data(), p + 24, 16);
    return ParseTcp(p + 40, caplen - 40, Be16(p + 4), out);
  }
  return false;
}

// The program, on the packet from its network header (SOCK_DGRAM):
//   reject outgoing copies (loopback shows each packet leaving and arriving);
//   IPv4: TCP, not a fragment, X = header length; IPv6: TCP next, X = 40;
//   SYN, or total length > both headers (payload);
//   destination port (at X + 2) in the list.
std::vector<sock_filter> BuildTapFilter(const std::vector<uint16_t>& ports, uint32_t snap) {
  constexpr size_t kMaxPorts = 1500;  // 2 instructions each, under BPF_MAXINSNS (4096)
  Program p;
  p.Stmt(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE);
  p.Jump(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1);
  p.Stmt(BPF_RET | BPF_K, 0);
  p.Stmt(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL);
  const size_t v4_jump = p.code.size();
  p.Jump(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 0);  // jf patched to the IPv6 part
  // IPv4.
  p.Stmt(BPF_LD | BPF_B | BPF_ABS, 9);
  p.Require(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0);
  p.Stmt(BPF_LD | BPF_H | BPF_ABS, 6);
  p.Jump(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 0, 1);
  p.Stmt(BPF_RET | BPF_K, 0);
  p.Stmt(BPF_LDX | BPF_B | BPF_MSH, 0);  // X = 4 * (IHL)
  p.Stmt(BPF_LD | BPF_B | BPF_IND, 13);  // TCP flags
  const size_t v4_syn = p.code.size();
  p.Jump(BPF_JMP | BPF_JSET | BPF_K, 0x02, 0, 0);  // jt patched to the port check
  p.Stmt(BPF_LD | BPF_B | BPF_IND, 12);  // data offset << 4
  p.Stmt(BPF_ALU | BPF_RSH | BPF_K, 4);
  p.Stmt(BPF_ALU | BPF_LSH | BPF_K, 2);
  p.Stmt(BPF_ALU | BPF_ADD | BPF_X, 0);  // both headers
  p.Stmt(BPF_MISC | BPF_TAX, 0);
  p.Stmt(BPF_LD | BPF_H | BPF_ABS, 2);   // total length
  p.Require(BPF_JMP | BPF_JGT | BPF_X, 0, 0);
  p.Stmt(BPF_LDX | BPF_B | BPF_MSH, 0);
  const size_t v4_done = p.code.size();
  p.Stmt(BPF_JMP | BPF_JA, 0);  // k patched to the port check
  // IPv6.
  const size_t v6 = p.code.size();
  p.code[v4_jump].jf = static_cast<uint8_t>(v6 - v4_jump - 1);
  p.Require(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0);
  p.Stmt(BPF_LD | BPF_B | BPF_ABS, 6);
  p.Require(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0);
  p.Stmt(BPF_LDX | BPF_IMM, 40);
  p.Stmt(BPF_LD | BPF_B | BPF_ABS, 53);  // TCP flags
  const size_t v6_syn = p.code.size();
  p.Jump(BPF_JMP | BPF_JSET | BPF_K, 0x02, 0, 0);
  p.Stmt(BPF_LD | BPF_B | BPF_ABS, 52);
  p.Stmt(BPF_ALU | BPF_RSH | BPF_K, 4);
  p.Stmt(BPF_ALU | BPF_LSH | BPF_K, 2);
  p.Stmt(BPF_MISC | BPF_TAX, 0);
  p.Stmt(BPF_LD | BPF_H | BPF_ABS, 4);  // payload length (TCP header and data)
  p.Require(BPF_JMP | BPF_JGT | BPF_X, 0, 0);
  p.Stmt(BPF_LDX | BPF_IMM, 40);
  // The port check, X at the TCP header.
  const size_t check = p.code.size();
  p.code[v4_syn].jt = static_cast<uint8_t>(check - v4_syn - 1);
  p.code[v4_done].k = static_cast<uint32_t>(check - v4_done - 1);
  p.code[v6_syn].jt = static_cast<uint8_t>(check - v6_syn - 1);
  if (ports.empty() || ports.size() > kMaxPorts) {
    p.Stmt(BPF_RET | BPF_K, snap);
    return p.code;
  }
  p.Stmt(BPF_LD | BPF_H | BPF_IND, 2);
  for (uint16_t port : ports) {
    p.Jump(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1);
    p.Stmt(BPF_RET | BPF_K, snap);
  }
  p.Stmt(BPF_RET | BPF_K, 0);
  return p.code;
}

Result<std::unique_ptr<SegmentTap>> SegmentTap::Open() {
  const int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0) return Status::IoError(ErrnoMessage("packet socket (needs CAP_NET_RAW)", errno));
  std::unique_ptr<SegmentTap> tap(new SegmentTap(fd));
  // Until the first port is added the filter takes nothing: attach it before anything
  // else queues, then drop what slipped in before it.
  const sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
  sock_fprog prog{1, const_cast<sock_filter*>(&none)};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0) {
    return Status::IoError(ErrnoMessage("SO_ATTACH_FILTER on the packet socket", errno));
  }
  char sink[64];
  while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) >= 0) {
  }
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) != 0) {
    return Status::IoError(ErrnoMessage("SO_TIMESTAMPNS on the packet socket", errno));
  }
  // Room for bursts between two drains: loopback segments of 64 KiB count whole against
  // the buffer even cut to their headers. FORCE (root) passes rmem_max; else the max.
  const int bytes = 32 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  }
  return tap;
}

SegmentTap::~SegmentTap() {
  if (fd_ >= 0) close(fd_);
}

Status SegmentTap::ApplyFilter() {
  std::vector<uint16_t> ports;
  for (const auto& [port, count] : ports_) ports.push_back(port);
  std::vector<sock_filter> code = BuildTapFilter(ports, kSnap);
  sock_fprog prog{static_cast<unsigned short>(code.size()), code.data()};
  if (setsockopt(fd_, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0) {
    return Status::IoError(ErrnoMessage("SO_ATTACH_FILTER on the packet socket", errno));
  }
  return Status::OK();
}

Status SegmentTap::AddPort(uint16_t port) {
  if (ports_[port]++ > 0) return Status::OK();
  return ApplyFilter();
}

void SegmentTap::RemovePort(uint16_t port) {
  auto it = ports_.find(port);
  if (it == ports_.end() || --it->second > 0) return;
  ports_.erase(it);
  ApplyFilter();  // refused: the old filter lets one more port through, which the maps ignore
}

SegmentMap* SegmentTap::MapFor(const TcpTuple& t, bool create) {
  auto it = streams_.find(t);
  if (it != streams_.end()) return &it->second.map;
  if (!create) return nullptr;
  // A stream no connection claimed yet (a client not accepted yet, or a stray segment of
  // a closed one): bounded, the oldest goes first.
  size_t unclaimed = 0;
  for (const TcpTuple& u : unclaimed_) {
    auto s = streams_.find(u);
    if (s != streams_.end() && !s->second.claimed) ++unclaimed;
  }
  while (unclaimed >= kMaxUnclaimed && !unclaimed_.empty()) {
    auto s = streams_.find(unclaimed_.front());
    unclaimed_.pop_front();
    if (s == streams_.end() || s->second.claimed) continue;
    streams_.erase(s);
    ++stats_.evicted;
    --unclaimed;
  }
  if (unclaimed_.size() >= 4 * kMaxUnclaimed) {  // forget the tuples claimed or gone since
    std::erase_if(unclaimed_, [this](const TcpTuple& u) {
      auto s = streams_.find(u);
      return s == streams_.end() || s->second.claimed;
    });
  }
  unclaimed_.push_back(t);
  return &streams_[t].map;
}

SegmentMap* SegmentTap::Register(const TcpTuple& t) {
  Stream& s = streams_[t];
  s.claimed = true;
  return &s.map;
}

void SegmentTap::Unregister(const TcpTuple& t) {
  auto it = streams_.find(t);
  if (it == streams_.end()) return;
  stats_.map_drops += it->second.map.dropped();  // the closed streams' share
  streams_.erase(it);
}

void SegmentTap::OnFrame(const uint8_t* data, size_t len, int64_t arrival_ns) {
  TapSegment seg;
  if (!ParseTcpPacket(data, len, &seg)) {
    ++stats_.malformed;
    return;
  }
  if (seg.syn) {
    SegmentMap* map = MapFor(seg.tuple, true);
    // Unclaimed: a connection not accepted yet, whose SYN starts its stream (over, if a
    // closed connection left segments under the same tuple).
    if (!streams_.find(seg.tuple)->second.claimed) *map = SegmentMap();
    ++stats_.syns;
    map->OnSyn(seg.seq);
    if (seg.payload > 0) map->OnSegment(seg.seq + 1, seg.payload, arrival_ns);  // TCP Fast Open
    return;
  }
  if (seg.payload == 0) return;
  ++stats_.segments;
  MapFor(seg.tuple, true)->OnSegment(seg.seq, seg.payload, arrival_ns);
}

void SegmentTap::Drain() {
  constexpr int kBatch = 32;
  struct Slot {
    uint8_t data[kSnap];
    sockaddr_ll from;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec)) + 32];
    iovec iov;
  };
  static thread_local Slot slots[kBatch];
  mmsghdr msgs[kBatch];
  for (int read = 0; read < 65536;) {
    for (int i = 0; i < kBatch; ++i) {
      Slot& s = slots[i];
      s.iov = {s.data, sizeof(s.data)};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_name = &s.from;
      msgs[i].msg_hdr.msg_namelen = sizeof(s.from);
      msgs[i].msg_hdr.msg_iov = &s.iov;
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_control = s.control;
      msgs[i].msg_hdr.msg_controllen = sizeof(s.control);
    }
    const int n = recvmmsg(fd_, msgs, kBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) break;
    const int64_t now = NowNs();  // every frame of the batch arrived before this
    // Read only when frames came: the relay drains before every serializing read, most
    // often to find nothing (the offset reads the clocks six times).
    const int64_t offset = RealtimeMinusMonotonicNs();
    read += n;
    for (int i = 0; i < n; ++i) {
      ++stats_.frames;
      const msghdr& m = msgs[i].msg_hdr;
      if (slots[i].from.sll_pkttype == PACKET_OUTGOING) continue;  // the filter's job; defensive
      int64_t arrival = now;  // without a stamp: the drain's time, the read's at worst
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(const_cast<msghdr*>(&m), c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        timespec ts;
        std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        arrival = std::min<int64_t>(now, static_cast<int64_t>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec - offset);
      }
      OnFrame(slots[i].data, std::min<size_t>(msgs[i].msg_len, kSnap), arrival);
    }
    if (n < kBatch) break;
  }
}

SegmentTapStats SegmentTap::stats() {
  tpacket_stats st{};
  socklen_t len = sizeof(st);
  // The kernel's counters restart at every read: added up here.
  if (getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) stats_.kernel_drops += st.tp_drops;
  SegmentTapStats out = stats_;
  for (const auto& [tuple, stream] : streams_) out.map_drops += stream.map.dropped();
  return out;
}

}  // namespace memstand
