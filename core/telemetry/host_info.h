#pragma once
// The host a run trains on: CPU model, logical and physical cores, sockets, NUMA nodes with
// their CPUs and memory, and total memory, read from /proc/cpuinfo, /proc/meminfo and
// /sys/devices/system/node. Linux only; what cannot be read stays unknown (-1 or empty).

#include <cstdint>
#include <string>
#include <vector>

namespace stave::telemetry {

/// One NUMA node.
struct NumaNodeInfo {
  int id = 0;                ///< node number
  std::vector<int> cpus;     ///< its logical CPUs (from cpulist)
  int64_t memTotal = -1;     ///< bytes
  int64_t memFree = -1;      ///< bytes
};

/// The host's CPUs and memory.
struct HostInfo {
  std::string cpuModel;               ///< "model name" of the first CPU ("" unknown)
  int logicalCores = 0;               ///< processors listed in /proc/cpuinfo
  int physicalCores = -1;             ///< distinct (physical id, core id), -1 unknown
  int sockets = -1;                   ///< distinct physical ids, -1 unknown
  int64_t memTotal = -1;              ///< bytes (MemTotal)
  int64_t memAvailable = -1;          ///< bytes (MemAvailable: unused + reclaimable cache)
  int64_t memFree = -1;               ///< bytes (MemFree: unused, as each NUMA node reports)
  std::vector<NumaNodeInfo> numa;     ///< by node number; empty when /sys has no node folder
};

/// Reads the host now. `procRoot` and `sysRoot` are /proc and /sys (tests pass folders laid out
/// like them). A few file reads: cheap, but still not for a GUI thread.
HostInfo readHostInfo(const std::string& procRoot = "/proc", const std::string& sysRoot = "/sys");

}  // namespace stave::telemetry
