// Where the tests find the binaries they run and the repository's files. The values are
// compiled into one generated source (tests/test_paths.cc.in, configured by CMake), so
// that only that small file depends on the checkout's and the build's location: the test
// files themselves hit ccache in another clone (CI's).
#pragma once

#include <string>

namespace memstand::testutil {

/// The memstand binary built beside the tests (an absolute path).
const std::string& MemstandBinary();

/// The repository's root (an absolute path, no trailing slash).
const std::string& SourceDir();

}  // namespace memstand::testutil
