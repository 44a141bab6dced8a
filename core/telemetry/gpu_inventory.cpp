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

GpuInventory readGpuInventory(const GpuInventoryOptions& options) {
  GpuInventory inv;
  const nvml::Library lib(options.library);
  if (!lib.ok()) {
    inv.reason = lib.reason();
    return inv;
  }
  const auto getCount = lib.getCount;
  const auto getHandle = lib.getHandle;
  // Every other entry point is optional: an old driver leaves its value unknown.
  auto driverVersion = lib.symbol<nvmlReturn_t (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
  auto nvmlVersion = lib.symbol<nvmlReturn_t (*)(char*, unsigned)>("nvmlSystemGetNVMLVersion");
  auto cudaVersion = lib.symbol<nvmlReturn_t (*)(int*)>("nvmlSystemGetCudaDriverVersion_v2",
                                                    "nvmlSystemGetCudaDriverVersion");
  auto getName = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetName");
  auto getUuid = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetUUID");
  auto getPci = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*)>(
      "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
  auto getMemory = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");
  using UintQuery = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
  auto pcieGen = lib.symbol<UintQuery>("nvmlDeviceGetCurrPcieLinkGeneration");
  auto pcieGenMax = lib.symbol<UintQuery>("nvmlDeviceGetMaxPcieLinkGeneration");
  auto pcieWidth = lib.symbol<UintQuery>("nvmlDeviceGetCurrPcieLinkWidth");
  auto pcieWidthMax = lib.symbol<UintQuery>("nvmlDeviceGetMaxPcieLinkWidth");
  auto powerLimit = lib.symbol<UintQuery>("nvmlDeviceGetEnforcedPowerLimit");
  auto numaNode = lib.symbol<UintQuery>("nvmlDeviceGetNumaNodeId");
  auto maxClock =
      lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
  auto computeCap =
      lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetCudaComputeCapability");
  auto cpuAffinity = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned, unsigned long*)>(
      "nvmlDeviceGetCpuAffinity");
  auto linkState = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*)>("nvmlDeviceGetNvLinkState");
  auto linkVersion =
      lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned, unsigned*)>("nvmlDeviceGetNvLinkVersion");
  auto linkRemote = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned, NvmlPciInfo*)>(
      "nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo");
  auto commonAncestor = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int*)>(
      "nvmlDeviceGetTopologyCommonAncestor");
  auto p2pStatus = lib.symbol<nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int, int*)>(
      "nvmlDeviceGetP2PStatus");

  inv.available = true;

  char buf[kBuffer] = {0};
  if (driverVersion && driverVersion(buf, kBuffer) == kNvmlSuccess) inv.driverVersion = buf;
  buf[0] = 0;
  if (nvmlVersion && nvmlVersion(buf, kBuffer) == kNvmlSuccess) inv.nvmlVersion = buf;
  if (int v = 0; cudaVersion && cudaVersion(&v) == kNvmlSuccess && v > 0)
    inv.cudaDriverVersion = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);

  unsigned count = 0;
  if (const nvmlReturn_t rc = getCount(&count); rc != kNvmlSuccess) {
    inv.reason = "nvmlDeviceGetCount failed: " + lib.describe(rc);
    return inv;
  }
  count = std::min(count, 1024u);  // a broken driver's count must not allocate the world
  if (count == 0) inv.reason = "NVML lists no device";

  std::vector<nvmlDevice_t> handles(count, nullptr);
  for (unsigned i = 0; i < count; ++i) {
    GpuDeviceInfo d;
    d.index = static_cast<int>(i);
    nvmlDevice_t dev = nullptr;
    if (getHandle(i, &dev) != kNvmlSuccess) dev = nullptr;  // lost device: all unknown
    handles[i] = dev;
    if (dev) {
      char text[kBuffer] = {0};
      if (getName && getName(dev, text, kBuffer) == kNvmlSuccess) d.name = text;
      text[0] = 0;
      if (getUuid && getUuid(dev, text, kBuffer) == kNvmlSuccess) d.uuid = text;
      NvmlPciInfo pci{};
      if (getPci && getPci(dev, &pci) == kNvmlSuccess) d.pciBusId = busIdOf(pci);
      NvmlMemory mem{};
      if (getMemory && getMemory(dev, &mem) == kNvmlSuccess)
        d.memoryTotal = static_cast<int64_t>(mem.total);
      unsigned v = 0;
      if (pcieGen && pcieGen(dev, &v) == kNvmlSuccess) d.pcieGen = static_cast<int>(v);
      if (pcieGenMax && pcieGenMax(dev, &v) == kNvmlSuccess) d.pcieGenMax = static_cast<int>(v);
      if (pcieWidth && pcieWidth(dev, &v) == kNvmlSuccess) d.pcieWidth = static_cast<int>(v);
      if (pcieWidthMax && pcieWidthMax(dev, &v) == kNvmlSuccess)
        d.pcieWidthMax = static_cast<int>(v);
      if (powerLimit && powerLimit(dev, &v) == kNvmlSuccess) d.powerLimitW = v / 1000.0;
      if (maxClock && maxClock(dev, kNvmlClockSm, &v) == kNvmlSuccess) d.maxSmClockMHz = v;
      if (numaNode && numaNode(dev, &v) == kNvmlSuccess && v < 4096)
        d.numaNode = static_cast<int>(v);
      int major = 0, minor = 0;
      if (computeCap && computeCap(dev, &major, &minor) == kNvmlSuccess) {
        d.ccMajor = major;
        d.ccMinor = minor;
      }
      if (cpuAffinity) {
        constexpr unsigned kWords = 64;  // 4096 CPUs
        unsigned long mask[kWords] = {0};
        if (cpuAffinity(dev, kWords, mask) == kNvmlSuccess) {
          constexpr int bits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);
          for (unsigned w = 0; w < kWords; ++w)
            for (int b = 0; b < bits; ++b)
              if (mask[w] & (1ul << b)) d.cpus.push_back(static_cast<int>(w) * bits + b);
        }
      }
      if (linkState) {
        for (unsigned l = 0; l < kNvmlNvLinkMaxLinks; ++l) {
          int state = 0;
          // A link number the device does not have answers an error: it is no link at all.
          if (linkState(dev, l, &state) != kNvmlSuccess) continue;
          NvLinkInfo link;
          link.link = static_cast<int>(l);
          link.active = state == 1;  // NVML_FEATURE_ENABLED
          if (linkVersion && linkVersion(dev, l, &v) == kNvmlSuccess)
            link.version = static_cast<int>(v);
          NvmlPciInfo remote{};
          if (link.active && linkRemote && linkRemote(dev, l, &remote) == kNvmlSuccess)
            link.remoteBusId = busIdOf(remote);
          d.nvlinks.push_back(std::move(link));
        }
      }
    }
    if (d.numaNode < 0) d.numaNode = readNumaNodeFromSys(options.sysRoot, d.pciBusId);
    inv.devices.push_back(std::move(d));
  }

  // Which GPU each link reaches. A link whose far end is no GPU of this node goes to an
  // NVSwitch (or a CPU): GPUs that both reach switches talk over them, as nvidia-smi shows.
  std::map<std::string, int> byBus;
  for (const auto& d : inv.devices)
    if (!d.pciBusId.empty()) byBus[normaliseBusId(d.pciBusId)] = d.index;
  std::vector<std::map<int, int>> direct(count);  // [a][b] = active links a -> b
  std::vector<int> switchLinks(count, 0);
  for (auto& d : inv.devices) {
    for (auto& l : d.nvlinks) {
      if (!l.active || l.remoteBusId.empty()) continue;
      const auto it = byBus.find(normaliseBusId(l.remoteBusId));
      if (it != byBus.end() && it->second != d.index) {
        l.remoteDevice = it->second;
        ++direct[static_cast<size_t>(d.index)][it->second];
      } else if (it == byBus.end()) {
        ++switchLinks[static_cast<size_t>(d.index)];
      }
    }
  }

  inv.pairs.assign(count, std::vector<GpuPair>(count));
  for (unsigned a = 0; a < count; ++a) {
    for (unsigned b = 0; b < count; ++b) {
      GpuPair& p = inv.pairs[a][b];
      if (a == b) {
        p.kind = p.pcie = LinkKind::Self;
        continue;
      }
      nvmlDevice_t da = handles[a], db = handles[b];
      if (da && db && commonAncestor) {
        int level = -1;
        if (commonAncestor(da, db, &level) == kNvmlSuccess)
          p.pcie = linkKindOfTopologyLevel(level);
        // Two GPUs on one board (level INTERNAL) still are two devices: one bridge apart.
        if (p.pcie == LinkKind::Self) p.pcie = LinkKind::PIX;
      }
      if (da && db && p2pStatus) {
        int status = -1;
        if (p2pStatus(da, db, kNvmlP2pCapsIndexRead, &status) == kNvmlSuccess)
          p.p2pRead = p2pStatusOfNvml(status);
      }
      const auto da2b = direct[a].find(static_cast<int>(b));
      const auto db2a = direct[b].find(static_cast<int>(a));
      int links = std::max(da2b == direct[a].end() ? 0 : da2b->second,
                           db2a == direct[b].end() ? 0 : db2a->second);
      if (links == 0 && switchLinks[a] > 0 && switchLinks[b] > 0)
        links = std::min(switchLinks[a], switchLinks[b]);
      p.nvlinks = links;
      p.kind = links > 0 ? LinkKind::NVLink : p.pcie;
    }
  }
  return inv;
}

}  // namespace stave::telemetry
