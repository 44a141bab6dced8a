#include "core/telemetry/gpu_inventory.h"
#include "core/telemetry/nvml.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

namespace stave::telemetry {

namespace {

using nvmlReturn_t = nvml::Return;
using nvmlDevice_t = nvml::Device;
using NvmlMemory = nvml::Memory;
using NvmlPciInfo = nvml::PciInfo;
constexpr nvmlReturn_t kNvmlSuccess = nvml::kSuccess;
constexpr int kNvmlClockSm = nvml::kClockSm;
constexpr int kNvmlP2pCapsIndexRead = nvml::kP2pCapsIndexRead;
constexpr unsigned kNvmlNvLinkMaxLinks = nvml::kNvLinkMaxLinks;
constexpr unsigned kBuffer = nvml::kBuffer;

// NVML writes bus ids as "00000000:07:00.0" and upper case; /sys and other tools as
// "0000:07:00.0". Compare them without the domain's leading zeros and case.
std::string normaliseBusId(std::string id) {
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
  return id;
}

std::string busIdOf(const NvmlPciInfo& pci) {
  std::string id(pci.busId, strnlen(pci.busId, sizeof pci.busId));
  if (id.empty()) id.assign(pci.busIdLegacy, strnlen(pci.busIdLegacy, sizeof pci.busIdLegacy));
  return id;
}

int readNumaNodeFromSys(const std::string& sysRoot, const std::string& busId) {
  if (busId.empty()) return -1;
  std::ifstream in(sysRoot + "/bus/pci/devices/" + normaliseBusId(busId) + "/numa_node");
  int node = -1;
  if (!(in >> node)) return -1;
  return node;  // -1 there too when the machine has a single node
}

}  // namespace

const char* toString(LinkKind kind) {
  switch (kind) {
    case LinkKind::Unknown:
      return "?";
    case LinkKind::Self:
      return "X";
    case LinkKind::NVLink:
      return "NV";
    case LinkKind::PIX:
      return "PIX";
    case LinkKind::PXB:
      return "PXB";
    case LinkKind::PHB:
      return "PHB";
    case LinkKind::NODE:
      return "NODE";
    case LinkKind::SYS:
      return "SYS";
  }
  return "?";
}

LinkKind linkKindOfTopologyLevel(int level) {
  switch (level) {
    case 0:
      return LinkKind::Self;  // NVML_TOPOLOGY_INTERNAL: the same board (or device)
    case 10:
      return LinkKind::PIX;
    case 20:
      return LinkKind::PXB;
    case 30:
      return LinkKind::PHB;
    case 40:
      return LinkKind::NODE;
    case 50:
      return LinkKind::SYS;
    default:
      return LinkKind::Unknown;
  }
}

const char* p2pLevelFor(LinkKind kind) {
  switch (kind) {
    case LinkKind::NVLink:
      return "NVL";
    case LinkKind::PIX:
      return "PIX";
    case LinkKind::PXB:
      return "PXB";
    case LinkKind::PHB:
    case LinkKind::NODE:
      return "PHB";
    case LinkKind::SYS:
      return "SYS";
    case LinkKind::Self:
    case LinkKind::Unknown:
      return "";
  }
  return "";
}

const char* toString(P2pStatus status) {
  switch (status) {
    case P2pStatus::Unknown:
      return "unknown";
    case P2pStatus::Ok:
      return "OK";
    case P2pStatus::ChipsetNotSupported:
      return "chipset not supported";
    case P2pStatus::GpuNotSupported:
      return "GPU not supported";
    case P2pStatus::TopologyNotSupported:
      return "topology not supported";
    case P2pStatus::DisabledByRegkey:
      return "disabled by regkey";
    case P2pStatus::NotSupported:
      return "not supported";
  }
  return "unknown";
}

P2pStatus p2pStatusOfNvml(int value) {
  switch (value) {
    case 0:
      return P2pStatus::Ok;
    case 1:
      return P2pStatus::ChipsetNotSupported;
    case 2:
      return P2pStatus::GpuNotSupported;
    case 3:
      return P2pStatus::TopologyNotSupported;
    case 4:
      return P2pStatus::DisabledByRegkey;
    case 5:
      return P2pStatus::NotSupported;
    default:
      return P2pStatus::Unknown;
  }
}

int GpuDeviceInfo::activeNvLinks() const {
  return static_cast<int>(
      std::count_if(nvlinks.begin(), nvlinks.end(), [](const NvLinkInfo& l) { return l.active; }));
}

std::string GpuPair::label() const {
  if (kind == LinkKind::NVLink) return "NV" + std::to_string(nvlinks);
  return toString(kind);
}

GpuPair GpuInventory::pair(int a, int b) const {
  if (a < 0 || b < 0 || static_cast<size_t>(a) >= pairs.size() ||
      static_cast<size_t>(b) >= pairs[static_cast<size_t>(a)].size())
    return {};
  return pairs[static_cast<size_t>(a)][static_cast<size_t>(b)];
}

LinkKind GpuInventory::worstLink() const {
  LinkKind worst = LinkKind::Self;
  for (size_t a = 0; a < pairs.size(); ++a) {
    for (size_t b = 0; b < pairs[a].size(); ++b) {
      if (a == b) continue;
      const LinkKind k = pairs[a][b].kind;
      if (k == LinkKind::Unknown) return LinkKind::Unknown;
      worst = std::max(worst, k);  // the enum runs from best to worst
    }
  }
  return worst;
}

std::string cpuListText(const std::vector<int>& cpusIn) {
  std::vector<int> cpus = cpusIn;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parseCpuList(const std::string& text) {
  // Parts "a" or "a-b", separated by commas; anything else in a part drops that part.
  auto number = [](const std::string& s, int* v) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *v = std::stoi(s);
    return true;
  };
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(pos, end - pos);
    pos = end + 1;
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front())))
      part.erase(part.begin());
    const size_t dash = part.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string::npos) {
      if (!number(part, &lo)) continue;
      hi = lo;
    } else if (!number(part.substr(0, dash), &lo) || !number(part.substr(dash + 1), &hi) ||
               hi < lo || hi - lo > 65536) {
      continue;
    }
    for (int c = lo; c <= hi; ++c) out.push_back(c);
  }
  return out;
}

