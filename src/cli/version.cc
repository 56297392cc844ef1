#include "cli/version.h"

#include <openssl/opensslv.h>
#include <zstd.h>

#include <CLI/Version.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/uring.h"

namespace memstand::cli {

std::string VersionText() {
  std::string out = fmt::format("memstand {}\n", MEMSTAND_VERSION);
#if defined(__clang__)
  out += fmt::format("  compiler: clang {}.{}.{}, C++{}\n", __clang_major__, __clang_minor__, __clang_patchlevel__,
                     __cplusplus / 100 % 100);
#elif defined(__GNUC__)
  out += fmt::format("  compiler: GCC {}.{}.{}, C++{}\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
                     __cplusplus / 100 % 100);
#endif
#if defined(NDEBUG)
  const char* build = "optimized (NDEBUG)";
#else
  const char* build = "with assertions";
#endif
#if defined(__SANITIZE_ADDRESS__)
  out += fmt::format("  build: {}, AddressSanitizer\n", build);
#else
  out += fmt::format("  build: {}\n", build);
#endif
  out += fmt::format("  libraries: fmt {}.{}.{}, CLI11 {}, nlohmann-json {}.{}.{}, liburing, {}, zstd {}\n",
                     FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100, CLI11_VERSION,
                     NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH,
                     OPENSSL_VERSION_TEXT, ZSTD_VERSION_STRING);
  auto ring = Uring::Create(1);
  out += ring.ok() ? "  io_uring: available here (--io auto uses it)\n"
                   : "  io_uring: not available here (" + ring.status().message() + "); --io auto uses epoll\n";
  return out;
}

}  // namespace memstand::cli
