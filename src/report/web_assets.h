// The files a report page inlines, embedded in the binary at build time by
// cmake/embed_assets.cmake (a generated web_assets.cc in the build folder): uPlot's
// script and style sheet from npm (web/package.json pins the version) and the page's own
// script and style sheet (src/report/page/). No file is read at run time.
#pragma once

#include <string_view>

namespace memstand::assets {

std::string_view UplotJs();       // uPlot.iife.min.js: defines the global uPlot
std::string_view UplotCss();      // uPlot.min.css
std::string_view PageJs();        // src/report/page/report.js
std::string_view PageCss();       // src/report/page/report.css
std::string_view UplotVersion();  // "1.6.32"

}  // namespace memstand::assets
