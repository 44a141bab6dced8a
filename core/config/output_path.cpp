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
  if (out.empty()) return Error{"command line", 0, flag, "needs a file name"};
  const fs::path o = resolved(out);
  for (const auto& in : inputs) {
    if (in.empty()) continue;
    if (sameFile(o, resolved(in)))
      return Error{out, 0, flag,
                   "is an input of this command (" + in +
                       "); writing there would destroy it. Choose another file"};
  }
  std::error_code ec;
  if (fs::is_directory(o, ec))
    return Error{out, 0, flag, "is a folder; give a file name"};
  if (fs::exists(o, ec) && !force)
    return Error{out, 0, flag, "already exists; pass --force to replace it"};
  return Ok{};
}

Status checkOutputFolder(const std::string& out, const std::vector<std::string>& inputs,
                         bool force, const std::string& flag) {
  if (out.empty()) return Error{"command line", 0, flag, "needs a folder name"};
  const fs::path o = resolved(out);
  for (const auto& in : inputs) {
    if (in.empty()) continue;
    const fs::path i = resolved(in);
    if (sameFile(o, i) || within(i, o))
      return Error{out, 0, flag,
                   "holds an input of this command (" + in +
                       "); its files could be overwritten. Choose another folder"};
  }
  std::error_code ec;
  if (fs::exists(o, ec) && !fs::is_directory(o, ec))
    return Error{out, 0, flag, "is a file, not a folder"};
  if (fs::is_directory(o, ec) && !fs::is_empty(o, ec) && !force)
    return Error{out, 0, flag,
                 "already exists and is not empty; pass --force to write into it (files of the "
                 "same name are replaced)"};
  return Ok{};
}

}  // namespace stave
