#include "core/cuda/runtime.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

namespace stave::cuda {
namespace {

const Runtime* g_runtime = nullptr;

std::string executableDir() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  std::string p(buf.data(), static_cast<size_t>(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash);
}

/// Where the module may be: STAVE_CUDA_MODULE, next to the executable, ../lib/stave from it
/// (an installed layout), and the build tree it was built in (tests run from elsewhere).
std::vector<std::string> candidates(const std::string& named) {
  std::vector<std::string> out;
  if (!named.empty()) {
    out.push_back(named);
    return out;
  }
  const std::string dir = executableDir();
  if (!dir.empty()) {
    out.push_back(dir + "/libstave_cuda.so");
    out.push_back(dir + "/../lib/stave/libstave_cuda.so");
  }
#ifdef STAVE_CUDA_MODULE_BUILD_PATH
  out.emplace_back(STAVE_CUDA_MODULE_BUILD_PATH);
#endif
  return out;
}

LoadStatus doLoad() {
  LoadStatus s;
  const char* env = std::getenv("STAVE_CUDA");
  const std::string v = env ? env : "";
  if (v.empty() || v == "auto") {
    s.mode = "auto";
  } else if (v == "1" || v == "on") {
    s.mode = "on";
  } else if (v == "0" || v == "off") {
    s.mode = "off";
    s.reason = "CUDA is switched off (STAVE_CUDA=" + v + ")";
    return s;
  } else {
    s.mode = v;
    s.failed = true;
    s.reason = "STAVE_CUDA='" + v + "' is not one of auto, 1, 0";
    return s;
  }
#ifndef STAVE_CUDA_MODULE_BUILD_PATH
  s.reason = "this build has no CUDA module (its LibTorch is CPU-only)";
  s.failed = s.mode == "on";
  return s;
#else
  if (s.mode == "auto") {
    // The driver's library; without it CUDA cannot run, and loading LibTorch's CUDA part
    // would only cost memory.
    void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver) {
      s.reason = "no NVIDIA driver (libcuda.so.1 does not load)";
      return s;
    }
    ::dlclose(driver);
  }
  std::string errors;
  const char* namedEnv = std::getenv("STAVE_CUDA_MODULE");
  const std::string named = namedEnv ? namedEnv : "";
  for (const auto& path : candidates(named)) {
    if (::access(path.c_str(), R_OK) != 0) {
      if (!named.empty()) errors += "; " + path + " (STAVE_CUDA_MODULE): no such readable file";
      continue;
    }
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      const char* e = ::dlerror();
      errors += "; " + path + ": " + (e ? e : "dlopen failed");
      continue;
    }
    auto entry = reinterpret_cast<EntryPointFn>(::dlsym(h, kEntryPoint));
    if (!entry) {
      errors += "; " + path + ": no symbol " + kEntryPoint + " (a module from another build?)";
      continue;
    }
    g_runtime = entry();
    s.loaded = g_runtime != nullptr;
    s.path = path;
    if (s.loaded) return s;
    errors += "; " + path + ": the module returned no runtime";
  }
  s.failed = true;
  s.reason = errors.empty() ? "libstave_cuda.so was not found next to the executable (set "
                              "STAVE_CUDA_MODULE to its path)"
                            : "the CUDA module does not load" + errors;
  return s;
#endif
}

}  // namespace

const LoadStatus& load() {
  static std::once_flag once;
  static LoadStatus status;
  std::call_once(once, [] { status = doLoad(); });
  return status;
}

const Runtime* runtime() {
  load();
  return g_runtime;
}

int deviceCount() {
  if (!runtime()) return 0;
  return static_cast<int>(torch::cuda::device_count());
}

bool available() { return deviceCount() > 0; }

std::string unavailableReason() {
  const auto& s = load();
  if (!s.loaded) return s.reason;
  if (deviceCount() == 0) return "LibTorch's CUDA library sees no CUDA device";
  return "";
}

bool torchCudaRegistered() {
  load();
  try {
    return at::detail::getCUDAHooks().versionCUDART() > 0;
  } catch (const std::exception&) {
    return false;  // LibTorch's stand-in hooks: "without ATen_cuda library"
  }
}

bool torchCudaInProcess() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libtorch_cuda.so") != std::string::npos) return true;
  return false;
}

}  // namespace stave::cuda
