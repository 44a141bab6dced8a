#include "core/telemetry/nvml.h"

#include <dlfcn.h>

namespace stave::telemetry::nvml {

Library::Library(const std::string& path) {
  m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_handle) {
    const char* err = dlerror();
    fail(Text("nvml.not_found",
              {err ? Text::Arg("reason", std::string(err))
                   : Text::Arg("reason", Text("nvml.not_loaded", {{"path", path}}))}));
    return;
  }
  auto init = symbol<Return (*)()>("nvmlInit_v2", "nvmlInit");
  m_shutdown = symbol<Return (*)()>("nvmlShutdown");
  m_errorString = symbol<const char* (*)(Return)>("nvmlErrorString");
  getCount = symbol<Return (*)(unsigned int*)>("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  getHandle = symbol<Return (*)(unsigned int, Device*)>("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  if (!init || !m_shutdown || !getCount || !getHandle) {
    fail(Text("nvml.too_old", {{"path", path}}));
    return;
  }
  if (const Return rc = init(); rc != kSuccess) {
    fail(Text("nvml.init_failed", {{"reason", describe(rc)}}));
    return;
  }
  m_initialised = true;
}

Library::~Library() {
  if (m_initialised && m_shutdown) m_shutdown();
  if (m_handle) dlclose(m_handle);
}

void* Library::find(const char* name, const char* fallback) const {
  if (!m_handle) return nullptr;
  void* p = dlsym(m_handle, name);
  if (!p && fallback) p = dlsym(m_handle, fallback);
  return p;
}

std::string Library::describe(Return rc) const {
  const char* s = m_errorString ? m_errorString(rc) : nullptr;
  return s ? std::string(s) + " (NVML " + std::to_string(rc) + ")" : "NVML error " + std::to_string(rc);
}

}  // namespace stave::telemetry::nvml
