// A stand-in for libnvidia-ml.so.1 with two fake GPUs, so the sampler's whole path (dlopen,
// symbol lookup, unit conversions, polling thread) and the inventory (driver, PCIe, NVLink,
// topology, P2P) are tested on machines without a driver. Values are fixed so the tests can
// check conversions. The node it pretends: driver 560.35.03 (CUDA 12.6), two compute
// capability 9.0 GPUs joined by 4 active NVLink 4 links (links 4 and 5 exist but are down),
// PCIe gen 4 x16 (GPU B trained down to x8), on different CPU sockets (PCIe path SYS), P2P
// reads OK; GPU A near CPUs 0-7 / NUMA 0, GPU B near CPUs 8-15 / NUMA 1.
// FAKE_NVML_INIT_FAIL=1 makes nvmlInit fail as it does when the kernel module is not loaded;
// FAKE_NVML_DEVICE_COUNT=0 or 1 lists fewer devices; FAKE_NVML_NVSWITCH=1 has the links end
// at an NVSwitch instead of the other GPU. Built with FAKE_NVML_SAMPLER_ONLY it has
// only the sampler's entry points: a driver too old for the inventory's queries.

#include <cstdio>
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
static unsigned deviceCount() {
  const char* n = std::getenv("FAKE_NVML_DEVICE_COUNT");
  if (n && (std::strcmp(n, "0") == 0 || std::strcmp(n, "1") == 0)) return unsigned(n[0] - '0');
  return 2;
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = deviceCount();
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_st** device) {
  if (index >= deviceCount()) return 2;  // NVML_ERROR_INVALID_ARGUMENT
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
#ifndef FAKE_NVML_SAMPLER_ONLY
struct FakePciInfo {  // nvmlPciInfo_t
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
static void fillPci(int index, FakePciInfo* pci) {
  std::memset(pci, 0, sizeof *pci);
  const unsigned bus = index == 0 ? 0x07 : 0x0A;
  std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", bus);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", bus);
  pci->bus = bus;
  pci->pciDeviceId = 0x233010DE;
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  std::strncpy(version, "560.35.03", length);
  return 0;
}
int nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  std::strncpy(version, "12.560.35.03", length);
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  *version = 12060;
  return 0;
}
int nvmlDeviceGetUUID(nvmlDevice_st* device, char* uuid, unsigned int length) {
  std::snprintf(uuid, length, "GPU-fa4e%04d-0000-4000-8000-00000000000%d", device->index,
                device->index);
  return 0;
}
int nvmlDeviceGetPciInfo_v3(nvmlDevice_st* device, FakePciInfo* pci) {
  fillPci(device->index, pci);
  return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_st*, unsigned int* gen) {
  *gen = 4;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_st*, unsigned int* gen) {
  *gen = 4;
  return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_st* device, unsigned int* width) {
  *width = device->index == 0 ? 16 : 8;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_st*, unsigned int* width) {
  *width = 16;
  return 0;
}
int nvmlDeviceGetCudaComputeCapability(nvmlDevice_st*, int* major, int* minor) {
  *major = 9;
  *minor = 0;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(nvmlDevice_st*, int type, unsigned int* mhz) {
  if (type != 1) return 2;
  *mhz = 1980;
  return 0;
}
int nvmlDeviceGetCpuAffinity(nvmlDevice_st* device, unsigned int size, unsigned long* set) {
  if (size < 1) return 2;
  for (unsigned i = 0; i < size; ++i) set[i] = 0;
  set[0] = device->index == 0 ? 0xFFul : 0xFF00ul;
  return 0;
}
int nvmlDeviceGetNumaNodeId(nvmlDevice_st* device, unsigned int* node) {
  *node = static_cast<unsigned>(device->index);
  return 0;
}
int nvmlDeviceGetNvLinkState(nvmlDevice_st*, unsigned int link, int* active) {
  if (link >= 6) return 2;  // the device has links 0..5
  *active = link < 4 ? 1 : 0;
  return 0;
}
int nvmlDeviceGetNvLinkVersion(nvmlDevice_st*, unsigned int link, unsigned int* version) {
  if (link >= 6) return 2;
  *version = 4;
  return 0;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_st* device, unsigned int link,
                                        FakePciInfo* pci) {
  if (link >= 4) return 2;
  const char* sw = std::getenv("FAKE_NVML_NVSWITCH");
  if (sw && std::strcmp(sw, "1") == 0) {
    std::memset(pci, 0, sizeof *pci);
    std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", 0xC0 + link);
    return 0;
  }
  fillPci(1 - device->index, pci);
  return 0;
}
int nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_st* a, nvmlDevice_st* b, int* level) {
  *level = a == b ? 0 : 50;  // NVML_TOPOLOGY_SYSTEM
  return 0;
}
int nvmlDeviceGetP2PStatus(nvmlDevice_st*, nvmlDevice_st*, int index, int* status) {
  *status = index == 0 ? 0 : 5;  // read: OK; the rest: not supported
  return 0;
}
#endif  // FAKE_NVML_SAMPLER_ONLY
int fakeNvmlInitCount() {
  return g_initCount;
}

}  // extern "C"