namespace {

// NVML's entry points beyond the required ones, each null when the driver lacks it: an old
// driver leaves its value unknown.
struct NvmlQueries {
  using UintQuery = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
  nvmlReturn_t (*driverVersion)(char*, unsigned) = nullptr;
  nvmlReturn_t (*nvmlVersion)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cudaVersion)(int*) = nullptr;
  nvmlReturn_t (*getName)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*getUuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*getPci)(nvmlDevice_t, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*getMemory)(nvmlDevice_t, NvmlMemory*) = nullptr;
  UintQuery pcieGen = nullptr, pcieGenMax = nullptr, pcieWidth = nullptr, pcieWidthMax = nullptr;
  UintQuery powerLimit = nullptr, numaNode = nullptr;
  nvmlReturn_t (*maxClock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*computeCap)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*cpuAffinity)(nvmlDevice_t, unsigned, unsigned long*) = nullptr;
  nvmlReturn_t (*linkState)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*linkVersion)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*linkRemote)(nvmlDevice_t, unsigned, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*commonAncestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*p2pStatus)(nvmlDevice_t, nvmlDevice_t, int, int*) = nullptr;
};

NvmlQueries findQueries(const nvml::Library& lib) {
  NvmlQueries q;
  using UintQuery = NvmlQueries::UintQuery;
  q.driverVersion = lib.symbol<decltype(q.driverVersion)>("nvmlSystemGetDriverVersion");
  q.nvmlVersion = lib.symbol<decltype(q.nvmlVersion)>("nvmlSystemGetNVMLVersion");
  q.cudaVersion = lib.symbol<decltype(q.cudaVersion)>("nvmlSystemGetCudaDriverVersion_v2",
                                                      "nvmlSystemGetCudaDriverVersion");
  q.getName = lib.symbol<decltype(q.getName)>("nvmlDeviceGetName");
  q.getUuid = lib.symbol<decltype(q.getUuid)>("nvmlDeviceGetUUID");
  q.getPci = lib.symbol<decltype(q.getPci)>("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
  q.getMemory = lib.symbol<decltype(q.getMemory)>("nvmlDeviceGetMemoryInfo");
  q.pcieGen = lib.symbol<UintQuery>("nvmlDeviceGetCurrPcieLinkGeneration");
  q.pcieGenMax = lib.symbol<UintQuery>("nvmlDeviceGetMaxPcieLinkGeneration");
  q.pcieWidth = lib.symbol<UintQuery>("nvmlDeviceGetCurrPcieLinkWidth");
  q.pcieWidthMax = lib.symbol<UintQuery>("nvmlDeviceGetMaxPcieLinkWidth");
  q.powerLimit = lib.symbol<UintQuery>("nvmlDeviceGetEnforcedPowerLimit");
  q.numaNode = lib.symbol<UintQuery>("nvmlDeviceGetNumaNodeId");
  q.maxClock = lib.symbol<decltype(q.maxClock)>("nvmlDeviceGetMaxClockInfo");
  q.computeCap = lib.symbol<decltype(q.computeCap)>("nvmlDeviceGetCudaComputeCapability");
  q.cpuAffinity = lib.symbol<decltype(q.cpuAffinity)>("nvmlDeviceGetCpuAffinity");
  q.linkState = lib.symbol<decltype(q.linkState)>("nvmlDeviceGetNvLinkState");
  q.linkVersion = lib.symbol<decltype(q.linkVersion)>("nvmlDeviceGetNvLinkVersion");
  q.linkRemote = lib.symbol<decltype(q.linkRemote)>("nvmlDeviceGetNvLinkRemotePciInfo_v2",
                                                    "nvmlDeviceGetNvLinkRemotePciInfo");
  q.commonAncestor = lib.symbol<decltype(q.commonAncestor)>("nvmlDeviceGetTopologyCommonAncestor");
  q.p2pStatus = lib.symbol<decltype(q.p2pStatus)>("nvmlDeviceGetP2PStatus");
  return q;
}

void readVersions(const NvmlQueries& q, GpuInventory& inv) {
  char buf[kBuffer] = {0};
  if (q.driverVersion && q.driverVersion(buf, kBuffer) == kNvmlSuccess) inv.driverVersion = buf;
  buf[0] = 0;
  if (q.nvmlVersion && q.nvmlVersion(buf, kBuffer) == kNvmlSuccess) inv.nvmlVersion = buf;
  if (int v = 0; q.cudaVersion && q.cudaVersion(&v) == kNvmlSuccess && v > 0)
    inv.cudaDriverVersion = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Name, UUID, bus id, memory, PCIe link, power, clock, NUMA node and compute capability.
void readDeviceProperties(const NvmlQueries& q, nvmlDevice_t dev, GpuDeviceInfo& d) {
  char text[kBuffer] = {0};
  if (q.getName && q.getName(dev, text, kBuffer) == kNvmlSuccess) d.name = text;
  text[0] = 0;
  if (q.getUuid && q.getUuid(dev, text, kBuffer) == kNvmlSuccess) d.uuid = text;
  NvmlPciInfo pci{};
  if (q.getPci && q.getPci(dev, &pci) == kNvmlSuccess) d.pciBusId = busIdOf(pci);
  NvmlMemory mem{};
  if (q.getMemory && q.getMemory(dev, &mem) == kNvmlSuccess)
    d.memoryTotal = static_cast<int64_t>(mem.total);
  unsigned v = 0;
  if (q.pcieGen && q.pcieGen(dev, &v) == kNvmlSuccess) d.pcieGen = static_cast<int>(v);
  if (q.pcieGenMax && q.pcieGenMax(dev, &v) == kNvmlSuccess) d.pcieGenMax = static_cast<int>(v);
  if (q.pcieWidth && q.pcieWidth(dev, &v) == kNvmlSuccess) d.pcieWidth = static_cast<int>(v);
  if (q.pcieWidthMax && q.pcieWidthMax(dev, &v) == kNvmlSuccess)
    d.pcieWidthMax = static_cast<int>(v);
  if (q.powerLimit && q.powerLimit(dev, &v) == kNvmlSuccess) d.powerLimitW = v / 1000.0;
  if (q.maxClock && q.maxClock(dev, kNvmlClockSm, &v) == kNvmlSuccess) d.maxSmClockMHz = v;
  if (q.numaNode && q.numaNode(dev, &v) == kNvmlSuccess && v < 4096)
    d.numaNode = static_cast<int>(v);
  int major = 0, minor = 0;
  if (q.computeCap && q.computeCap(dev, &major, &minor) == kNvmlSuccess) {
    d.ccMajor = major;
    d.ccMinor = minor;
  }
}

// The CPUs close to the device (empty when unknown).
std::vector<int> readCpuAffinity(const NvmlQueries& q, nvmlDevice_t dev) {
  std::vector<int> cpus;
  if (!q.cpuAffinity) return cpus;
  constexpr unsigned kWords = 64;  // 4096 CPUs
  unsigned long mask[kWords] = {0};
  if (q.cpuAffinity(dev, kWords, mask) == kNvmlSuccess) {
    constexpr int bits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);
    for (unsigned w = 0; w < kWords; ++w)
      for (int b = 0; b < bits; ++b)
        if (mask[w] & (1ul << b)) cpus.push_back(static_cast<int>(w) * bits + b);
  }
  return cpus;
}

// The device's NVLinks: state, version and, for an active one, the far end's bus id.
std::vector<NvLinkInfo> readNvLinks(const NvmlQueries& q, nvmlDevice_t dev) {
  std::vector<NvLinkInfo> links;
  if (!q.linkState) return links;
  unsigned v = 0;
  for (unsigned l = 0; l < kNvmlNvLinkMaxLinks; ++l) {
    int state = 0;
    // A link number the device does not have answers an error: it is no link at all.
    if (q.linkState(dev, l, &state) != kNvmlSuccess) continue;
    NvLinkInfo link;
    link.link = static_cast<int>(l);
    link.active = state == 1;  // NVML_FEATURE_ENABLED
    if (q.linkVersion && q.linkVersion(dev, l, &v) == kNvmlSuccess)
      link.version = static_cast<int>(v);
    NvmlPciInfo remote{};
    if (link.active && q.linkRemote && q.linkRemote(dev, l, &remote) == kNvmlSuccess)
      link.remoteBusId = busIdOf(remote);
    links.push_back(std::move(link));
  }
  return links;
}

// Which GPU each active link reaches: per pair the links between them, per GPU the links to
// no GPU of this node (an NVSwitch, or a CPU). Sets each link's remoteDevice.
struct LinkCounts {
  std::vector<std::map<int, int>> direct;  // [a][b] = active links a -> b
  std::vector<int> switchLinks;
};

LinkCounts countLinks(std::vector<GpuDeviceInfo>& devices, unsigned count) {
  std::map<std::string, int> byBus;
  for (const auto& d : devices)
    if (!d.pciBusId.empty()) byBus[normaliseBusId(d.pciBusId)] = d.index;
  LinkCounts c{std::vector<std::map<int, int>>(count), std::vector<int>(count, 0)};
  for (auto& d : devices) {
    for (auto& l : d.nvlinks) {
      if (!l.active || l.remoteBusId.empty()) continue;
      const auto it = byBus.find(normaliseBusId(l.remoteBusId));
      if (it != byBus.end() && it->second != d.index) {
        l.remoteDevice = it->second;
        ++c.direct[static_cast<size_t>(d.index)][it->second];
      } else if (it == byBus.end()) {
        ++c.switchLinks[static_cast<size_t>(d.index)];
      }
    }
  }
  return c;
}

// How GPU `a` reaches GPU `b` (a != b): the PCIe path, the P2P read status, and NVLink when
// links join them directly or both reach switches (they talk over them, as nvidia-smi shows).
GpuPair pairOf(const NvmlQueries& q, nvmlDevice_t da, nvmlDevice_t db, const LinkCounts& c,
               unsigned a, unsigned b) {
  GpuPair p;
  if (da && db && q.commonAncestor) {
    int level = -1;
    if (q.commonAncestor(da, db, &level) == kNvmlSuccess) p.pcie = linkKindOfTopologyLevel(level);
    // Two GPUs on one board (level INTERNAL) still are two devices: one bridge apart.
    if (p.pcie == LinkKind::Self) p.pcie = LinkKind::PIX;
  }
  if (da && db && q.p2pStatus) {
    int status = -1;
    if (q.p2pStatus(da, db, kNvmlP2pCapsIndexRead, &status) == kNvmlSuccess)
      p.p2pRead = p2pStatusOfNvml(status);
  }
  const auto da2b = c.direct[a].find(static_cast<int>(b));
  const auto db2a = c.direct[b].find(static_cast<int>(a));
  int links = std::max(da2b == c.direct[a].end() ? 0 : da2b->second,
                       db2a == c.direct[b].end() ? 0 : db2a->second);
  if (links == 0 && c.switchLinks[a] > 0 && c.switchLinks[b] > 0)
    links = std::min(c.switchLinks[a], c.switchLinks[b]);
  p.nvlinks = links;
  p.kind = links > 0 ? LinkKind::NVLink : p.pcie;
  return p;
}

}  // namespace

