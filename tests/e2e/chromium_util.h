// Headless Chromium (Debian's `chromium`, scripts/deps.sh --test) on a page `memstand
// report` wrote: its script checks each chart's canvas for pixels of a series' colour and
// says in the DOM how many it rendered and drew, and any script error.
#pragma once

#include <regex>
#include <string>

#include "npm_util.h"

namespace memstand::e2e {

/// Chromium on `page`, bounded: `mode` is "--dump-dom" or "--screenshot=FILE". A
/// profile folder of its own, so parallel tests never share one.
inline testutil::CommandResult Chromium(const std::string& page, const std::string& mode,
                                        const std::string& profile) {
  using testutil::ShellQuote;
  return testutil::RunShell(
      "timeout 90 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
      "--no-first-run --user-data-dir=" +
      ShellQuote(profile) + " --virtual-time-budget=10000 --window-size=1200,2400 " + ShellQuote(mode) + " " +
      ShellQuote("file://" + page) + " 2>/dev/null");
}

/// An attribute of the page's status element (data-rendered, data-drawn, data-done).
inline std::string Attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex re("id=\"memstand-status\"[^>]*" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : "";
}

/// The page's script errors ("" when none; "?" when the element is missing).
inline std::string Errors(const std::string& dom) {
  std::smatch m;
  return std::regex_search(dom, m, std::regex("<pre id=\"memstand-errors\">([^<]*)</pre>")) ? m[1].str() : "?";
}

}  // namespace memstand::e2e
