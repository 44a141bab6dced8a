#include "core/config/output_path.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace stave {
namespace {

/// The path with links and ".." resolved as far as it exists (the rest appended lexically).
fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (ec) r = fs::absolute(p).lexically_normal();
  return r;
}

/// Whether `inner` is `outer` or lies below it.
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

bool sameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return a == b || (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec));
}

}  // namespace

Status checkOutputFile(const std::string& out, const std::vector<std::string>& inputs, bool force,
                       const std::string& flag) {
  if (out.empty()) return textError("command line", 0, flag, Text("output.needs_file"));
  const fs::path o = resolved(out);
  for (const auto& in : inputs) {
    if (in.empty()) continue;
    if (sameFile(o, resolved(in)))
      return textError(out, 0, flag, Text("output.is_input", {{"input", in}}));
  }
  std::error_code ec;
  if (fs::is_directory(o, ec))
    return textError(out, 0, flag, Text("output.is_folder"));
  if (fs::exists(o, ec) && !force)
    return textError(out, 0, flag, Text("output.exists"));
  return Ok{};
}

Status checkOutputFolder(const std::string& out, const std::vector<std::string>& inputs,
                         bool force, const std::string& flag) {
  if (out.empty()) return textError("command line", 0, flag, Text("output.needs_folder"));
  const fs::path o = resolved(out);
  for (const auto& in : inputs) {
    if (in.empty()) continue;
    const fs::path i = resolved(in);
    if (sameFile(o, i) || within(i, o))
      return textError(out, 0, flag, Text("output.holds_input", {{"input", in}}));
  }
  std::error_code ec;
  if (fs::exists(o, ec) && !fs::is_directory(o, ec))
    return textError(out, 0, flag, Text("output.not_a_folder"));
  if (fs::is_directory(o, ec) && !fs::is_empty(o, ec) && !force)
    return textError(out, 0, flag, Text("output.folder_not_empty"));
  return Ok{};
}

}  // namespace stave
