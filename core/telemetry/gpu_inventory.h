#pragma once
// What the node's GPUs are and how they connect, read once from NVML (dlopen, like the sampler):
// driver and CUDA driver versions, per device its name, UUID, PCI bus id, memory, PCIe link,
// NVLink links, compute capability, power limit, maximum SM clock and CPU / NUMA affinity, and
// between every pair the path `nvidia-smi topo -m` prints (NV<n>, PIX, PXB, PHB, NODE, SYS) and
// the driver's P2P read status. A driver too old for one query leaves that value unknown; only
// a missing library, a failing nvmlInit or a library without the basic entry points make the
// whole inventory unavailable, with the reason.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/message.h"

namespace stave::telemetry {

/// How two GPUs connect, as `nvidia-smi topo -m` names it (best first).
enum class LinkKind {
  Unknown,  ///< the driver could not say
  Self,     ///< the same device ("X")
  NVLink,   ///< one or more NVLinks ("NV<n>")
  PIX,      ///< at most one PCIe bridge (NVML_TOPOLOGY_SINGLE)
  PXB,      ///< several PCIe bridges, no host bridge (NVML_TOPOLOGY_MULTIPLE)
  PHB,      ///< through a PCIe host bridge, i.e. the CPU (NVML_TOPOLOGY_HOSTBRIDGE)
  NODE,     ///< across host bridges within one NUMA node (NVML_TOPOLOGY_NODE)
  SYS,      ///< across NUMA nodes: the CPU sockets' interconnect, QPI/UPI (NVML_TOPOLOGY_SYSTEM)
};

/// "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "?" (NVLink without its count).
const char* toString(LinkKind kind);
/// The PCIe path kind of an NVML topology level (0, 10, 20, 30, 40, 50); Unknown otherwise.
LinkKind linkKindOfTopologyLevel(int level);
/// The NCCL_P2P_LEVEL (schema key nccl_p2p_level) that lets NCCL use P2P over this kind of
/// link: NVL, PIX, PXB, PHB (also for NODE: NCCL counts it as through the CPU), SYS; "" for
/// Self and Unknown.
const char* p2pLevelFor(LinkKind kind);

/// The driver's answer to "can these two GPUs read each other's memory directly".
enum class P2pStatus { Unknown, Ok, ChipsetNotSupported, GpuNotSupported, TopologyNotSupported,
                       DisabledByRegkey, NotSupported };
/// "unknown", "OK", "chipset not supported", "GPU not supported", "topology not supported",
/// "disabled by regkey", "not supported".
const char* toString(P2pStatus status);
/// The status of an NVML nvmlGpuP2PStatus_t value (0 OK ... 5 not supported); else Unknown.
P2pStatus p2pStatusOfNvml(int value);

/// One NVLink link of a device that NVML reports.
struct NvLinkInfo {
  int link = 0;               ///< link number, 0 .. 17
  bool active = false;        ///< nvmlDeviceGetNvLinkState says enabled
  int version = -1;           ///< NVLink version, -1 unknown
  std::string remoteBusId;    ///< PCI bus id at the far end ("" unknown)
  int remoteDevice = -1;      ///< index of the GPU at the far end, -1 when not a GPU of this node
};

/// One GPU as NVML describes it. Numbers a driver does not report are -1, strings "".
struct GpuDeviceInfo {
  int index = 0;                ///< NVML device index
  std::string name;             ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string uuid;             ///< "GPU-…"
  std::string pciBusId;         ///< "00000000:07:00.0"
  int64_t memoryTotal = -1;     ///< bytes
  int pcieGen = -1;             ///< current PCIe generation (drops at idle on many boards)
  int pcieGenMax = -1;          ///< maximum generation of the device and slot
  int pcieWidth = -1;           ///< current lanes
  int pcieWidthMax = -1;        ///< maximum lanes
  std::vector<NvLinkInfo> nvlinks;  ///< the links NVML reports (empty: none or unknown)
  int ccMajor = -1;             ///< CUDA compute capability, major
  int ccMinor = -1;             ///< CUDA compute capability, minor
  double powerLimitW = -1;      ///< enforced power limit, watts
  double maxSmClockMHz = -1;    ///< maximum SM clock, MHz
  std::vector<int> cpus;        ///< CPUs close to the device (nvmlDeviceGetCpuAffinity)
  int numaNode = -1;            ///< NUMA node of the device

  /// Links that are up.
  int activeNvLinks() const;
};

/// How GPU `a` reaches GPU `b`.
struct GpuPair {
  LinkKind kind = LinkKind::Unknown;     ///< NVLink when any link joins them, else the PCIe path
  int nvlinks = 0;                       ///< active links between them
  LinkKind pcie = LinkKind::Unknown;     ///< the PCIe path alone (nvmlDeviceGetTopologyCommonAncestor)
  P2pStatus p2pRead = P2pStatus::Unknown;  ///< nvmlDeviceGetP2PStatus, read capability

  /// What nvidia-smi topo -m prints: "X", "NV4", "PIX", ..., "?" when unknown.
  std::string label() const;
};

/// The node's GPUs.
struct GpuInventory {
  bool available = false;          ///< NVML loaded and initialised
  std::string reason;              ///< why not, or why there is no device ("" otherwise)
  TextParts reasonText;            ///< `reason` as catalog messages, for the studio
  std::string driverVersion;       ///< e.g. "560.35.03" ("" unknown)
  std::string cudaDriverVersion;   ///< the CUDA version the driver supports, e.g. "12.6"
  std::string nvmlVersion;         ///< e.g. "12.560.35.03"
  std::vector<GpuDeviceInfo> devices;        ///< by NVML index
  std::vector<std::vector<GpuPair>> pairs;   ///< [a][b], devices.size() squared

  /// The pair's entry, or an Unknown one for indices out of range.
  GpuPair pair(int a, int b) const;
  /// The slowest link between any two different GPUs (Unknown when some pair is unknown, Self
  /// with fewer than two GPUs).
  LinkKind worstLink() const;
};

/// Options of readGpuInventory.
struct GpuInventoryOptions {
  std::string library = "libnvidia-ml.so.1";  ///< the NVML library to dlopen (tests use a fake)
  std::string sysRoot = "/sys";               ///< for the NUMA node when NVML cannot tell
};

/// Reads everything once (on the caller's thread: tens of ms on a real node, so not on a GUI
/// thread). Never throws for a missing or odd driver; see GpuInventory::reason.
GpuInventory readGpuInventory(const GpuInventoryOptions& options = {});

/// "0-7,16-23" for {0..7, 16..23}; "" for none.
std::string cpuListText(const std::vector<int>& cpus);
/// The CPUs of a Linux cpulist ("0-7,16-23"); bad parts are skipped.
std::vector<int> parseCpuList(const std::string& text);

}  // namespace stave::telemetry
