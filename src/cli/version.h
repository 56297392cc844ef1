// `memstand --version`: the version and what this binary was built with and can use here.
#pragma once

#include <string>

namespace memstand::cli {

/// "memstand 0.1.0" and lines for the compiler, the build type, the libraries and
/// whether io_uring can be used on this machine (and why not).
std::string VersionText();

}  // namespace memstand::cli
