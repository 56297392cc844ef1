#include "util/json_depth.h"

#include <string>
#include <vector>

namespace memstand {
namespace {

constexpr size_t kMaxPathText = 100;  // a too-deep field's path in a message
constexpr size_t kMaxKeyText = 32;    // one key of it

// An open array or object of CheckJsonDepth's walk: where the walk is inside it.
struct Level {
  bool object = false;
  bool expect_key = false;  // object: the next string is a key
  std::string key;          // object: the current member's key (raw, cut)
  size_t index = 0;         // array: the current element
};

std::string PathText(const std::vector<Level>& levels) {
  std::string path;
  for (const Level& l : levels) {
    if (path.size() > kMaxPathText) return path.substr(0, kMaxPathText) + "...";
    if (l.object) path += (path.empty() ? "" : ".") + l.key;
    else path += "[" + std::to_string(l.index) + "]";
  }
  return path.empty() ? "the top level" : path;
}

}  // namespace

Status CheckJsonDepth(std::string_view text, int max_depth) {
  std::vector<Level> levels;
  bool in_string = false, escaped = false, collect = false;
  std::string str;  // the string being read, when it may be a key
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        if (collect) {
          levels.back().key = std::move(str);
          levels.back().expect_key = false;
        }
        continue;
      }
      if (collect && str.size() < kMaxKeyText) str.push_back(c);
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        collect = !levels.empty() && levels.back().object && levels.back().expect_key;
        str.clear();
        break;
      case '{':
      case '[':
        if (static_cast<int>(levels.size()) >= max_depth) {
          return Status::InvalidArgument(
              "nested deeper than " + std::to_string(max_depth) + " levels (at " + PathText(levels) + ")");
        }
        levels.push_back({c == '{', c == '{', "", 0});
        break;
      case '}':
      case ']':
        if (!levels.empty()) levels.pop_back();
        break;
      case ',':
        if (levels.empty()) break;
        if (levels.back().object) levels.back().expect_key = true;
        else ++levels.back().index;
        break;
      default:
        break;
    }
  }
  return Status::OK();
}

}  // namespace memstand
