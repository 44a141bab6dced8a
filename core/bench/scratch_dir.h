#pragma once
// A benchmark's working folder in the temporary directory, removed when the benchmark ends.

#include <filesystem>
#include <string>
#include <system_error>

namespace stave::bench {

/// A folder removed with everything in it when this goes out of scope, unless it is kept or
/// empty. Benchmarks name it after the process so that two of them never share one.
class ScratchDir {
 public:
  /// `path` may not exist yet; nothing is created here.
  explicit ScratchDir(std::filesystem::path path, bool keep = false)
      : m_path(std::move(path)), m_keep(keep) {}
  ~ScratchDir() {
    std::error_code ec;  // a folder that cannot be removed is left behind, not an error
    if (!m_keep && !m_path.empty()) std::filesystem::remove_all(m_path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  /// The folder ("" = none).
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  bool m_keep;
};

/// `<temporary directory>/<prefix><pid>`.
std::filesystem::path scratchPath(const std::string& prefix);

}  // namespace stave::bench
