#include "core/tcp_info.h"

#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

namespace memstand {

Result<TcpBytes> ReadTcpBytes(int fd) {
  tcp_info info {};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) {
    return Status::IoError(std::string("getsockopt(TCP_INFO): ") + std::strerror(errno));
  }
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received)) {
    return Status::IoError("TCP_INFO without tcpi_bytes_received (a kernel before 4.2)");
  }
  return TcpBytes{info.tcpi_bytes_received, info.tcpi_bytes_acked};
}

}  // namespace memstand
