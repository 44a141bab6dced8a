// A stand-in for libnvidia-ml.so.1 with two fake GPUs, so the sampler's whole path (dlopen,
// symbol lookup, unit conversions, polling thread) is tested on machines without a driver.
// Only the entry points GpuSampler uses; values are fixed so the test can check conversions.
// FAKE_NVML_INIT_FAIL=1 makes nvmlInit fail as it does when the kernel module is not loaded.

#include <cstdlib>
#include <cstring>

extern "C" {

struct nvmlDevice_st {
  int index;
};
static nvmlDevice_st g_devices[2] = {{0}, {1}};
static int g_initCount = 0;

struct FakeUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct FakeMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

int nvmlInit_v2() {
  const char* fail = std::getenv("FAKE_NVML_INIT_FAIL");
  if (fail && std::strcmp(fail, "1") == 0) return 9;  // NVML_ERROR_DRIVER_NOT_LOADED
  ++g_initCount;
  return 0;
}
int nvmlShutdown() {
  --g_initCount;
  return 0;
}
const char* nvmlErrorString(int rc) {
  return rc == 9 ? "Driver Not Loaded" : "Unknown Error";
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = 2;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_st** device) {
  if (index >= 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = &g_devices[index];
  return 0;
}
int nvmlDeviceGetName(nvmlDevice_st* device, char* name, unsigned int length) {
  const char* n = device->index == 0 ? "Fake GPU A" : "Fake GPU B";
  std::strncpy(name, n, length);
  return 0;
}
int nvmlDeviceGetUtilizationRates(nvmlDevice_st* device, FakeUtilization* u) {
  u->gpu = 90 + device->index;
  u->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(nvmlDevice_st* device, FakeMemory* m) {
  m->total = 80ull << 30;
  m->used = (10ull + device->index) << 30;
  m->free = m->total - m->used;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice_st*, unsigned int* mw) {
  *mw = 350500;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_st*, unsigned int* mw) {
  *mw = 700000;
  return 0;
}
int nvmlDeviceGetTemperature(nvmlDevice_st*, int sensor, unsigned int* t) {
  if (sensor != 0) return 2;
  *t = 61;
  return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice_st* device, int type, unsigned int* mhz) {
  if (type != 1) return 2;           // only the SM clock is expected
  if (device->index == 1) return 3;  // NVML_ERROR_NOT_SUPPORTED on the second device
  *mhz = 1980;
  return 0;
}
int nvmlDeviceGetPcieThroughput(nvmlDevice_st* device, int counter, unsigned int* kbs) {
  if (counter != 0 && counter != 1) return 2;
  *kbs = (counter == 0 ? 1000u : 2000u) * (device->index + 1);
  return 0;
}
int fakeNvmlInitCount() {
  return g_initCount;
}

}  // extern "C"