GpuInventory readGpuInventory(const GpuInventoryOptions& options) {
  GpuInventory inv;
  const nvml::Library lib(options.library);
  if (!lib.ok()) {
    inv.reason = lib.reason();
    inv.reasonText = {lib.reasonText()};
    return inv;
  }
  const NvmlQueries q = findQueries(lib);
  inv.available = true;
  readVersions(q, inv);

  unsigned count = 0;
  if (const nvmlReturn_t rc = lib.getCount(&count); rc != kNvmlSuccess) {
    inv.reasonText = {Text("nvml.count_failed", {{"reason", lib.describe(rc)}})};
    inv.reason = english(inv.reasonText);
    return inv;
  }
  count = std::min(count, 1024u);  // a broken driver's count must not allocate the world
  if (count == 0) {
    inv.reasonText = {Text("nvml.no_device")};
    inv.reason = english(inv.reasonText);
  }

  std::vector<nvmlDevice_t> handles(count, nullptr);
  for (unsigned i = 0; i < count; ++i) {
    GpuDeviceInfo d;
    d.index = static_cast<int>(i);
    nvmlDevice_t dev = nullptr;
    if (lib.getHandle(i, &dev) != kNvmlSuccess) dev = nullptr;  // lost device: all unknown
    handles[i] = dev;
    if (dev) {
      readDeviceProperties(q, dev, d);
      d.cpus = readCpuAffinity(q, dev);
      d.nvlinks = readNvLinks(q, dev);
    }
    if (d.numaNode < 0) d.numaNode = readNumaNodeFromSys(options.sysRoot, d.pciBusId);
    inv.devices.push_back(std::move(d));
  }

  const LinkCounts links = countLinks(inv.devices, count);
  inv.pairs.assign(count, std::vector<GpuPair>(count));
  for (unsigned a = 0; a < count; ++a) {
    for (unsigned b = 0; b < count; ++b) {
      GpuPair& p = inv.pairs[a][b];
      if (a == b) {
        p.kind = p.pcie = LinkKind::Self;
        continue;
      }
      p = pairOf(q, handles[a], handles[b], links, a, b);
    }
  }
  return inv;
}

}  // namespace stave::telemetry
